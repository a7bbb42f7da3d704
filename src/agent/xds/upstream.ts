/**
 * The XDS proxy's connections to istiod (`discoveryAddress`). As pilot-agent's `buildUpstreamConn`,
 * each Envoy stream gets a connection of its own (a new connection may reach another istiod, which
 * must not see the pending messages of the old one), closed when that stream ends: TLS verified
 * against istiod's root certificate (or plaintext when no root is given, as for istiod's 15010), and
 * on the stream the pod's token as `authorization: Bearer …` (read anew each time, the kubelet
 * rotates it) and the `ClusterID` header. Messages go both ways as the bytes they are on the wire (the
 * proxy reads what it needs of them itself, ./stream-state.ts).
 */
import { Client, type ClientDuplexStream, connectivityState } from "@grpc/grpc-js";
import { callMetadata, type IstiodTls, istiodChannel, istiodDial, istiodMetadata } from "../istiod-channel.js";
import { ADS_SERVICE_PATH } from "./types.js";

export interface UpstreamOptions {
  discoveryAddress: string;
  /** PEM roots istiod's certificate must chain to; absent: plaintext. */
  rootCertPem?: string | Buffer;
  serverName?: string;
  /** Token file; absent: no bearer token (plaintext istiod on 15010). */
  tokenPath?: string;
  clusterId: string;
  /**
   * pilot-agent's dial (XdsProxy.buildUpstreamClientDialOpts): TLS per XDS_ROOT_CA / ISTIOD_SAN /
   * PROV_CERT, XDS_HEADER_* and the credential fetcher's token. When given it replaces
   * rootCertPem/serverName/tokenPath. Its files are read at each dial, so a replaced root is used by
   * the next stream (Agent.startFileWatcher → initIstiodDialOptions).
   */
  dial?: { tls: IstiodTls | undefined; headers: Record<string, string>; token?: () => string };
  /** istiokeepalive.DefaultOption's Time and Timeout (default 30 s and 10 s). */
  keepalive?: { timeMs: number; timeoutMs: number };
}

export type UpstreamStream = ClientDuplexStream<Buffer, Buffer>;

const bytes = (b: Buffer) => b;

/** One connection to istiod, for one Envoy stream. */
export interface UpstreamConnection {
  /** Opens the ADS stream (throws a one-line error when the token cannot be read). */
  open(kind: "sotw" | "delta"): UpstreamStream;
  /** The connection is up. */
  connected(): boolean;
  close(): void;
}

/** Istio's `defaultClientMaxReceiveMessageSize` (math.MaxInt32); grpc-js takes -1 for no limit. */
const UNLIMITED = -1;

export function dialUpstream(options: UpstreamOptions): UpstreamConnection {
  const channel = options.dial
    ? istiodDial(options.dial.tls)
    : istiodChannel({ ...options, address: options.discoveryAddress });
  const client = new Client(options.discoveryAddress, channel.credentials, {
    ...channel.options,
    // A connection of this stream's own, not one shared through grpc-js's global subchannel pool.
    "grpc.use_local_subchannel_pool": 1,
    "grpc.max_receive_message_length": UNLIMITED,
    "grpc.max_send_message_length": UNLIMITED,
    // istiogrpc.ClientOptions: keepalive pings, 1 MiB windows.
    "grpc.keepalive_time_ms": options.keepalive?.timeMs ?? 30_000,
    "grpc.keepalive_timeout_ms": options.keepalive?.timeoutMs ?? 10_000,
    "grpc-node.flow_control_window": 1 << 20,
  });
  return {
    open(kind) {
      const metadata = options.dial
        ? callMetadata(options.clusterId, options.dial.headers, options.dial.token)
        : istiodMetadata("XDS proxy", options.tokenPath, options.clusterId);
      const method = kind === "sotw" ? "StreamAggregatedResources" : "DeltaAggregatedResources";
      const stream = client.makeBidiStreamRequest(`${ADS_SERVICE_PATH}/${method}`, bytes, bytes, metadata);
      // grpc-js makes its streams in object mode with Node's default read-ahead of 16 messages and
      // takes no option for it: while the proxy is paused that would be 16 pushes held (64 MiB of
      // 4 MiB pushes). One message read ahead keeps what is held bounded by the push, not the burst.
      (stream as unknown as { _readableState: { highWaterMark: number } })._readableState.highWaterMark = 1;
      return stream;
    },
    connected: () => client.getChannel().getConnectivityState(false) === connectivityState.READY,
    close: () => client.close(),
  };
}
