/**
 * The XDS proxy's settings as pilot-agent takes them: istiod's address from the proxy config's
 * `discoveryAddress`; the dial as XdsProxy builds it from the agent's security options (read in
 * sds/options-from-env.ts): TLS with FindRootCAForXDS's root (XDS_ROOT_CA, incl. SYSTEM), ISTIOD_SAN
 * as the server name, PROV_CERT or the file-mounted client certificate, plaintext when the control
 * plane auth policy is NONE; XDS_HEADER_* and ISTIO_META_CLUSTER_ID (empty when unset) on every
 * stream, the token from CREDENTIAL_FETCHER_TYPE's fetcher. The name table is asked for only when
 * the DNS proxy runs (its `updateNameTable` is the sink).
 */
import type { NameTable } from "../dns/name-table.js";
import { credentialFetcher } from "../sds/credential-fetcher.js";
import { securityOptionsFromEnv } from "../sds/options-from-env.js";
import { setupSecurityOptions, xdsTls } from "../sds/root-ca.js";
import type { XdsProxyOptions } from "./proxy.js";

export function xdsProxyOptionsFromEnv(
  env: Record<string, string | undefined>,
  agent: {
    root?: string;
    discoveryAddress: string;
    onNameTable?: (table: NameTable) => void;
    /** ProxyConfig.controlPlaneAuthPolicy and proxyMetadata. */
    controlPlaneAuthPolicy?: string | number;
    proxyMetadata?: Record<string, string>;
  },
): XdsProxyOptions {
  const security = setupSecurityOptions(securityOptionsFromEnv(env, agent));
  const fetcher = credentialFetcher(security.credentialFetcherType, security.jwtPath);
  return {
    root: agent.root,
    discoveryAddress: agent.discoveryAddress,
    clusterId: security.clusterId,
    dial: {
      tls: xdsTls(security, agent.controlPlaneAuthPolicy, agent.proxyMetadata),
      headers: security.xdsHeaders,
      token: fetcher?.token,
    },
    onNameTable: agent.onNameTable,
  };
}
