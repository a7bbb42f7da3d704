/**
 * The XDS proxy's slice of the agent's options, as pilot-agent takes them: istiod's address from the
 * proxy config's `discoveryAddress`, the cluster ID (`ISTIO_META_CLUSTER_ID`, read once by the agent;
 * default Kubernetes) as the ClusterID header, and the name table asked for only when the DNS proxy
 * runs (its `updateNameTable` is the sink).
 */
import type { NameTable } from "../dns/name-table.js";
import type { XdsProxyOptions } from "../xds/proxy.js";

export function xdsProxyOptions(agent: {
  root?: string;
  discoveryAddress: string;
  clusterId?: string;
  onNameTable?: (table: NameTable) => void;
  /** features.WasmRemoteLoadConversion (ISTIO_AGENT_ENABLE_WASM_REMOTE_LOAD_CONVERSION, default true). */
  wasmRemoteLoadConversion?: boolean;
}): XdsProxyOptions {
  return {
    root: agent.root,
    discoveryAddress: agent.discoveryAddress,
    clusterId: agent.clusterId || "Kubernetes",
    onNameTable: agent.onNameTable,
    wasmRemoteLoadConversion: agent.wasmRemoteLoadConversion,
  };
}
