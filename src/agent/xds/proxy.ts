/**
 * The agent's XDS proxy (pilot-agent's `pkg/istio-agent/xds_proxy.go` and `xds_proxy_delta.go`):
 * Envoy's ADS (`StreamAggregatedResources` and `DeltaAggregatedResources`) served on the owner-only
 * Unix socket `<root>/etc/istio/proxy/XDS`. As in Istio:
 *
 * - each Envoy stream gets a connection and stream of its own to istiod, and only one is kept: a new
 *   Envoy stream closes the previous one (`registerStream`), so istiod sees one stream per agent;
 * - the stream's end on either side ends the other: when istiod goes away Envoy's stream is closed
 *   with istiod's status (OK when istiod ended it cleanly), and Envoy reconnects and re-sends its
 *   whole state, as it does after any disconnect; when Envoy goes away the upstream is cancelled;
 * - after Envoy's first LDS request the proxy asks for the name table (when the DNS proxy runs) and
 *   the proxy config (when the agent takes the trust bundle from it), and takes those responses
 *   itself: the first resource goes to the handler, and istiod gets an ACK, or a NACK with the
 *   handler's error; an empty response is left unanswered;
 * - only Envoy's types (and Workload) are forwarded to Envoy; anything else is dropped and logged.
 *
 * Messages pass through as the bytes received: the proxy reads only their envelope (type URL,
 * version, nonce) off the wire and decodes resources only for the types it takes (./stream-state.ts),
 * so a push costs a copy, not a decode and an encode, and nothing of it is kept on the V8 heap.
 *
 * A slow Envoy pauses reading from istiod once more than 1 MiB written to Envoy's stream is not yet
 * flushed to its socket (HTTP/2 flow control does the rest: nothing is buffered without bound).
 *
 * ```ts
 * const xds = await startXdsProxy({ root: "/", discoveryAddress: "istiod.istio-system.svc:15012",
 *   clusterId: "Kubernetes", onNameTable: (t) => dns.updateNameTable(t) });
 * await xds.close();
 * ```
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  Server,
  type ServerDuplexStream,
  type ServiceDefinition,
  status as Status,
  type StatusObject,
} from "@grpc/grpc-js";
import type { NameTable } from "../dns/name-table.js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../istiod-channel.js";
import { type AgentLog, SILENT_LOG } from "../process/log.js";
import { appendCertByte } from "../sds/trust-anchors.js";
import { bindUnixSocket, countingDecoders, shutdown } from "../uds-grpc.js";
import { decodeNameTable } from "./name-table-decode.js";
import { decodeProxyConfigCaCertificates } from "./proxy-config-decode.js";
import {
  type AgentRequest,
  type AnyResource,
  checkAnyType,
  type ResponseEnvelope,
  type StreamKind,
  streamShapes,
} from "./stream-state.js";
import {
  ADS_SERVICE_PATH,
  isEnvoyType,
  LISTENER_TYPE,
  NAME_TABLE_TYPE,
  PROXY_CONFIG_TYPE,
  shortType,
  WORKLOAD_TYPE,
} from "./types.js";
import { dialUpstream, type UpstreamConnection, type UpstreamOptions, type UpstreamStream } from "./upstream.js";

export const XDS_SOCKET = "etc/istio/proxy/XDS";

export interface XdsProxyOptions {
  root?: string;
  socketPath?: string;
  /** `discoveryAddress` of the proxy config, `host:port`. */
  discoveryAddress: string;
  /** istiod's root certificate file (default `<root>/var/run/secrets/istio/root-cert.pem`); `false`: plaintext. */
  rootCertPath?: string | false;
  serverName?: string;
  /** Token file (default `<root>/var/run/secrets/tokens/istio-token`); `false`: none. */
  tokenPath?: string | false;
  clusterId: string;
  /**
   * pilot-agent's dial to istiod (TLS, XDS_HEADER_*, token); replaces rootCertPath/serverName/tokenPath.
   * A function is resolved at start (its error is the proxy's start-up error).
   */
  dial?: UpstreamOptions["dial"] | (() => UpstreamOptions["dial"]);
  /** The name table sink (DNS proxy on); when absent, NDS is not requested. Throws to NACK. */
  onNameTable?: (table: NameTable) => void;
  /**
   * istiokeepalive.DefaultOption: `GRPC_KEEPALIVE_INTERVAL` and `GRPC_KEEPALIVE_TIMEOUT` (default 30 s
   * and 10 s), for both Envoy's side and istiod's.
   */
  keepalive?: { timeMs: number; timeoutMs: number };
  /** `PROXY_CONFIG_XDS_AGENT` (Istio's EnableDynamicProxyConfig): PCDS is taken when this and `onProxyConfig` are set. */
  dynamicProxyConfig?: boolean;
  /**
   * The trust bundle sink (the secret cache's UpdateConfigTrustBundle): the `caCertificatesPem` of
   * each ProxyConfig istiod pushes, joined into one PEM bundle as initXdsProxy joins them
   * (pkiutil.AppendCertByte). Without it or `dynamicProxyConfig`, PCDS is not requested. Throws to NACK.
   */
  onProxyConfig?: (trustBundle: string) => void;
  /**
   * ISTIO_AGENT_ENABLE_WASM_REMOTE_LOAD_CONVERSION (default true). pkg/wasm (downloading remote Wasm
   * modules and rewriting ECDS to local files) is not ported: ECDS passes unchanged, and with the
   * conversion asked for the proxy says so once.
   */
  wasmRemoteLoadConversion?: boolean;
  log?: AgentLog;
}

