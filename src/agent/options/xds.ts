/**
 * The XDS proxy's slice of the agent's options, as pilot-agent takes them: istiod's address from the
 * proxy config's `discoveryAddress`, the cluster ID (`ISTIO_META_CLUSTER_ID`, read once by the agent;
 * empty when unset, as Istio's clusterIDVar) as the ClusterID header, and `PROXY_CONFIG_XDS_AGENT`
 * (Istio's EnableDynamicProxyConfig: PCDS is asked for when this is on and the composition gives a
 * trust-bundle sink), and istiokeepalive's `GRPC_KEEPALIVE_INTERVAL`/`GRPC_KEEPALIVE_TIMEOUT`. The name
 * table is asked for only when the DNS proxy runs (the composition gives its `updateNameTable` as the
 * sink). The dial is built as XdsProxy builds it from the security options (./sds.ts): TLS with
 * FindRootCAForXDS's root (XDS_ROOT_CA, incl. SYSTEM), ISTIOD_SAN as the server name, PROV_CERT or
 * the file-mounted client certificate, plaintext when the control plane auth policy is NONE;
 * XDS_HEADER_* on every stream and the token from CREDENTIAL_FETCHER_TYPE's fetcher — resolved when
 * the proxy starts (a missing root is a start-up error, as in initXdsProxy).
 */
import type { NameTable } from "../dns/name-table.js";
import { credentialFetcher } from "../sds/credential-fetcher.js";
import { setupSecurityOptions, xdsTls } from "../sds/root-ca.js";
import type { XdsProxyOptions } from "../xds/proxy.js";
import type { EnvVars } from "./env.js";
import { type SecurityContext, securityOptionsFromEnv } from "./sds.js";

export function xdsProxyOptions(
  env: EnvVars,
  agent: SecurityContext & {
    dynamicProxyConfig?: boolean;
    keepalive?: { timeMs: number; timeoutMs: number };
    onNameTable?: (table: NameTable) => void;
    /** ProxyConfig.controlPlaneAuthPolicy and proxyMetadata. */
    controlPlaneAuthPolicy?: string | number;
    proxyMetadata?: Record<string, string>;
    /** features.WasmRemoteLoadConversion (ISTIO_AGENT_ENABLE_WASM_REMOTE_LOAD_CONVERSION, default true). */
    wasmRemoteLoadConversion?: boolean;
  },
): XdsProxyOptions {
  const security = securityOptionsFromEnv(env, agent);
  return {
    root: agent.root,
    discoveryAddress: agent.discoveryAddress,
    clusterId: security.clusterId,
    dial: () => {
      const resolved = setupSecurityOptions(security);
      return {
        tls: xdsTls(resolved, agent.controlPlaneAuthPolicy, agent.proxyMetadata),
        headers: resolved.xdsHeaders,
        token: credentialFetcher(resolved.credentialFetcherType, resolved.jwtPath)?.token,
      };
    },
    dynamicProxyConfig: agent.dynamicProxyConfig ?? false,
    keepalive: agent.keepalive,
    onNameTable: agent.onNameTable,
    wasmRemoteLoadConversion: agent.wasmRemoteLoadConversion,
  };
}
