/**
 * The XDS proxy's one connection to istiod (`discoveryAddress`): a gRPC channel with TLS verified
 * against istiod's root certificate (or plaintext when no root is given, as for istiod's 15010), and
 * per stream the pod's token as `authorization: Bearer …` (read anew each time, the kubelet rotates
 * it) and the `ClusterID` header, as pilot-agent's proxy dials istiod.
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { type Channel, type ClientDuplexStream, connectivityState, type Metadata } from "@grpc/grpc-js";
import { callMetadata, type IstiodTls, istiodChannel, istiodDial, istiodMetadata } from "../istiod-channel.js";
import { serviceClient } from "../protos.js";

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
   * rootCertPem/serverName/tokenPath, and the root file is watched: a change rebuilds the channel
   * for the next streams (Agent.startFileWatcher → initIstiodDialOptions).
   */
  dial?: { tls: IstiodTls | undefined; headers: Record<string, string>; token?: () => string };
  log?: (level: "debug" | "info" | "warn", message: string) => void;
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
  const StubClass = serviceClient("envoy.service.discovery.v3.AggregatedDiscoveryService");
  const max = options.maxMessageBytes ?? 400 << 20;
  type Stub = Record<string, (metadata: Metadata) => Duplex> & { close(): void; getChannel(): Channel };
  const build = (): Stub => {
    const channel = options.dial
      ? istiodDial(options.dial.tls, (m) => options.log?.("warn", m))
      : istiodChannel({ ...options, address: options.discoveryAddress });
    return new StubClass(options.discoveryAddress, channel.credentials, {
      ...channel.options,
      "grpc.max_receive_message_length": max,
      "grpc.max_send_message_length": max,
      "grpc.keepalive_time_ms": 30_000,
    }) as unknown as Stub;
  };
  let stub = build();
  let watcher: FSWatcher | undefined;
  const rootFile = options.dial?.tls?.rootCertPath;
  if (rootFile) {
    try {
      watcher = watch(dirname(rootFile), { persistent: false }, (_event, name) => {
        const changed = name?.toString();
        if (changed && changed !== basename(rootFile) && changed !== "..data") return;
        try {
          stub = build(); // streams already open keep their channel; new ones use the new root
          options.log?.("info", `root CA file ${rootFile} changed: istiod dial options rebuilt`);
        } catch (error) {
          options.log?.("warn", `Failed to init xds proxy dial options: ${(error as Error).message}`);
        }
      });
      watcher.on("error", () => watcher?.close());
    } catch (error) {
      options.log?.("warn", `Failed to add file watcher ${rootFile}: ${(error as Error).message}`);
    }
  }

  const metadata = () =>
    options.dial
      ? callMetadata(options.clusterId, options.dial.headers, options.dial.token)
      : istiodMetadata("XDS proxy", options.tokenPath, options.clusterId);
  const open = (method: string) => (stub[method] as (m: Metadata) => Duplex).call(stub, metadata());
  return {
    openSotw: () => open("StreamAggregatedResources"),
    openDelta: () => open("DeltaAggregatedResources"),
    connected: () => stub.getChannel().getConnectivityState(true) === connectivityState.READY,
    close: () => {
      watcher?.close();
      stub.close();
    },
  };
}
