/**
 * The agent's security options from its environment — every variable pilot-agent reads for the SDS
 * server, the secret cache and the CA/istiod connections, in one place (Istio's
 * pilot/cmd/pilot-agent/options/{options.go,security.go,agent.go}, pkg/env's parsing: a value that
 * does not parse gives the default, as Istio's env package does, and a set-but-empty number too).
 *
 * | variable | default | field |
 * | --- | --- | --- |
 * | CA_ADDR | discoveryAddress (then ISTIOD_SAN is the CA's SAN too) | caEndpoint, caEndpointSan |
 * | CA_PROVIDER | Citadel (GoogleCA for a googleapis.com address) | caProviderName |
 * | PILOT_CERT_PROVIDER | istiod | pilotCertProvider |
 * | OUTPUT_CERTS | "" | outputKeyCertToDir |
 * | PROV_CERT | "" | provCert |
 * | ISTIO_META_CLUSTER_ID | "" | clusterId |
 * | FILE_MOUNTED_CERTS | false | fileMountedCerts |
 * | POD_NAMESPACE, SERVICE_ACCOUNT | "" | workloadNamespace, serviceAccount |
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
import { atoi, parseBool, parseFloat64 } from "../../go/strconv.js";
import { parseDuration } from "../../go/time/duration.js";
import { GO_SYSTEM_ROOT_FILES, goSystemRootsPath } from "../istiod-channel.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface SecurityOptions {
  /** File-system root Istio's relative paths (`./etc/certs`, `./var/run/secrets/…`) are under. */
  root: string;
  caEndpoint: string;
  caEndpointSan: string;
  caProviderName: string;
  pilotCertProvider: string;
  outputKeyCertToDir: string;
  provCert: string;
  clusterId: string;
  fileMountedCerts: boolean;
  workloadNamespace: string;
  serviceAccount: string;
  trustDomain: string;
  workloadRsaKeySize: number;
  pkcs8Keys: boolean;
  eccSigAlg: string;
  eccCurve: string;
  secretTtlSeconds: number;
  fileDebounceMs: number;
  graceRatio: number;
  graceRatioJitter: number;
  certSigner: string;
  caHeaders: Record<string, string>;
  xdsHeaders: Record<string, string>;
  credentialFetcherType: string;
  /** The token file (JWT_POLICY's every branch uses the third-party token path). */
  jwtPath: string;
  caRootCerts: string;
  xdsRootCerts: string;
  istiodSan: string;
  onKubernetes: boolean;
  enableCaCrl: boolean;
  /** The OS CA bundle (`file-root:system`; pkg/security GetOSRootFilePath), "" when none. */
  caRootPath: string;
  /** Go's system root pool file, for CA_ROOT_CA / XDS_ROOT_CA = SYSTEM. */
  systemRootsPath: string | undefined;
  certChainFilePath: string;
  keyFilePath: string;
  rootCertFilePath: string;
  discoveryAddress: string;
  /** WORKLOAD_IDENTITY_SOCKET_FILE: the SDS socket's file name under workload-spiffe-uds. */
  workloadIdentitySocketFile: string;
}

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined ? fallback : v;
}

function int(env: Env, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined) return fallback;
  const r = atoi(v);
  return r.err ? fallback : Number(r.value);
}

function float(env: Env, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined) return fallback;
  const r = parseFloat64(v);
  return r.err ? fallback : r.value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined) return fallback;
  return parseBool(v) ?? fallback;
}

function durationMs(env: Env, name: string, fallbackMs: number): number {
  const v = env[name];
  if (v === undefined) return fallbackMs;
  try {
    return Number(parseDuration(v)) / 1e6;
  } catch {
    return fallbackMs;
  }
}

/** `PREFIX_NAME=value` → `{ NAME: value }` (extractCAHeadersFromEnv / extractXDSHeadersFromEnv). */
function prefixed(env: Env, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (k.startsWith(prefix) && v !== undefined) out[k.slice(prefix.length)] = v;
  return out;
}

