/**
 * Secrets read from files (Istio's pkg/security `SdsCertificateConfig` and the file half of
 * security/pkg/nodeagent/cache/secretcache.go): the SDS resource names that point at files —
 * `file-cert:<chain>~<key>`, `file-root:<bundle>`, `file-root:system` — and the readers, which retry
 * a half-written set with backoff (first delay FILE_DEBOUNCE_DURATION, 10 s in all) before failing.
 * A root bundle keeps only the certificates that parse (`pkiutil.ParseRootCerts`).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";

export const ROOT_CA = "ROOTCA";
export const WORKLOAD_KEY_CERT = "default";
export const FILE_ROOT_SYSTEM_CA_CERT = "file-root:system";

/** The total time a file read is retried (secretcache.go totalTimeout). */
export const FILE_READ_TIMEOUT_MS = 10_000;

export interface SdsCertificateConfig {
  certificatePath: string;
  privateKeyPath: string;
  caCertificatePath: string;
}

export function isRootCertificate(c: SdsCertificateConfig): boolean {
  return c.caCertificatePath !== "";
}

export function isKeyCertificate(c: SdsCertificateConfig): boolean {
  return c.certificatePath !== "" && c.privateKeyPath !== "";
}

/** SdsCertificateConfigFromResourceName: the files a resource name points at, or undefined. */
export function sdsCertificateConfigFromResourceName(resource: string): SdsCertificateConfig | undefined {
  if (resource.startsWith("file-cert:")) {
    const split = resource.slice("file-cert:".length).split("~");
    if (split.length !== 2) return undefined;
    return { certificatePath: split[0] as string, privateKeyPath: split[1] as string, caCertificatePath: "" };
  }
  if (resource.startsWith("file-root:")) {
    const split = resource.slice("file-root:".length).split("~");
    if (split.length !== 1) return undefined;
    return { certificatePath: "", privateKeyPath: "", caCertificatePath: split[0] as string };
  }
  return undefined;
}

/** Non-empty file (rootCertificateExist / keyCertificateExist). */
export function nonEmptyFile(path: string): boolean {
  try {
    return readFileSync(path).length > 0;
  } catch {
    return false;
  }
}

const PEM_BLOCK = /-----BEGIN ([^-]+)-----\r?\n[\s\S]*?-----END \1-----\r?\n?/g;

/** ParseRootCerts: the PEM certificates of `bundle` that parse, re-encoded; and why others were left out. */
export function parseRootCerts(bundle: string): { valid: string; errors: string[] } {
  let valid = "";
  const errors: string[] = [];
  const text = bundle.trim();
  let at = 0;
  for (const m of text.matchAll(PEM_BLOCK)) {
    if (text.slice(at, m.index).trim() !== "") {
      errors.push("invalid PEM encoded certificate");
      return { valid, errors };
    }
    at = (m.index ?? 0) + m[0].length;
    try {
      const cert = new X509Certificate(m[0]);
      valid += cert.toString().endsWith("\n") ? cert.toString() : `${cert.toString()}\n`;
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  if (text.slice(at).trim() !== "") errors.push("invalid PEM encoded certificate");
  return { valid, errors };
}

/** Retries `attempt` with exponential backoff from `initialMs` until it succeeds or 10 s have passed. */
export async function retryFor<T>(initialMs: number, attempt: () => T, stopped: () => boolean): Promise<T> {
  const deadline = Date.now() + FILE_READ_TIMEOUT_MS;
  let delay = Math.max(1, initialMs);
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (Date.now() + delay > deadline || stopped()) throw error;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 1.5, 60_000);
    }
  }
}

/** A root bundle from a file: the valid certificates, or an error when none is. */
export function readRootCerts(path: string, warn: (message: string) => void): string {
  const { valid, errors } = parseRootCerts(readFileSync(path, "utf8"));
  if (valid === "") throw new Error(`failed to parse root certs from file ${path}: [${errors.join(" ")}]`);
  if (errors.length > 0) warn(`failed to parse some certs from file ${path}: [${errors.join(" ")}]`);
  return valid;
}

/** A key and chain from files, once they form a pair (tls.LoadX509KeyPair), with the chain's expiry. */
export function readKeyCert(certPath: string, keyPath: string): { chain: string; key: string; expireTime: number } {
  const chain = readFileSync(certPath, "utf8");
  const key = readFileSync(keyPath, "utf8");
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(chain);
  } catch {
    throw new Error(`tls: failed to find any PEM data in certificate input (${certPath})`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new Error(`tls: failed to find any PEM data in key input (${keyPath})`);
  }
  if (!leaf.checkPrivateKey(privateKey)) throw new Error("tls: private key does not match public key");
  return { chain, key, expireTime: Date.parse(leaf.validTo) };
}
