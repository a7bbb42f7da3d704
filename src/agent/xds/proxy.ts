/**
 * The agent's XDS proxy (pilot-agent's `pkg/istio-agent/xds_proxy.go`): Envoy's ADS
 * (`StreamAggregatedResources` and `DeltaAggregatedResources`) served on the owner-only Unix socket
 * `<root>/etc/istio/proxy/XDS`, each Envoy stream bridged to a stream on one gRPC connection to
 * istiod. Requests and responses are forwarded in order; a slow Envoy pauses reading from istiod
 * (HTTP/2 flow control does the rest: nothing is buffered without bound). When istiod goes away the
 * proxy reconnects with exponential backoff and re-sends what Envoy had asked for, keeping Envoy's
 * stream open. The name table (NDS) is taken by the proxy itself and handed to `onNameTable` (the DNS
 * proxy's `updateNameTable`), never to Envoy.
 *
 * ```ts
 * const xds = await startXdsProxy({ root: "/", discoveryAddress: "istiod.istio-system.svc:15012",
 *   clusterId: "Kubernetes", onNameTable: (t) => dns.updateNameTable(t) });
 * xds.ready();   // connected to istiod
 * await xds.close();
 * ```
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ClientDuplexStream, Server, type ServerDuplexStream } from "@grpc/grpc-js";
import type { NameTable } from "../dns/name-table.js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../istiod-channel.js";
import { type AgentLog, SILENT_LOG } from "../process/log.js";
import { NAME_TABLE_TYPE_URL, serviceClient } from "../protos.js";
import { bindUnixSocket, countingDecoders, shutdown } from "../uds-grpc.js";
import { decodeNameTable } from "./name-table-decode.js";
import { deltaState, type Message, type StreamState, sotwState } from "./stream-state.js";
import { connectUpstream, type Upstream } from "./upstream.js";

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
  /** The name table sink (DNS capture on); when absent, NDS is not requested. */
  onNameTable?: (table: NameTable) => void;
  retryInitialMs?: number;
  retryMaxMs?: number;
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

export interface XdsStats {
  downstreams: number;
  requests: number;
  responses: number;
  reconnects: number;
  nameTables: number;
  /** Messages that could not be used (undecodable from Envoy or istiod, bad name tables). */
  malformed: number;
  /** Times a slow Envoy made the proxy stop reading from istiod. */
  paused: number;
}

export interface XdsProxy {
  socketPath: string;
  /** Readiness: the connection to istiod is up. */
  ready(): boolean;
  notReadyReason(): string | undefined;
  stats(): XdsStats;
  /**
   * The workload's health for istiod (xds_proxy.go's health callback): a HealthInformation request,
   * with an Internal error detail when unhealthy, sent now on every open upstream stream and first
   * on each new one (sendHealthCheckRequest's initialHealthRequest).
   */
  sendHealth(event: { healthy: boolean; message?: string }): void;
  close(): Promise<void>;
}

/** model.HealthInfoType. */
export const HEALTH_INFO_TYPE_URL = "type.googleapis.com/istio.v1.HealthInformation";
/** codes.Internal. */
const GRPC_INTERNAL = 13;

