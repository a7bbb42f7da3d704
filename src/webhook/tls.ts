/**
 * The serving certificate: loading and checking a certificate/key pair, and swapping it into a
 * running server when its files change. `server.setSecureContext` only affects NEW handshakes, so
 * connections already open (the API server keeps its connections) go on with the old certificate
 * and are not dropped. A new pair that does not parse, whose key does not match, or which has
 * expired is refused: the old pair stays active and the caller logs and counts the error.
 */

import { createPrivateKey, X509Certificate } from "node:crypto";
import type { Server } from "node:https";
import { createSecureContext, type SecureContextOptions, type TLSSocket } from "node:tls";
import { type FileWatch, watchFiles } from "./file-watch.js";

export const TLS_MIN_VERSION = "TLSv1.2" as const;

export interface TlsPair {
  /** PEM certificate (chain allowed: leaf first). */
  cert: string;
  /** PEM private key. */
  key: string;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A certificate/key pair that cannot be used. */
export class TlsError extends Error {
  override name = "TlsError";
}

export interface CheckedPair extends TlsPair {
  /** The leaf certificate. */
  leaf: X509Certificate;
  /** The options for tls.createSecureContext / server.setSecureContext. */
  context: SecureContextOptions;
}

/** Checks a pair (leaf parses, key parses and matches, not expired) and builds its TLS options. */
export function checkPair(pair: TlsPair, source = "certificate", now = new Date()): CheckedPair {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(pair.cert);
  } catch (e) {
    throw new TlsError(`${source}: the certificate does not parse: ${(e as Error).message}`);
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(createPrivateKey(pair.key));
  } catch (e) {
    throw new TlsError(`${source}: the private key does not parse: ${(e as Error).message}`);
  }
  if (!matches) throw new TlsError(`${source}: the private key does not belong to the certificate`);
  if (new Date(leaf.validTo).getTime() < now.getTime()) {
    throw new TlsError(`${source}: the certificate expired on ${leaf.validTo}`);
  }
  const context: SecureContextOptions = { cert: pair.cert, key: pair.key, minVersion: TLS_MIN_VERSION };
  try {
    createSecureContext(context); // what the server will do with it: fail here, not in a handshake
  } catch (e) {
    throw new TlsError(`${source}: ${(e as Error).message}`);
  }
  return { ...pair, leaf, context };
}

/** The SHA-256 fingerprint of a peer's certificate as seen on a TLS socket (for logs and tests). */
export function peerFingerprint(socket: TLSSocket): string {
  return socket.getPeerCertificate().fingerprint256;
}

export interface CertWatchEvents {
  /** A new pair is active. */
  onReload(pair: CheckedPair): void;
  /** A new pair was refused (the old one stays), or a file could not be read. */
  onError(error: Error): void;
}

/**
 * Watches the certificate and key files and installs each new good pair into `server`.
 * `initial` is the pair the server was started with (the files' current texts).
 */
export function watchCertificate(
  server: Server,
  files: TlsFiles,
  initial: TlsPair,
  events: CertWatchEvents,
  intervalMs: number,
): FileWatch {
  const texts = new Map([
    [files.certFile, initial.cert],
    [files.keyFile, initial.key],
  ]);
  return watchFiles(texts, {
    intervalMs,
    // cert-manager and `kubectl create secret` write both keys at once; `cp a; cp b` does not, so wait a bit.
    debounceMs: 100,
    onChange: (now) => {
      let checked: CheckedPair;
      try {
        checked = checkPair(
          { cert: now.get(files.certFile) ?? "", key: now.get(files.keyFile) ?? "" },
          `${files.certFile} + ${files.keyFile}`,
        );
      } catch (e) {
        events.onError(e as Error);
        return;
      }
      server.setSecureContext(checked.context);
      events.onReload(checked);
    },
    onError: (error, path) => events.onError(path ? new TlsError(`cannot read ${path}: ${error.message}`) : error),
  });
}
