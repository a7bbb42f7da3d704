/**
 * How the agent dials istiod and the CA (Istio's pilot/pkg/grpc: `ClientOptions`,
 * `getTLSDialOption`, `getRootCertificate`; and caclient's `DefaultTokenProvider`):
 *
 * - TLS verified against a root file, or the system roots when the file is "" (`XDS_ROOT_CA` /
 *   `CA_ROOT_CA` = SYSTEM), or plaintext when no TLS is configured at all;
 * - the server name is the host of the address, `istiod.istio-system.svc` when that host contains
 *   "localhost", and the SAN (`ISTIOD_SAN`) when one is given;
 * - a client certificate (PROV_CERT's key.pem / cert-chain.pem) when both files are named, left out
 *   (token only) when the certificate has expired or does not parse;
 * - per call: `ClusterID` (sent even when empty), the extra headers (`XDS_HEADER_*` / `CA_HEADER_*`)
 *   and `authorization: Bearer <token>` when the credential fetcher has a token.
 *
 * The files are read each time a channel is built, so a rebuilt channel sees a rotated root.
 */
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { type ChannelCredentials, type ChannelOptions, credentials, Metadata } from "@grpc/grpc-js";

/** The pod's istiod token (the istio-token projected volume), under the agent's root. */
export const TOKEN_PATH = "var/run/secrets/tokens/istio-token";
/** Where the istio-ca-root-cert config map is mounted (pilot-agent's CA root default). */
export const CA_ROOT_CERT = "var/run/secrets/istio/root-cert.pem";

/** istiogrpc.TLSOptions. */
export interface IstiodTls {
  /** PEM file of the roots; "" means the system roots. */
  rootCertPath: string;
  /** Client key and certificate chain files (PROV_CERT); used only when both are set. */
  keyPath?: string;
  certPath?: string;
  /** The address dialled, `host:port`. */
  serverAddress: string;
  /** Overrides the server name (ISTIOD_SAN). */
  san?: string;
  /** The system roots (Go's SystemCertPool): a PEM bundle file. */
  systemRootsPath?: string;
}

/** The TLS server name Istio verifies for `address`. */
export function tlsServerName(address: string, san?: string): string {
  let name = "";
  const m = /^(?:\[([^\]]*)\]|([^:]*)):[^:]*$/.exec(address); // net.SplitHostPort
  if (m) name = m[1] ?? m[2] ?? "";
  if (name.includes("localhost")) name = "istiod.istio-system.svc";
  if (san) name = san;
  return name;
}

/**
 * Go's crypto/x509 system pool on Linux: SSL_CERT_FILE when set, else the first bundle that exists
 * (crypto/x509/root_linux.go).
 */
export const GO_SYSTEM_ROOT_FILES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/pki/tls/cacert.pem",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

export function goSystemRootsPath(sslCertFile: string | undefined): string | undefined {
  if (sslCertFile) return sslCertFile;
  return GO_SYSTEM_ROOT_FILES.find((f) => existsSync(f));
}

function rootCertificates(tls: IstiodTls): Buffer {
  if (tls.rootCertPath !== "") {
    const pem = readFileSync(tls.rootCertPath);
    if (!/-----BEGIN CERTIFICATE-----/.test(pem.toString("latin1")))
      throw new Error("failed to create TLS dial option with root certificates");
    return pem;
  }
  if (!tls.systemRootsPath) throw new Error("no system root certificates found");
  return readFileSync(tls.systemRootsPath);
}

/** The client certificate, unless missing, unparseable or expired (then the token alone authenticates). */
function clientCertificate(tls: IstiodTls, log?: (message: string) => void): { key: Buffer; cert: Buffer } | undefined {
  if (!tls.keyPath || !tls.certPath) return undefined;
  let cert: Buffer;
  try {
    cert = readFileSync(tls.certPath);
    const leaf = new X509Certificate(cert);
    if (Date.parse(leaf.validTo) < Date.now()) {
      log?.("cert expired, using token instead");
      return undefined;
    }
  } catch (error) {
    log?.(`cannot parse the cert chain, using token instead: ${(error as Error).message}`);
    return undefined;
  }
  return { key: readFileSync(tls.keyPath), cert };
}

/** Channel credentials and options for a dial; `tls` undefined means plaintext. */
export function istiodDial(
  tls: IstiodTls | undefined,
  log?: (message: string) => void,
): { credentials: ChannelCredentials; options: ChannelOptions } {
  if (!tls) return { credentials: credentials.createInsecure(), options: {} };
  const client = clientCertificate(tls, log);
  const name = tlsServerName(tls.serverAddress, tls.san);
  return {
    credentials: credentials.createSsl(rootCertificates(tls), client?.key ?? null, client?.cert ?? null),
    options: name ? { "grpc.ssl_target_name_override": name } : {},
  };
}

/** The headers of every call: ClusterID, the extra headers, and the bearer token when there is one. */
export function callMetadata(clusterId: string, headers: Record<string, string>, token?: () => string): Metadata {
  const md = new Metadata();
  md.set("ClusterID", clusterId);
  for (const [k, v] of Object.entries(headers)) md.add(k, v);
  const t = token?.() ?? "";
  if (t) md.set("authorization", `Bearer ${t}`);
  return md;
}

/** The XDS proxy's dial as it was before the TLS options above (a fixed root PEM, no SAN rules). */
export interface IstiodDial {
  address: string;
  /** PEM roots istiod's serving certificate must chain to; absent: plaintext. */
  rootCertPem?: string | Buffer;
  /** TLS name to verify (default: the host of `address`). */
  serverName?: string;
}

export function istiodChannel(dial: IstiodDial): { credentials: ChannelCredentials; options: ChannelOptions } {
  const host = dial.address.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  const name = dial.serverName ?? host;
  return {
    credentials: dial.rootCertPem ? credentials.createSsl(Buffer.from(dial.rootCertPem)) : credentials.createInsecure(),
    options: { "grpc.ssl_target_name_override": name, "grpc.default_authority": name },
  };
}

/** The XDS proxy's call headers: ClusterID and the token read from `tokenPath` (an error when unreadable). */
export function istiodMetadata(who: string, tokenPath: string | undefined, clusterId: string): Metadata {
  let token: string | undefined;
  if (tokenPath !== undefined) {
    try {
      token = readFileSync(tokenPath, "utf8").trim();
    } catch (error) {
      throw new Error(`${who}: cannot read token file ${tokenPath}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
    if (!token) throw new Error(`${who}: token file ${tokenPath} is empty`);
  }
  return callMetadata(clusterId, {}, () => token ?? "");
}
