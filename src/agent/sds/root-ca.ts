/**
 * Which files authenticate the agent's connections, as pilot-agent decides (pkg/istio-agent/agent.go
 * `FindRootCAForCA`, `FindRootCAForXDS`, `GetKeyCertsForCA`, `GetKeyCertsForXDS`, `initSdsServer`;
 * pilot-agent/options/security.go `SetupSecurityOptions`). A root of "" means the system roots.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { CA_ROOT_CERT, type IstiodTls } from "../istiod-channel.js";
import type { SecurityOptions } from "./security-options.js";

const SYSTEM_ROOT_CERTS = "SYSTEM";
const WORKLOAD_IDENTITY_CREDENTIALS = "var/run/secrets/workload-spiffe-credentials";
/** ProxyConfig metadata naming the XDS root for file-mounted certificates. */
export const METADATA_CLIENT_ROOT_CERT = "ISTIO_META_TLS_CLIENT_ROOT_CERT";
const METADATA_CLIENT_CERT_KEY = "ISTIO_META_TLS_CLIENT_KEY";
const METADATA_CLIENT_CERT_CHAIN = "ISTIO_META_TLS_CLIENT_CERT_CHAIN";

function fileExists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * SetupSecurityOptions' checks and provider defaults, then initSdsServer's detection of workload
 * certificate files: the options the agent runs with, or a one-line error.
 */
export function setupSecurityOptions(o: SecurityOptions): SecurityOptions {
  const out = { ...o };
  if (out.caProviderName === "GkeWorkloadCertificate") {
    const dir = join(out.root, WORKLOAD_IDENTITY_CREDENTIALS);
    const files = ["certificates.pem", "private_key.pem", "ca_certificates.pem"].map((f) => join(dir, f));
    if (!files.every((f) => fileExists(f)))
      throw new Error(`GKE workload certificate files (${files.join(", ")}) not present`);
    if (out.provCert !== "")
      throw new Error("invalid options: PROV_CERT and FILE_MOUNTED_CERTS of GKE workload cert are mutually exclusive");
    return {
      ...out,
      fileMountedCerts: true,
      certChainFilePath: files[0] as string,
      keyFilePath: files[1] as string,
      rootCertFilePath: files[2] as string,
    };
  }
  if (out.caEndpoint.includes("googleapis.com")) out.caProviderName = "GoogleCA";
  if (out.provCert !== "" && out.fileMountedCerts)
    throw new Error("invalid options: PROV_CERT and FILE_MOUNTED_CERTS are mutually exclusive");
  // initSdsServer: workload certificate files mounted by the platform mean no CA client.
  const dir = join(out.root, WORKLOAD_IDENTITY_CREDENTIALS);
  const spiffe = ["cert-chain.pem", "key.pem", "root-cert.pem"].map((f) => join(dir, f));
  if (spiffe.every((f) => fileExists(f))) {
    out.certChainFilePath = spiffe[0] as string;
    out.keyFilePath = spiffe[1] as string;
    out.rootCertFilePath = spiffe[2] as string;
    out.fileMountedCerts = true;
  }
  return out;
}

/** FindRootCAForCA: the root file for the CA connection ("" = system roots). */
export function findRootCaForCa(o: SecurityOptions): string {
  let path: string;
  if (o.caRootCerts === SYSTEM_ROOT_CERTS) return "";
  if (o.caRootCerts !== "") path = o.caRootCerts;
  else if (o.pilotCertProvider === "custom") path = join(o.root, "etc/certs/root-cert.pem");
  else if (o.provCert !== "") return join(o.provCert, "root-cert.pem");
  else if (o.pilotCertProvider === "none")
    throw new Error("root CA file for CA required but configured provider as none");
  else path = join(o.root, CA_ROOT_CERT);
  if (fileExists(path)) return path;
  throw new Error(`root CA file for CA does not exist ${path}`);
}

/** FindRootCAForXDS: the root file for the istiod connection ("" = system roots). */
export function findRootCaForXds(o: SecurityOptions, proxyMetadata: Record<string, string> = {}): string {
  let path: string;
  if (o.xdsRootCerts === SYSTEM_ROOT_CERTS) return "";
  if (o.xdsRootCerts !== "") path = o.xdsRootCerts;
  else if (fileExists(join(o.root, "etc/certs/root-cert.pem"))) return join(o.root, "etc/certs/root-cert.pem");
  else if (o.provCert !== "") return join(o.provCert, "root-cert.pem");
  else if (o.fileMountedCerts) path = proxyMetadata[METADATA_CLIENT_ROOT_CERT] ?? "";
  else if (o.pilotCertProvider === "none")
    throw new Error("root CA file for XDS required but configured provider as none");
  else path = join(o.root, CA_ROOT_CERT);
  if (fileExists(path)) return path;
  throw new Error(`root CA file for XDS does not exist ${path}`);
}

/** GetKeyCertsForCA: PROV_CERT's key and chain, when set. */
export function keyCertsForCa(o: SecurityOptions): { keyPath?: string; certPath?: string } {
  return o.provCert ? { keyPath: join(o.provCert, "key.pem"), certPath: join(o.provCert, "cert-chain.pem") } : {};
}

/** GetKeyCertsForXDS: PROV_CERT's, else the file-mounted ones named in ProxyConfig metadata. */
export function keyCertsForXds(
  o: SecurityOptions,
  proxyMetadata: Record<string, string> = {},
): { keyPath?: string; certPath?: string } {
  if (o.provCert) return keyCertsForCa(o);
  if (o.fileMountedCerts)
    return { keyPath: proxyMetadata[METADATA_CLIENT_CERT_KEY], certPath: proxyMetadata[METADATA_CLIENT_CERT_CHAIN] };
  return {};
}

/** createCitadel's TLS: none for `:15010` (istiod on a secure network), else the CA root and PROV_CERT. */
export function caTls(o: SecurityOptions): IstiodTls | undefined {
  if (o.caEndpoint.endsWith(":15010")) return undefined;
  const rootCertPath = findRootCaForCa(o);
  if (rootCertPath !== "" && !fileExists(rootCertPath))
    throw new Error(`invalid config - ${o.caEndpoint} missing a root certificate ${rootCertPath}`);
  return {
    rootCertPath,
    ...keyCertsForCa(o),
    serverAddress: o.caEndpoint,
    san: o.caEndpointSan || undefined,
    systemRootsPath: o.systemRootsPath,
  };
}

/** The XDS proxy's TLS to istiod (XdsProxy.getTLSOptions); undefined when the control plane auth policy is NONE. */
export function xdsTls(
  o: SecurityOptions,
  controlPlaneAuthPolicy: string | number | undefined,
  proxyMetadata: Record<string, string> = {},
): IstiodTls | undefined {
  if (controlPlaneAuthPolicy === "NONE" || controlPlaneAuthPolicy === 0) return undefined;
  return {
    rootCertPath: findRootCaForXds(o, proxyMetadata),
    ...keyCertsForXds(o, proxyMetadata),
    serverAddress: o.discoveryAddress,
    san: o.istiodSan || undefined,
    systemRootsPath: o.systemRootsPath,
  };
}