/** model.ExtensionConfigurationType: what xds_proxy.go hands to rewriteAndForward. */
export const EXTENSION_CONFIG_TYPE_URL = "type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig";
/** model.HealthInfoType. */
export const HEALTH_INFO_TYPE_URL = "type.googleapis.com/istio.v1.HealthInformation";

export interface XdsStats {
  /** Envoy streams accepted. */
  downstreams: number;
  requests: number;
  responses: number;
  /** Upstream streams that ended (istiod went away or ended them), each ending Envoy's stream. */
  upstreamTerminations: number;
  /** Envoy streams closed because a newer one took their place. */
  replaced: number;
  nameTables: number;
  proxyConfigs: number;
  /** Responses answered with a NACK (the agent could not use them). */
  nacks: number;
  /** Messages that could not be used (undecodable requests from Envoy, or internal types' payloads). */
  malformed: number;
  /** Responses of a type that is not Envoy's, dropped. */
  dropped: number;
  /** Times a slow Envoy made the proxy stop reading from istiod. */
  paused: number;
}

export interface XdsProxy {
  socketPath: string;
  /** The current Envoy stream's connection to istiod is up. */
  ready(): boolean;
  notReadyReason(): string | undefined;
  stats(): XdsStats;
  /**
   * The workload's health for istiod (xds_proxy.go's health callback, sendHealthCheckRequest): a
   * HealthInformation request, with an Internal error detail when unhealthy, sent now on the current
   * stream and kept as the initial request of later ones (after Envoy's first LDS request).
   */
  sendHealth(event: { healthy: boolean; message?: string }): void;
  close(): Promise<void>;
}

/** One of Envoy's requests: its bytes, forwarded as they are, and its type URL. */
interface EnvoyRequest {
  bytes: Buffer;
  typeUrl: string;
}
type Downstream = ServerDuplexStream<EnvoyRequest, Buffer>;
/** Takes the first resource of a response the agent consumes; throws to NACK (as Istio's handlers return errors). */
type Handler = (resource: AnyResource) => void;

/**
 * The ADS service as Envoy calls it, on bytes: a request's envelope is read to know its type (a
 * request that is not a DiscoveryRequest on the wire fails to deserialize, and grpc-js ends that
 * call with an error); responses are istiod's bytes.
 */
