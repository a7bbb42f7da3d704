/**
 * The security slice of the agent's options — every variable pilot-agent reads for the SDS server,
 * the secret cache and the CA/istiod connections (Istio's pilot/cmd/pilot-agent/options/
 * {options.go,security.go,agent.go}), through the agent's one env policy (./env.ts: a value that does
 * not parse is a warning and the default).
 *
 * | variable | default | field |
 * | --- | --- | --- |
 * | CA_ADDR | discoveryAddress (then ISTIOD_SAN is the CA's SAN too) | caEndpoint, caEndpointSan |
 * | CA_PROVIDER | Citadel (GoogleCA for a googleapis.com address) | caProviderName |
 * | PILOT_CERT_PROVIDER | istiod | pilotCertProvider |
 * | OUTPUT_CERTS | "" | outputKeyCertToDir |
 * | PROV_CERT | "" | provCert |
 * | ISTIO_META_CLUSTER_ID | "" (read once by the agent) | clusterId |
 * | FILE_MOUNTED_CERTS | false | fileMountedCerts |
 * | POD_NAMESPACE (read once by the agent), SERVICE_ACCOUNT | "" | workloadNamespace, serviceAccount |
 * | TRUST_DOMAIN | cluster.local | trustDomain |
 * | WORKLOAD_RSA_KEY_SIZE | 2048 | workloadRsaKeySize |
 * | PKCS8_KEY | false | pkcs8Keys |
 * | ECC_SIGNATURE_ALGORITHM, ECC_CURVE | "", P256 | eccSigAlg, eccCurve |
 * | SECRET_TTL | 24h | secretTtlSeconds |
 * | FILE_DEBOUNCE_DURATION | 100ms | fileDebounceMs |
 * | SECRET_GRACE_PERIOD_RATIO, …_JITTER | 0.5, 0.01 | graceRatio, graceRatioJitter |
 * | ISTIO_META_CERT_SIGNER | "" | certSigner |
 * | CA_HEADER_* / XDS_HEADER_* | — | caHeaders / xdsHeaders |
 * | CREDENTIAL_FETCHER_TYPE | JWT | credentialFetcherType |
 * | CA_ROOT_CA / XDS_ROOT_CA | "" (SYSTEM = system roots) | caRootCerts / xdsRootCerts |
 * | ISTIOD_SAN | "" | istiodSan |
 * | KUBERNETES_SERVICE_HOST | — | onKubernetes (OUTPUT_CERTS file mode) |
 * | PILOT_ENABLE_CA_CRL | true | enableCaCrl |
 * | SSL_CERT_FILE | — | systemRootsPath (Go's system pool) |
 * | WORKLOAD_IDENTITY_SOCKET_FILE | socket | workloadIdentitySocketFile |
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { goSystemRootsPath, TOKEN_PATH } from "../istiod-channel.js";
import { OS_ROOT_FILES, type SecurityOptions } from "../sds/security-options.js";
import type { SdsServerOptions } from "../sds/server.js";
import { type EnvVars, envReader } from "./env.js";

export interface SecurityContext {
  /** File-system root Istio's relative paths are under (default `/`). */
  root?: string;
  discoveryAddress: string;
  /** POD_NAMESPACE and ISTIO_META_CLUSTER_ID, as the agent read them (else read here). */
  namespace?: string;
  clusterId?: string;
  warn?: (line: string) => void;
  /** Which files exist (tests pin the OS bundle lookup). */
  exists?: (path: string) => boolean;
}

/** `PREFIX_NAME=value` → `{ NAME: value }` (extractCAHeadersFromEnv / extractXDSHeadersFromEnv). */
function prefixed(env: EnvVars, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (k.startsWith(prefix) && v !== undefined) out[k.slice(prefix.length)] = v;
  return out;
}

export function securityOptionsFromEnv(env: EnvVars, agent: SecurityContext): SecurityOptions {
  const root = agent.root ?? "/";
  const read = envReader(env, agent.warn);
  const exists = agent.exists ?? existsSync;
  const caAddr = read.string("CA_ADDR");
  return {
    root,
    // If not set explicitly, default to the discovery address (and then ISTIOD_SAN names the CA too).
    caEndpoint: caAddr || agent.discoveryAddress,
    caEndpointSan: caAddr ? "" : read.string("ISTIOD_SAN"),
    caProviderName: read.string("CA_PROVIDER", "Citadel"),
    pilotCertProvider: read.string("PILOT_CERT_PROVIDER", "istiod"),
    outputKeyCertToDir: read.string("OUTPUT_CERTS"),
    provCert: read.string("PROV_CERT"),
    clusterId: agent.clusterId ?? read.string("ISTIO_META_CLUSTER_ID"),
    fileMountedCerts: read.bool("FILE_MOUNTED_CERTS", false),
    workloadNamespace: agent.namespace ?? read.string("POD_NAMESPACE"),
    serviceAccount: read.string("SERVICE_ACCOUNT"),
    trustDomain: read.string("TRUST_DOMAIN", "cluster.local"),
    workloadRsaKeySize: read.int("WORKLOAD_RSA_KEY_SIZE", 2048),
    pkcs8Keys: read.bool("PKCS8_KEY", false),
    eccSigAlg: read.string("ECC_SIGNATURE_ALGORITHM"),
    eccCurve: read.string("ECC_CURVE", "P256"),
    secretTtlSeconds: Number(read.duration("SECRET_TTL", 86_400_000_000_000n)) / 1e9,
    fileDebounceMs: Number(read.duration("FILE_DEBOUNCE_DURATION", 100_000_000n)) / 1e6,
    graceRatio: read.float("SECRET_GRACE_PERIOD_RATIO", 0.5),
    graceRatioJitter: read.float("SECRET_GRACE_PERIOD_RATIO_JITTER", 0.01),
    certSigner: read.string("ISTIO_META_CERT_SIGNER"),
    caHeaders: prefixed(env, "CA_HEADER_"),
    xdsHeaders: prefixed(env, "XDS_HEADER_"),
    credentialFetcherType: read.string("CREDENTIAL_FETCHER_TYPE", "JWT"),
    // JWT_POLICY: every branch uses the third-party token path.
    jwtPath: join(root, TOKEN_PATH),
    caRootCerts: read.string("CA_ROOT_CA"),
    xdsRootCerts: read.string("XDS_ROOT_CA"),
    istiodSan: read.string("ISTIOD_SAN"),
    onKubernetes: read.string("KUBERNETES_SERVICE_HOST") !== "",
    enableCaCrl: read.bool("PILOT_ENABLE_CA_CRL", true),
    caRootPath: OS_ROOT_FILES.find(exists) ?? "",
    systemRootsPath: goSystemRootsPath(read.lookup("SSL_CERT_FILE")),
    certChainFilePath: join(root, "etc/certs/cert-chain.pem"),
    keyFilePath: join(root, "etc/certs/key.pem"),
    rootCertFilePath: join(root, "etc/certs/root-cert.pem"),
    discoveryAddress: agent.discoveryAddress,
    workloadIdentitySocketFile: read.string("WORKLOAD_IDENTITY_SOCKET_FILE", "socket"),
  };
}

/** The SDS server's slice: the security options, and DISABLE_ENVOY (no socket, certificates kept fresh). */
export function sdsOptionsFromEnv(env: EnvVars, agent: SecurityContext & { proxyless?: boolean }): SdsServerOptions {
  return { security: securityOptionsFromEnv(env, agent), proxyless: agent.proxyless };
}