type Downstream = ServerDuplexStream<Message, Message>;
type UpstreamStream = ClientDuplexStream<unknown, Message>;

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
  const rootCertPath = options.rootCertPath ?? join(root, CA_ROOT_CERT);
  const tokenPath = options.tokenPath ?? join(root, TOKEN_PATH);
  const upstream: Upstream = connectUpstream({
    discoveryAddress: options.discoveryAddress,
    rootCertPem: rootCertPath === false ? undefined : readFileSync(rootCertPath),
    serverName: options.serverName,
    tokenPath: tokenPath === false ? undefined : tokenPath,
    clusterId: options.clusterId,
  });
  const counters: XdsStats = {
    downstreams: 0,
    requests: 0,
    responses: 0,
    reconnects: 0,
    nameTables: 0,
    malformed: 0,
    paused: 0,
  };
  const open = new Set<() => void>();
  let closing = false;
  let healthRequest: Message | undefined;
  const upstreams = new Set<UpstreamStream>();

  function takeNameTables(state: StreamState, response: Message, up: UpstreamStream): void {
    for (const payload of state.ndsPayloads(response)) {
      try {
        options.onNameTable?.(decodeNameTable(payload));
        counters.nameTables++;
      } catch (error) {
        counters.malformed++;
        log.warn(`XDS proxy: ${(error as Error).message}`);
      }
    }
    up.write(state.ndsAck(response));
  }

  function bridge(call: Downstream, state: StreamState, openUp: () => UpstreamStream, kind: string): void {
    counters.downstreams++;
    let up: UpstreamStream | undefined;
    let attempts = 0;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    let askedNds = false;

    const reconnectLater = (why: string) => {
      if (done || closing) return;
      const delay = Math.min(options.retryMaxMs ?? 30_000, (options.retryInitialMs ?? 100) * 2 ** attempts++);
      log.warn(`XDS proxy: ${kind} upstream to ${options.discoveryAddress} lost (${why}); reconnecting in ${delay} ms`);
      clearTimeout(timer);
      timer = setTimeout(() => {
        counters.reconnects++;
        connect();
      }, delay);
    };

    const connect = () => {
      if (done || closing) return;
      let stream: UpstreamStream;
      try {
        stream = openUp();
      } catch (error) {
        reconnectLater((error as Error).message);
        return;
      }
      up = stream;
      upstreams.add(stream);
      for (const request of state.replay()) stream.write(request);
      if (healthRequest) stream.write(healthRequest);
      stream.on("data", (response: Message) => {
        attempts = 0;
        counters.responses++;
        if (response.typeUrl === NAME_TABLE_TYPE_URL && options.onNameTable) {
          takeNameTables(state, response, stream);
          return;
        }
        if (response.typeUrl === EXTENSION_CONFIG_TYPE_URL) noticeEcds();
        state.sawResponse(response);
        if (!call.write(response)) {
          counters.paused++;
          stream.pause();
          call.once("drain", () => stream.resume());
        }
      });
      const lost = (why: string) => {
        upstreams.delete(stream);
        if (up !== stream) return;
        up = undefined;
        reconnectLater(why);
      };
      stream.on("error", (error: Error & { code?: number; details?: string }) => {
        if (/deserializ|parse/i.test(error.details ?? error.message)) counters.malformed++;
        lost(error.details || error.message);
      });
      stream.on("end", () => lost("stream ended"));
    };

    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      open.delete(finish);
      const u = up;
      up = undefined;
      if (u) upstreams.delete(u);
      u?.cancel();
    };
    open.add(finish);

    call.on("data", (request: Message) => {
      counters.requests++;
      state.remember(request);
      up?.write(request);
      if (options.onNameTable && !askedNds) {
        askedNds = true;
        const nds = state.ndsRequest();
        state.remember(nds);
        up?.write(nds);
      }
    });
    call.on("end", () => {
      finish();
      call.end();
    });
    call.on("cancelled", finish);
    call.on("error", (error) => {
      log.warn(`XDS proxy: ${kind} downstream error: ${error.message}`);
      finish();
    });
    connect();
  }

  const server = new Server({ "grpc.max_receive_message_length": 4 << 20 });
  const ads = countingDecoders(
    serviceClient("envoy.service.discovery.v3.AggregatedDiscoveryService").service,
    (method, error) => {
      counters.malformed++;
      log.warn(`XDS proxy: undecodable ${method} request from Envoy dropped: ${error.message}`);
    },
  );
  server.addService(ads, {
    StreamAggregatedResources: (call: Downstream) =>
      bridge(call, sotwState(), () => upstream.openSotw() as UpstreamStream, "ADS"),
    DeltaAggregatedResources: (call: Downstream) =>
      bridge(call, deltaState(), () => upstream.openDelta() as UpstreamStream, "delta ADS"),
  });
  await bindUnixSocket(server, socketPath);
  log.info(`XDS proxy listening on ${socketPath}, upstream ${options.discoveryAddress}`);

  return {
    socketPath,
    ready: () => upstream.connected(),
    notReadyReason: () => (upstream.connected() ? undefined : `XDS proxy not connected to ${options.discoveryAddress}`),
    stats: () => ({ ...counters }),
    sendHealth(event) {
      healthRequest = event.healthy
        ? { typeUrl: HEALTH_INFO_TYPE_URL }
        : { typeUrl: HEALTH_INFO_TYPE_URL, errorDetail: { code: GRPC_INTERNAL, message: event.message ?? "" } };
      for (const stream of upstreams) stream.write(healthRequest);
    },
    async close() {
      closing = true;
      for (const finish of [...open]) finish();
      await shutdown(server);
      upstream.close();
    },
  };
}
