// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Private-key PEM handling as Sprig does it (parsePrivateKeyPEM and pemBlockForKey in crypto.go),
 * on top of node:crypto KeyObjects. DSA keys are recognised but kept as raw parts: node can parse
 * them, yet Go cannot sign certificates with them, and the certificate code reports Go's errors.
 */
import { derToBigInt, readDer, readDerChildren } from "./der.js";
import { type KeyObject, nodeCrypto } from "./node-crypto.js";

export type ParsedKey = { kind: "rsa" | "ec" | "ed25519"; key: KeyObject } | { kind: "dsa" };

/** A decoded PEM block: its type and DER bytes. */
export interface PemBlock {
  type: string;
  bytes: Buffer;
}

const PEM_RE = /-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;

/**
 * pem.Decode, simplified: the first well-formed block anywhere in the text. Header lines
 * (`Key: value`, as in legacy encrypted keys) are dropped; a block whose body is not base64 is
 * skipped, as Go's decoder skips it.
 */
export function pemDecode(text: string): PemBlock | undefined {
  for (const m of text.matchAll(PEM_RE)) {
    const lines = m[2]!.split("\n");
    while (lines.length && lines[0]!.includes(":")) lines.shift();
    const body = lines.join("").replace(/[ \t\r]/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) continue;
    return { type: m[1]!, bytes: Buffer.from(body, "base64") };
  }
  return undefined;
}

export class KeyParseError extends Error {}

/** Dotted form of a DER OBJECT IDENTIFIER's content. */
export function oidToString(content: Uint8Array): string {
  const parts: number[] = [];
  let v = 0;
  for (const b of content) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  const first = parts.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join(".");
}

/** Go's x509 parse errors quote asn1 internals we cannot reproduce; this stands in for them. */
const MALFORMED = "asn1: structure error: malformed key";

function loadDer(der: Buffer, type: "pkcs1" | "sec1" | "pkcs8", what: string): KeyObject {
  try {
    return nodeCrypto().createPrivateKey({ key: der, format: "der", type });
  } catch {
    throw new KeyParseError(what ? `${what}${MALFORMED}` : MALFORMED);
  }
}

const GO_CURVES = new Set(["prime256v1", "secp384r1", "secp521r1", "secp224r1"]);

function checkCurve(key: KeyObject, prefix: string): void {
  if (!GO_CURVES.has(key.asymmetricKeyDetails?.namedCurve ?? ""))
    throw new KeyParseError(`${prefix}x509: unknown elliptic curve`);
}

/** parsePrivateKeyPEM: the first PEM block must hold a PKCS#8, RSA, EC or DSA private key. */
export function parsePrivateKeyPem(pem: string): ParsedKey {
  const block = pemDecode(pem);
  if (!block) throw new KeyParseError("no PEM data in input");
  if (block.type === "PRIVATE KEY") {
    const key = loadDer(block.bytes, "pkcs8", "decoding PEM as PKCS#8: ");
    switch (key.asymmetricKeyType) {
      case "rsa":
        return { kind: "rsa", key };
      case "ec":
        checkCurve(key, "decoding PEM as PKCS#8: ");
        return { kind: "ec", key };
      case "ed25519":
        return { kind: "ed25519", key };
      default: {
        const [, algorithm] = readDerChildren(readDer(block.bytes).content);
        const oid = oidToString(readDerChildren(algorithm!.content)[0]!.content);
        throw new KeyParseError(
          `decoding PEM as PKCS#8: x509: PKCS#8 wrapping contained private key with unknown algorithm: ${oid}`,
        );
      }
    }
  }
  if (!block.type.endsWith(" PRIVATE KEY"))
    throw new KeyParseError(`no private key data in PEM block of type ${block.type}`);
  switch (block.type.slice(0, -" PRIVATE KEY".length)) {
    case "RSA":
      return { kind: "rsa", key: loadDer(block.bytes, "pkcs1", "parsing RSA private key from PEM: ") };
    case "EC": {
      const key = loadDer(
        block.bytes,
        "sec1",
        "parsing EC private key from PEM: x509: failed to parse EC private key: ",
      );
      checkCurve(key, "parsing EC private key from PEM: ");
      return { kind: "ec", key };
    }
    case "DSA":
      try {
        const parts = readDerChildren(readDer(block.bytes).content);
        if (parts.length < 6 || parts.some((p) => p.tag !== 0x02)) throw new Error();
        for (const p of parts) derToBigInt(p.content);
      } catch {
        throw new KeyParseError(`parsing DSA private key from PEM: ${MALFORMED}`);
      }
      return { kind: "dsa" };
    default:
      throw new KeyParseError(`invalid private key type ${block.type}`);
  }
}

/** pemBlockForKey: RSA as PKCS#1, EC as SEC 1, anything else as PKCS#8. */
export function privateKeyPem(k: { kind: "rsa" | "ec" | "ed25519"; key: KeyObject }): string {
  const type = k.kind === "rsa" ? "pkcs1" : k.kind === "ec" ? "sec1" : "pkcs8";
  return k.key.export({ type, format: "pem" }) as string;
}
