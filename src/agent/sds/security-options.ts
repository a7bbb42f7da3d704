/**
 * The agent's security options (Istio's pkg/security `Options` as pilot-agent fills it, plus the
 * AgentOptions fields for the XDS connection): what the SDS server, the secret cache, the CA client
 * and the XDS proxy's dial are configured with. Read from the environment by
 * src/agent/options/sds.ts (`securityOptionsFromEnv`).
 */
import { GO_SYSTEM_ROOT_FILES } from "../istiod-channel.js";

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

/** GetOSRootFilePath: the first CA bundle that exists, "" when none does. */
export const OS_ROOT_FILES = [
  ...GO_SYSTEM_ROOT_FILES, // Debian … Alpine, the same six as Go's
  "/usr/local/etc/ssl/cert.pem",
  "/etc/ssl/certs/ca-certificates",
];
