/**
 * The XDS proxy's one connection to istiod (`discoveryAddress`): a gRPC channel with TLS verified
 * against istiod's root certificate (or plaintext when no root is given, as for istiod's 15010), and
 * per stream the pod's token as `authorization: Bearer …` (read anew each time, the kubelet rotates
 * it) and the `ClusterID` header, as pilot-agent's proxy dials istiod.
 */
import { type Channel, type ClientDuplexStream, connectivityState, type Metadata } from "@grpc/grpc-js";
import { istiodChannel, istiodMetadata } from "../istiod-channel.js";
import { serviceClient } from "../protos.js";

export interface UpstreamOptions {
  discoveryAddress: string;
  /** PEM roots istiod's certificate must chain to; absent: plaintext. */
  rootCertPem?: string | Buffer;
  serverName?: string;
  /** Token file; absent: no bearer token (plaintext istiod on 15010). */
  tokenPath?: string;
  clusterId: string;
  /** Largest message accepted from istiod (default 4 MiB × 100, as Envoy's ADS client allows large pushes). */
  maxMessageBytes?: number;
}

type Duplex = ClientDuplexStream<unknown, Record<string, unknown>>;

export interface Upstream {
  openSotw(): Duplex;
  openDelta(): Duplex;
  /** The channel is connected (readiness). */
  connected(): boolean;
  close(): void;
}

export function connectUpstream(options: UpstreamOptions): Upstream {
  const Stub = serviceClient("envoy.service.discovery.v3.AggregatedDiscoveryService");
  const channel = istiodChannel({ ...options, address: options.discoveryAddress });
  const max = options.maxMessageBytes ?? 400 << 20;
  const stub = new Stub(options.discoveryAddress, channel.credentials, {
    ...channel.options,
    "grpc.max_receive_message_length": max,
    "grpc.max_send_message_length": max,
    "grpc.keepalive_time_ms": 30_000,
  }) as unknown as Record<string, (metadata: Metadata) => Duplex> & { close(): void; getChannel(): Channel };

  const metadata = () => istiodMetadata("XDS proxy", options.tokenPath, options.clusterId);
  const open = (method: string) => (stub[method] as (m: Metadata) => Duplex).call(stub, metadata());
  return {
    openSotw: () => open("StreamAggregatedResources"),
    openDelta: () => open("DeltaAggregatedResources"),
    connected: () => stub.getChannel().getConnectivityState(true) === connectivityState.READY,
    close: () => stub.close(),
  };
}
