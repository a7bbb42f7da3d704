/**
 * A self-signed serving certificate (ECDSA P-256, SHA-256) for trying the webhook locally and for
 * tests: `meshinject serve` without certificate flags uses one. Built with node:crypto and a small
 * DER writer, so no X.509 library (and no reflection polyfill) is needed at run time.
 */

import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";

export interface SelfSignedOptions {
  /** DNS names and IP addresses for the subjectAltName; the first one is also the common name. */
  hosts: readonly string[];
  /** Validity in days from now (default 365). */
  days?: number;
  /** `notBefore`; defaults to one minute ago (a little clock skew must not make it "not yet valid"). */
  now?: Date;
}

export interface PemPair {
  /** The certificate, PEM. */
  cert: string;
  /** The PKCS#8 private key, PEM. */
  key: string;
}

// --- DER writer (private) ---

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
const octetString = (b: Buffer) => tlv(0x04, b);
const bitString = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
const utf8String = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 | n, inner);
const boolTrue = () => tlv(0x01, Buffer.from([0xff]));

function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const out: number[] = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const p of parts.slice(2)) {
    const groups: number[] = [];
    for (let v = p; ; v = Math.floor(v / 128)) {
      groups.unshift(v & 0x7f);
      if (v < 128) break;
    }
    for (let i = 0; i < groups.length - 1; i++) groups[i] = (groups[i] ?? 0) | 0x80;
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A positive INTEGER from unsigned big-endian bytes. */
function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && ((b[1] ?? 0) & 0x80) === 0) b = b.subarray(1);
  if (((b[0] ?? 0) & 0x80) !== 0) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2), "ascii"))
    : tlv(0x18, Buffer.from(digits, "ascii"));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  // IPv6: expand "::" and write eight 16-bit groups.
  const [head = "", tail] = ip.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => {
    out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  });
  return out;
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString("base64").replace(/.{64}/g, "$&\n");
  return `-----BEGIN ${label}-----\n${b64.replace(/\n$/, "")}\n-----END ${label}-----\n`;
}

const ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";

/**
 * A new key pair and a self-signed certificate for `hosts` (serverAuth, CA:TRUE like
 * `openssl req -x509`, so the certificate itself can be given as the trusted CA: `curl --cacert`).
 */
export function selfSignedCertificate(options: SelfSignedOptions): PemPair {
  const hosts = options.hosts.length > 0 ? options.hosts : ["localhost"];
  const now = options.now ?? new Date(Date.now() - 60_000);
  const notAfter = new Date(now.getTime() + (options.days ?? 365) * 86_400_000);
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const name = sequence(set(sequence(oid("2.5.4.3"), utf8String(hosts[0] ?? "localhost"))));
  const altNames = hosts.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, "ascii"))));
  const extensions = sequence(
    sequence(oid("2.5.29.19"), boolTrue(), octetString(sequence(boolTrue()))), // basicConstraints CA:TRUE
    sequence(oid("2.5.29.37"), octetString(sequence(oid("1.3.6.1.5.5.7.3.1")))), // extKeyUsage serverAuth
    sequence(oid("2.5.29.17"), octetString(sequence(...altNames))), // subjectAltName
  );
  const algorithm = sequence(oid(ECDSA_WITH_SHA256));
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    algorithm,
    name,
    sequence(time(now), time(notAfter)),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    explicit(3, extensions),
  );
  const signature = sign("sha256", tbs, privateKey); // DER ECDSA-Sig-Value
  const cert = sequence(tbs, algorithm, bitString(signature));
  return {
    cert: pem("CERTIFICATE", cert),
    key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}
