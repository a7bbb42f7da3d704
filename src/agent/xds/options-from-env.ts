/**
 * The XDS proxy's settings as pilot-agent takes them: istiod's address from the proxy config's
 * `discoveryAddress`, `ISTIO_META_CLUSTER_ID` (empty when unset, as Istio's clusterIDVar) as the
 * ClusterID header, the name table asked for only when the DNS proxy runs (its `updateNameTable` is
 * the sink), and the proxy config (PCDS) only with `PROXY_CONFIG_XDS_AGENT=true` and a trust-bundle
 * sink (Istio: `EnableDynamicProxyConfig && secretCache != nil`). Every environment read of the XDS
 * proxy is here.
 */
import { parseBool } from "../../go/strconv.js";
import type { NameTable } from "../dns/name-table.js";
import type { XdsProxyOptions } from "./proxy.js";

export function xdsProxyOptionsFromEnv(
  env: Record<string, string | undefined>,
  agent: {
    root?: string;
    discoveryAddress: string;
    onNameTable?: (table: NameTable) => void;
    /** The secret cache's trust bundle update (`UpdateConfigTrustBundle`), when there is a secret cache. */
    onTrustBundle?: (caCertificatesPem: string[]) => void;
  },
): XdsProxyOptions {
  const dynamicProxyConfig = parseBool(env.PROXY_CONFIG_XDS_AGENT ?? "") ?? false;
  return {
    root: agent.root,
    discoveryAddress: agent.discoveryAddress,
    clusterId: env.ISTIO_META_CLUSTER_ID ?? "",
    onNameTable: agent.onNameTable,
    onProxyConfig: dynamicProxyConfig ? agent.onTrustBundle : undefined,
  };
}