function adsService(): ServiceDefinition {
  const method = (name: string, kind: StreamKind) => {
    const shapes = streamShapes(kind);
    return {
      path: `${ADS_SERVICE_PATH}/${name}`,
      requestStream: true,
      responseStream: true,
      requestDeserialize: (bytes: Buffer): EnvoyRequest => ({ bytes, typeUrl: shapes.requestType(bytes) }),
      requestSerialize: (request: EnvoyRequest) => request.bytes,
      responseDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (bytes: Buffer) => bytes,
    };
  };
  return {
    StreamAggregatedResources: method("StreamAggregatedResources", "sotw"),
    DeltaAggregatedResources: method("DeltaAggregatedResources", "delta"),
  };
}

/** Bytes written to Envoy's stream and not yet flushed above which istiod's stream is paused. */
const PENDING_LIMIT = 1 << 20;

/** grpc `codes.Internal`, the code of the agent's NACKs. */
const INTERNAL = 13;

/** One Envoy stream with its upstream (Istio's `ProxyConnection`). */
interface Connection {
  id: number;
  /** Ends both sides; Envoy's stream with `status` (OK when absent). */
  stop(status?: Partial<StatusObject>): void;
  upstream?: UpstreamConnection;
  /** Sends a request of the agent's own to istiod on this stream. */
  send?: (request: AgentRequest) => void;
}

