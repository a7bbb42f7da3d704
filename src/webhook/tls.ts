/**
 * The serving certificate: loading and checking a certificate/key pair, and swapping it into a
 * running server when its files change. `server.setSecureContext` only affects NEW handshakes, so
 * connections already open (the API server keeps its connections) go on with the old certificate
 * and are not dropped. A new pair that does not parse, whose key does not match, or which has
 * expired is refused: the old pair stays active and the caller logs and counts the error.
 *
 * The two files cannot be read atomically: a writer replacing both (cert-manager, `kubectl`, two
 * `cp`s) can be caught between them, giving a new certificate with the old key. So a pair that
 * fails its check is read again, both files, a few times a short while apart before it counts as
 * an error; a pair that is really bad is still refused, only a fraction of a second later.
 */

import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Server } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { createSecureContext, type SecureContextOptions, type TLSSocket } from "node:tls";
import { type FileWatch, watchFiles } from "./file-watch.js";
import { DEFAULT_TLS_POLICY, opensslCiphers, type TlsPolicy } from "./tls-policy.js";

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

/**
 * Checks a pair (leaf parses, key parses and matches, not expired) and builds its TLS options with
 * the policy's minimum version and TLS 1.2 cipher suites.
 */
export function checkPair(
  pair: TlsPair,
  source = "certificate",
  now = new Date(),
  policy: TlsPolicy = DEFAULT_TLS_POLICY,
): CheckedPair {
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
  const context: SecureContextOptions = {
    cert: pair.cert,
    key: pair.key,
    minVersion: policy.minVersion,
    ciphers: opensslCiphers(policy),
  };
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
  /** A new pair failed its check and will be read again (`attempt` counts from 1): not an error yet. */
  onRetry?(error: Error, attempt: number): void;
}

/** How often, and how far apart, a pair that fails its check is read again before it is refused. */
export interface PairRetry {
  /** Re-reads after the first failed check. */
  attempts: number;
  /** Wait before each re-read (ms). */
  delayMs: number;
}

/** Long enough for a writer to finish the second file, short enough that a bad pair is reported at once. */
export const PAIR_RETRY: PairRetry = { attempts: 3, delayMs: 75 };

/** Reads both files, started together so the gap between the two reads is as small as it gets. */
async function readPair(files: TlsFiles): Promise<TlsPair> {
  try {
    const [cert, key] = await Promise.all([readFile(files.certFile, "utf8"), readFile(files.keyFile, "utf8")]);
    return { cert, key };
  } catch (e) {
    throw new TlsError(`cannot read ${files.certFile} + ${files.keyFile}: ${(e as Error).message}`);
  }
}

/**
 * Watches the certificate and key files and installs each new good pair into `server`.
 * `initial` is the pair the server was started with (the files' current texts).
 */
export function watchCertificate(
  server: Pick<Server, "setSecureContext">,
  files: TlsFiles,
  initial: TlsPair,
  events: CertWatchEvents,
  intervalMs: number,
  retry: PairRetry = PAIR_RETRY,
  policy: TlsPolicy = DEFAULT_TLS_POLICY,
): FileWatch {
  const source = `${files.certFile} + ${files.keyFile}`;
  // The pair being served. The file watcher remembers what it READ, which after a retry may be the
  // half-swapped pair, so its next check reports the settled files again: those are skipped here.
  let active: TlsPair = initial;
  let closed = false;

  /** Installs `pair` unless it is served already; returns why not if it does not check out. */
  function install(pair: TlsPair): Error | undefined {
    if (pair.cert === active.cert && pair.key === active.key) return undefined;
    let checked: CheckedPair;
    try {
      checked = checkPair(pair, source, new Date(), policy);
    } catch (e) {
      return e as Error;
    }
    server.setSecureContext(checked.context);
    active = pair;
    events.onReload(checked);
    return undefined;
  }

  /** Installs `first`, or else the files as re-read a little later, up to `retry.attempts` times. */
  async function reload(first: TlsPair): Promise<void> {
    let read: TlsPair | Error = first;
    for (let attempt = 1; !closed; attempt++) {
      // A read error here is a file mid-replacement: as transient as a half-swapped pair.
      const failure = read instanceof Error ? read : install(read);
      if (failure === undefined) return;
      if (attempt > retry.attempts) {
        events.onError(failure);
        return;
      }
      events.onRetry?.(failure, attempt);
      await sleep(retry.delayMs); // a timer, not a busy wait: requests go on being served meanwhile
      read = await readPair(files).catch((e: Error) => e);
    }
  }

  const watch = watchFiles(
    new Map([
      [files.certFile, initial.cert],
      [files.keyFile, initial.key],
    ]),
    {
      intervalMs,
      // cert-manager and `kubectl create secret` write both keys at once; `cp a; cp b` does not, so wait a bit.
      debounceMs: 100,
      onChange: (now) => reload({ cert: now.get(files.certFile) ?? "", key: now.get(files.keyFile) ?? "" }),
      onError: (error, path) => events.onError(path ? new TlsError(`cannot read ${path}: ${error.message}`) : error),
    },
  );
  return {
    check: watch.check,
    close() {
      closed = true;
      watch.close();
    },
  };
}
