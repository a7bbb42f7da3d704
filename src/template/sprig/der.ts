// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * The few DER pieces Sprig's key handling needs that node:crypto does not offer: the traditional
 * "DSA PRIVATE KEY" structure (SEQUENCE of six INTEGERs), which node can neither write nor read,
 * and reading the DSA parameters out of a PKCS#8 key node generated.
 */

/** One DER element: tag, content bytes, and where the element ends in its buffer. */
export interface DerElement {
  tag: number;
  content: Uint8Array;
  end: number;
}

/** Reads the element starting at `pos`; throws on truncated input. */
export function readDer(buf: Uint8Array, pos = 0): DerElement {
  if (pos + 2 > buf.length) throw new Error("asn1: truncated element");
  const tag = buf[pos]!;
  let len = buf[pos + 1]!;
  let p = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > buf.length) throw new Error("asn1: invalid length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i]!;
    p += n;
  }
  if (p + len > buf.length) throw new Error("asn1: truncated element");
  return { tag, content: buf.subarray(p, p + len), end: p + len };
}

/** The elements inside a constructed element's content. */
export function readDerChildren(content: Uint8Array): DerElement[] {
  const out: DerElement[] = [];
  for (let pos = 0; pos < content.length; ) {
    const el = readDer(content, pos);
    out.push(el);
    pos = el.end;
  }
  return out;
}

export function derToBigInt(content: Uint8Array): bigint {
  if (content.length === 0) return 0n;
  let v = BigInt(`0x${Buffer.from(content).toString("hex")}`);
  if (content[0]! & 0x80) v -= 1n << BigInt(content.length * 8);
  return v;
}

function encodeLength(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return [0x80 | bytes.length, ...bytes];
}

export function derElement(tag: number, content: Uint8Array): Uint8Array {
  return Uint8Array.from([tag, ...encodeLength(content.length), ...content]);
}

/** A non-negative INTEGER, minimal two's-complement encoding. */
export function derInteger(v: bigint): Uint8Array {
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let bytes = Buffer.from(hex, "hex");
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return derElement(0x02, bytes);
}

export function derSequence(parts: Uint8Array[]): Uint8Array {
  return derElement(0x30, Buffer.concat(parts));
}

/** base64 wrapped at 64 columns between BEGIN/END lines, as Go's pem.Encode writes it. */
export function pemEncode(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join("")}-----END ${type}-----\n`;
}

/** x^e mod m for non-negative bigints. */
export function modPow(x: bigint, e: bigint, m: bigint): bigint {
  let result = 1n;
  let base = x % m;
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) result = (result * base) % m;
    base = (base * base) % m;
  }
  return result;
}
