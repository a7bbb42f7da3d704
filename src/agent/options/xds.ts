/**
 * The XDS proxy's slice of the agent's options, as pilot-agent takes them: istiod's address from the
 * proxy config's `discoveryAddress`, the cluster ID (`ISTIO_META_CLUSTER_ID`, read once by the agent;
 * empty when unset, as Istio's clusterIDVar) as the ClusterID header, and `PROXY_CONFIG_XDS_AGENT`
 * (Istio's EnableDynamicProxyConfig: PCDS is asked for when this is on and the composition gives a
 * trust-bundle sink), and istiokeepalive's `GRPC_KEEPALIVE_INTERVAL`/`GRPC_KEEPALIVE_TIMEOUT`. The name
 * table is asked for only when the DNS proxy runs (the composition gives its `updateNameTable` as the
 * sink).
 */
import type { NameTable } from "../dns/name-table.js";
import type { XdsProxyOptions } from "../xds/proxy.js";

export function xdsProxyOptions(agent: {
  root?: string;
  discoveryAddress: string;
  clusterId?: string;
  dynamicProxyConfig?: boolean;
  keepalive?: { timeMs: number; timeoutMs: number };
  onNameTable?: (table: NameTable) => void;
}): XdsProxyOptions {
  return {
    root: agent.root,
    discoveryAddress: agent.discoveryAddress,
    clusterId: agent.clusterId ?? "",
    dynamicProxyConfig: agent.dynamicProxyConfig ?? false,
    keepalive: agent.keepalive,
    onNameTable: agent.onNameTable,
  };
}
