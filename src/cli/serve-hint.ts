/**
 * How `serve` tells where to send a first request: a curl command that works as printed, from any
 * folder. With a generated certificate it skips verification (-k: nothing to verify against); with
 * the user's certificate (--cert-dir, --tls-cert-file) it verifies against the CA beside it
 * (ca.crt, as `meshinject certs` writes it) and calls the server by a name or address the
 * certificate holds, through --resolve when that is only a DNS name (the Service's).
 */
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** How curl reaches and verifies the server. */
export interface CurlTarget {
  /** The host of the URL: an address (`127.0.0.1`, `[::1]`) or a DNS name of the certificate. */
  host: string;
  /** `--cacert FILE`, or none: -k (skip verification). */
  cacert?: string;
  /** `--resolve HOST:PORT:ADDRESS`: the DNS name is the certificate's, the address the local one. */
  resolveTo?: string;
}

/** Single-quotes `text` for a POSIX shell. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The address to call a server listening on `listen` (undefined, a wildcard, or one address) at. */
function localAddress(listen: string | undefined): string {
  if (listen === undefined || listen === "" || listen === "0.0.0.0") return "127.0.0.1";
  if (listen === "::") return "::1";
  return listen;
}

const urlHost = (address: string) => (address.includes(":") ? `[${address}]` : address);

/** The certificate's DNS names and IP addresses (Node's subjectAltName: `DNS:a, IP Address:1.2.3.4`). */
function subjectAltNames(cert: X509Certificate): { dns: string[]; ips: string[] } {
  const dns: string[] = [];
  const ips: string[] = [];
  for (const entry of (cert.subjectAltName ?? "").split(", ")) {
    if (entry.startsWith("DNS:")) dns.push(entry.slice(4));
    else if (entry.startsWith("IP Address:")) ips.push(entry.slice(11).toLowerCase());
  }
  return { dns, ips };
}

/**
 * How to call a server with the certificate in `certFile` listening on `listen`: by its address
 * when the certificate holds it, else by `localhost`, else by its first DNS name resolved to the
 * address; verified against ca.crt beside the certificate, else the certificate itself when it is
 * self-signed, else not at all (-k). Undefined when the file cannot be read as a certificate.
 */
export function curlTarget(certFile: string, listen: string | undefined): CurlTarget | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(certFile));
  } catch {
    return undefined;
  }
  const address = localAddress(listen);
  const { dns, ips } = subjectAltNames(cert);
  // Absolute paths: the command works from any folder.
  const ca = resolve(dirname(certFile), "ca.crt");
  const cacert = existsSync(ca) ? ca : cert.issuer === cert.subject ? resolve(certFile) : undefined;
  const withCa = cacert === undefined ? {} : { cacert };
  if (ips.includes(address.toLowerCase())) return { host: urlHost(address), ...withCa };
  const name = dns.includes("localhost") && address.startsWith("127.") ? "localhost" : dns[0];
  if (name === undefined) return { host: urlHost(address) };
  return name === "localhost" ? { host: name, ...withCa } : { host: name, resolveTo: address, ...withCa };
}

/**
 * The curl command of the start-up hint: the review `data` (`@FILE` or the JSON) posted to /inject
 * of the server on `port`, as `target` says (-k to 127.0.0.1 without one).
 */
export function curlCommand(port: number, data: string, target?: CurlTarget): string {
  const host = target?.host ?? "127.0.0.1";
  const verify = target?.cacert !== undefined ? `--cacert ${shellQuote(target.cacert)}` : "-k";
  const resolve =
    target?.resolveTo !== undefined ? ` --resolve ${shellQuote(`${host}:${port}:${urlHost(target.resolveTo)}`)}` : "";
  return `curl ${verify}${resolve} -H 'Content-Type: application/json' --data ${shellQuote(data)} https://${host}:${port}/inject`;
}