/** GetOSRootFilePath: the first CA bundle that exists, "" when none does. */
export const OS_ROOT_FILES = [
  ...GO_SYSTEM_ROOT_FILES, // Debian … Alpine, the same six as Go's
  "/usr/local/etc/ssl/cert.pem",
  "/etc/ssl/certs/ca-certificates",
];

export function securityOptionsFromEnv(
  env: Env,
  agent: { root?: string; discoveryAddress: string; exists?: (path: string) => boolean },
): SecurityOptions {
  const root = agent.root ?? "/";
  const exists = agent.exists ?? existsSync;
  const caAddr = str(env, "CA_ADDR", "");
  return {
    root,
    // If not set explicitly, default to the discovery address (and then ISTIOD_SAN names the CA too).
    caEndpoint: caAddr || agent.discoveryAddress,
    caEndpointSan: caAddr ? "" : str(env, "ISTIOD_SAN", ""),
    caProviderName: str(env, "CA_PROVIDER", "Citadel"),
    pilotCertProvider: str(env, "PILOT_CERT_PROVIDER", "istiod"),
    outputKeyCertToDir: str(env, "OUTPUT_CERTS", ""),
    provCert: str(env, "PROV_CERT", ""),
    clusterId: str(env, "ISTIO_META_CLUSTER_ID", ""),
    fileMountedCerts: bool(env, "FILE_MOUNTED_CERTS", false),
    workloadNamespace: str(env, "POD_NAMESPACE", ""),
    serviceAccount: str(env, "SERVICE_ACCOUNT", ""),
    trustDomain: str(env, "TRUST_DOMAIN", "cluster.local"),
    workloadRsaKeySize: int(env, "WORKLOAD_RSA_KEY_SIZE", 2048),
    pkcs8Keys: bool(env, "PKCS8_KEY", false),
    eccSigAlg: str(env, "ECC_SIGNATURE_ALGORITHM", ""),
    eccCurve: str(env, "ECC_CURVE", "P256"),
    secretTtlSeconds: durationMs(env, "SECRET_TTL", 86_400_000) / 1000,
    fileDebounceMs: durationMs(env, "FILE_DEBOUNCE_DURATION", 100),
    graceRatio: float(env, "SECRET_GRACE_PERIOD_RATIO", 0.5),
    graceRatioJitter: float(env, "SECRET_GRACE_PERIOD_RATIO_JITTER", 0.01),
    certSigner: str(env, "ISTIO_META_CERT_SIGNER", ""),
    caHeaders: prefixed(env, "CA_HEADER_"),
    xdsHeaders: prefixed(env, "XDS_HEADER_"),
    credentialFetcherType: str(env, "CREDENTIAL_FETCHER_TYPE", "JWT"),
    jwtPath: join(root, "var/run/secrets/tokens/istio-token"),
    caRootCerts: str(env, "CA_ROOT_CA", ""),
    xdsRootCerts: str(env, "XDS_ROOT_CA", ""),
    istiodSan: str(env, "ISTIOD_SAN", ""),
    onKubernetes: str(env, "KUBERNETES_SERVICE_HOST", "") !== "",
    enableCaCrl: bool(env, "PILOT_ENABLE_CA_CRL", true),
    caRootPath: OS_ROOT_FILES.find(exists) ?? "",
    systemRootsPath: goSystemRootsPath(env.SSL_CERT_FILE),
    certChainFilePath: join(root, "etc/certs/cert-chain.pem"),
    keyFilePath: join(root, "etc/certs/key.pem"),
    rootCertFilePath: join(root, "etc/certs/root-cert.pem"),
    discoveryAddress: agent.discoveryAddress,
    workloadIdentitySocketFile: str(env, "WORKLOAD_IDENTITY_SOCKET_FILE", "socket"),
  };
}