export async function startXdsProxy(options: XdsProxyOptions): Promise<XdsProxy> {
  const root = options.root ?? "/";
  const socketPath = options.socketPath ?? join(root, XDS_SOCKET);
  const log = options.log ?? SILENT_LOG;
  let wasmNoticeGiven = options.wasmRemoteLoadConversion === false;
  const noticeEcds = () => {
    if (wasmNoticeGiven) return;
    wasmNoticeGiven = true;
    log.warn(
      "ECDS (TypedExtensionConfig) forwarded to Envoy unchanged: this agent does not download remote Wasm modules " +
        "(ISTIO_AGENT_ENABLE_WASM_REMOTE_LOAD_CONVERSION); Envoy fetches http(s) modules itself, oci:// modules fail",
    );
  };
  let healthRequest: AgentRequest | undefined;
  const rootCertPath = options.rootCertPath ?? join(root, CA_ROOT_CERT);
  const tokenPath = options.tokenPath ?? join(root, TOKEN_PATH);
  const dial = typeof options.dial === "function" ? options.dial() : options.dial;
  const rootCertPem = dial || rootCertPath === false ? undefined : readFileSync(rootCertPath);
  const keepalive = options.keepalive ?? { timeMs: 30_000, timeoutMs: 10_000 };
  const counters: XdsStats = {
    downstreams: 0,
    requests: 0,
    responses: 0,
    upstreamTerminations: 0,
    replaced: 0,
    nameTables: 0,
    proxyConfigs: 0,
    nacks: 0,
    malformed: 0,
    dropped: 0,
    paused: 0,
  };

  // The responses the agent takes itself (Istio's `handlers`), by type URL.
  const handlers = new Map<string, Handler>();
  if (options.onNameTable) {
    const sink = options.onNameTable;
    handlers.set(NAME_TABLE_TYPE, (resource) => {
      checkAnyType(resource, "istio.networking.nds.v1.NameTable");
      sink(decodeNameTable(resource.value));
      counters.nameTables++;
    });
  }
  if (options.dynamicProxyConfig && options.onProxyConfig) {
    const sink = options.onProxyConfig;
    handlers.set(PROXY_CONFIG_TYPE, (resource) => {
      checkAnyType(resource, "istio.mesh.v1alpha1.ProxyConfig");
      const caCerts = decodeProxyConfigCaCertificates(resource.value);
      log.debug(`XDS proxy: received new certificates to add to mesh trust domain: ${caCerts.length}`);
      sink(caCerts.reduce(appendCertByte, ""));
      counters.proxyConfigs++;
    });
  }

  let connected: Connection | undefined;
  let nextId = 0;
  let closing = false;

  function handleStream(call: Downstream, kind: StreamKind): void {
    counters.downstreams++;
    const shapes = streamShapes(kind);
    const id = ++nextId;
    const label = `${kind === "sotw" ? "ADS" : "delta ADS"} stream ${id}`;
    let up: UpstreamStream | undefined;
    let stopped = false;
    let initialRequestsSent = false;

    const con: Connection = {
      id,
      stop(status) {
        if (stopped) return;
        stopped = true;
        if (connected === con) connected = undefined;
        const u = up;
        up = undefined;
        u?.removeAllListeners("data");
        u?.cancel();
        con.upstream?.close();
        if (call.cancelled || call.destroyed) return;
        if (!status || status.code === Status.OK) call.end();
        else call.emit("error", { code: status.code, details: status.details ?? "", metadata: status.metadata });
      },
    };
    // registerStream: only one connection at a time; the previous one is closed.
    if (connected) {
      log.warn(`XDS proxy: registered overlapping stream; closing previous (stream ${connected.id})`);
      counters.replaced++;
      connected.stop();
    }
    connected = con;
    if (closing) {
      con.stop({ code: Status.UNAVAILABLE, details: "XDS proxy is shutting down" });
      return;
    }

    const sendUp = (bytes: Buffer) => {
      counters.requests++;
      up?.write(bytes);
    };
    const sendOwn = (request: AgentRequest) => sendUp(shapes.encode(request));
    // handleUpstreamRequest: a health request before Envoy's first LDS request is dropped (it is kept
    // as the initial request, sent after that LDS request).
    con.send = (request) => {
      if (request.typeUrl === HEALTH_INFO_TYPE_URL && !initialRequestsSent) return;
      sendOwn(request);
    };

    // Envoy → istiod, with the agent's own first requests after Envoy's first LDS request.
    call.on("data", (request: EnvoyRequest) => {
      if (stopped) return;
      sendUp(request.bytes);
      if (!initialRequestsSent && request.typeUrl === LISTENER_TYPE) {
        if (handlers.has(NAME_TABLE_TYPE)) sendOwn({ typeUrl: NAME_TABLE_TYPE });
        if (handlers.has(PROXY_CONFIG_TYPE)) sendOwn({ typeUrl: PROXY_CONFIG_TYPE });
        initialRequestsSent = true;
        if (healthRequest) sendOwn(healthRequest);
      }
    });
    // Envoy ended its side, went away or broke: the upstream goes with it, and the call ends OK.
    call.on("end", () => con.stop());
    call.on("cancelled", () => con.stop());
    call.on("error", (error) => {
      if (stopped) return; // the status this proxy sent (see stop)
      log.debug(`XDS proxy: ${label}: Envoy's stream failed: ${error.message}`);
      con.stop();
    });

    const upstream = dialUpstream({
      discoveryAddress: options.discoveryAddress,
      rootCertPem,
      serverName: options.serverName,
      tokenPath: tokenPath === false ? undefined : tokenPath,
      clusterId: options.clusterId,
      dial,
      keepalive,
    });
    con.upstream = upstream;
    let stream: UpstreamStream;
    try {
      stream = upstream.open(kind);
    } catch (error) {
      log.warn(`XDS proxy: failed to connect to upstream ${options.discoveryAddress}: ${(error as Error).message}`);
      con.stop({ code: Status.UNAVAILABLE, details: (error as Error).message });
      return;
    }
    up = stream;
    log.info(`XDS proxy: ${label} connected to upstream XDS server ${options.discoveryAddress}`);

    // istiod → Envoy, as bytes; what Envoy has not taken yet is bounded in bytes, not only in messages.
    let pending = 0;
    let paused = false;
    const resumeWhenFlushed = () => {
      if (!paused || pending > PENDING_LIMIT || call.writableNeedDrain || stopped) return;
      paused = false;
      stream.resume();
    };
    const forward = (bytes: Buffer) => {
      const length = bytes.length;
      pending += length;
      const taken = call.write(bytes, () => {
        pending -= length;
        resumeWhenFlushed();
      });
      if ((taken && pending <= PENDING_LIMIT) || paused) return;
      paused = true;
      counters.paused++;
      stream.pause();
      if (!taken) call.once("drain", resumeWhenFlushed);
    };
    // A response that is not a DiscoveryResponse on the wire is an upstream error, as Recv's.
    const undecodable = (error: unknown) => {
      counters.malformed++;
      const details = `XDS proxy: response from istiod: ${(error as Error).message}`;
      log.warn(details);
      con.stop({ code: Status.INTERNAL, details });
    };

    // istiod → Envoy (or the agent's handlers).
    stream.on("data", (bytes: Buffer) => {
      if (stopped) return;
      counters.responses++;
      let response: ResponseEnvelope;
      try {
        response = shapes.response(bytes);
      } catch (error) {
        undecodable(error);
        return;
      }
      const typeUrl = response.typeUrl;
      const handler = handlers.get(typeUrl);
      if (handler) {
        let resource: AnyResource | undefined;
        try {
          resource = shapes.firstResource(bytes);
        } catch (error) {
          undecodable(error);
          return;
        }
        if (resource === undefined) return; // an empty response: nothing to do, no ACK
        let error: string | undefined;
        try {
          handler(resource);
        } catch (e) {
          error = (e as Error).message;
          counters.malformed++;
          counters.nacks++;
          log.warn(`XDS proxy: ${shortType(typeUrl)} from istiod rejected: ${error}`);
        }
        sendOwn(shapes.ack(response, error === undefined ? undefined : { code: INTERNAL, message: error }));
        return;
      }
      if (typeUrl === EXTENSION_CONFIG_TYPE_URL) noticeEcds();
      if (!isEnvoyType(typeUrl) && typeUrl !== WORKLOAD_TYPE) {
        counters.dropped++;
        log.warn(`XDS proxy: skipping forwarding type url ${typeUrl} to Envoy as it is not a valid Envoy type`);
        return;
      }
      forward(bytes);
    });
    // istiod ended the stream or went away: so does Envoy's stream, with istiod's status.
    stream.on("status", (s: StatusObject) => {
      if (stopped) return;
      counters.upstreamTerminations++;
      const line = `XDS proxy: ${label}: upstream terminated with status ${Status[s.code] ?? s.code}: ${s.details}`;
      if (s.code === Status.OK || s.code === Status.CANCELLED) log.debug(line);
      else log.warn(line);
      con.stop(s);
    });
    stream.on("error", () => {}); // reported through "status"
  }

  // istiogrpc.ServerOptions(istiokeepalive.DefaultOption()): features.MaxConcurrentStreams (100,000),
  // features.MaxRecvMsgSize (4 MiB), keepalive pings.
  const server = new Server({
    "grpc.max_concurrent_streams": 100_000,
    "grpc.max_receive_message_length": 4 << 20,
    "grpc.keepalive_time_ms": keepalive.timeMs,
    "grpc.keepalive_timeout_ms": keepalive.timeoutMs,
  });
  const ads = countingDecoders(adsService(), (method, error) => {
    counters.malformed++;
    log.warn(`XDS proxy: undecodable ${method} request from Envoy dropped: ${error.message}`);
  });
  server.addService(ads, {
    StreamAggregatedResources: (call: Downstream) => handleStream(call, "sotw"),
    DeltaAggregatedResources: (call: Downstream) => handleStream(call, "delta"),
  });
  await bindUnixSocket(server, socketPath);
  log.info(`XDS proxy listening on ${socketPath}, upstream ${options.discoveryAddress}`);

  const ready = () => connected?.upstream?.connected() ?? false;
  return {
    socketPath,
    ready,
    notReadyReason: () => (ready() ? undefined : `XDS proxy not connected to ${options.discoveryAddress}`),
    stats: () => ({ ...counters }),
    sendHealth(event) {
      healthRequest = event.healthy
        ? { typeUrl: HEALTH_INFO_TYPE_URL }
        : { typeUrl: HEALTH_INFO_TYPE_URL, errorDetail: { code: INTERNAL, message: event.message ?? "" } };
      connected?.send?.(healthRequest);
    },
    async close() {
      closing = true;
      connected?.stop({ code: Status.UNAVAILABLE, details: "XDS proxy is shutting down" });
      await shutdown(server);
    },
  };
}
