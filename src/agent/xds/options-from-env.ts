/**
 * The XDS proxy's settings as pilot-agent takes them: istiod's address from the proxy config's
 * `discoveryAddress`, `ISTIO_META_CLUSTER_ID` (default Kubernetes) as the ClusterID header, and the
 * name table asked for only when the DNS proxy runs (its `updateNameTable` is the sink).
 */
import type { NameTable } from "../dns/name-table.js";
import type { XdsProxyOptions } from "./proxy.js";

export function xdsProxyOptionsFromEnv(
  env: Record<string, string | undefined>,
  agent: { root?: string; discoveryAddress: string; onNameTable?: (table: NameTable) => void },
): XdsProxyOptions {
  return {
    root: agent.root,
    discoveryAddress: agent.discoveryAddress,
    clusterId: env.ISTIO_META_CLUSTER_ID || "Kubernetes",
    onNameTable: agent.onNameTable,
  };
}
