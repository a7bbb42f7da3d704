// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's encoding and checksum functions: b64enc/b64dec, b32enc/b32dec, sha1sum, sha256sum, adler32sum.
 *
 * Go strings are byte strings; ours are JavaScript strings, so every function works on the UTF-8 bytes of
 * its input (that is what Go's `[]byte(s)` sees). Decoded bytes that are not valid UTF-8 cannot be kept
 * exactly in a JavaScript string: they become U+FFFD, where Go would keep the raw bytes.
 */
import { sha1 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type GoFunc, goFunc } from "../../go/value.js";

const B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** UTF-8 bytes of a string, as Go's `[]byte(s)` gives them. */
export function utf8Bytes(s: string): Uint8Array {
  return Buffer.from(s, "utf8");
}

/** Go's `string(bytes)`, lossy where the bytes are not valid UTF-8 (see the module comment). */
export function bytesToString(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8");
}

function decodeMap(alphabet: string): Int16Array {
  const map = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) map[alphabet.charCodeAt(i)] = i;
  return map;
}

const B64_MAP = decodeMap(B64_ALPHABET);
const B32_MAP = decodeMap(B32_ALPHABET);

/** Go's base64.CorruptInputError / base32.CorruptInputError message. */
class CorruptInput extends Error {
  constructor(kind: "base64" | "base32", offset: number) {
    super(`illegal ${kind} data at input byte ${offset}`);
  }
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** base64.StdEncoding.EncodeToString (padded), by hand so that it needs neither Buffer nor btoa's Latin-1 detour. */
export function encodeBase64Std(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const left = bytes.length - i;
    out += BASE64_ALPHABET[(n >> 18) & 63]! + BASE64_ALPHABET[(n >> 12) & 63]!;
    out += left > 1 ? BASE64_ALPHABET[(n >> 6) & 63]! : "=";
    out += left > 2 ? BASE64_ALPHABET[n & 63]! : "=";
  }
  return out;
}

const isNewline = (c: number): boolean => c === 0x0a || c === 0x0d;

/**
 * base64.StdEncoding.DecodeString: padding is required, `\r` and `\n` are skipped anywhere, and the
 * error names the byte offset Go reports (which matters because Sprig prints the error text).
 */
export function decodeBase64Std(input: string): Uint8Array {
  const src = utf8Bytes(input);
  const out: number[] = [];
  let si = 0;
  for (;;) {
    // Decode one quantum of up to 4 symbols into up to 3 bytes.
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailingGarbageAt = -1;
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        // A partial quantum without padding: StdEncoding requires the padding.
        throw new CorruptInput("base64", si - j);
      }
      const c = src[si++]!;
      const v = B64_MAP[c]!;
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d /* = */) throw new CorruptInput("base64", si - 1);
      // Padding: only valid after 2 or 3 symbols.
      if (j < 2) throw new CorruptInput("base64", si - 1);
      if (j === 2) {
        // "==" is needed; the first '=' is consumed already.
        while (si < src.length && isNewline(src[si]!)) si++;
        if (si === src.length) throw new CorruptInput("base64", src.length);
        if (src[si] !== 0x3d) throw new CorruptInput("base64", si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si]!)) si++;
      if (si < src.length) trailingGarbageAt = si;
      dlen = j;
      break;
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
    if (trailingGarbageAt >= 0) throw new CorruptInput("base64", trailingGarbageAt);
    if (dlen < 4) return Uint8Array.from(out);
  }
}

/** base32.StdEncoding.DecodeString: newlines are stripped first, so offsets count the stripped input. */
export function decodeBase32Std(input: string): Uint8Array {
  const src = utf8Bytes(input).filter((c) => !isNewline(c));
  const olen = src.length;
  const out: number[] = [];
  let pos = 0;
  let end = false;
  while (pos < src.length && !end) {
    const dbuf = [0, 0, 0, 0, 0, 0, 0, 0];
    let dlen = 8;
    for (let j = 0; j < 8; ) {
      if (pos === src.length) throw new CorruptInput("base32", pos - j);
      const c = src[pos++]!;
      const remaining = src.length - pos;
      if (c === 0x3d && j >= 2 && remaining < 8) {
        if (remaining + j < 7) throw new CorruptInput("base32", olen);
        for (let k = 0; k < 7 - j; k++) {
          if (remaining > k && src[pos + k] !== 0x3d) throw new CorruptInput("base32", pos + k - 1);
        }
        dlen = j;
        end = true;
        // 1, 3 and 6 symbols cannot encode a whole byte (RFC 4648 §6).
        if (dlen === 1 || dlen === 3 || dlen === 6) throw new CorruptInput("base32", pos - 1);
        break;
      }
      const v = B32_MAP[c]!;
      if (v < 0) throw new CorruptInput("base32", pos - 1);
      dbuf[j++] = v;
    }
    const [a, b, c, d, e, f, g, h] = dbuf as [number, number, number, number, number, number, number, number];
    const bytes = [
      ((a << 3) | (b >> 2)) & 0xff,
      ((b << 6) | (c << 1) | (d >> 4)) & 0xff,
      ((d << 4) | (e >> 1)) & 0xff,
      ((e << 7) | (f << 2) | (g >> 3)) & 0xff,
      ((g << 5) | h) & 0xff,
    ];
    // Symbols → whole bytes: 2→1, 4→2, 5→3, 7→4, 8→5.
    const n = { 2: 1, 4: 2, 5: 3, 7: 4, 8: 5 }[dlen] ?? 0;
    out.push(...bytes.slice(0, n));
  }
  return Uint8Array.from(out);
}

function encodeBase32Std(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 5) {
    const chunk = bytes.subarray(i, i + 5);
    let bits = 0n;
    for (let k = 0; k < 5; k++) bits = (bits << 8n) | BigInt(chunk[k] ?? 0);
    const symbols = Math.ceil((chunk.length * 8) / 5);
    for (let k = 0; k < 8; k++) {
      out += k < symbols ? B32_ALPHABET[Number((bits >> BigInt(35 - 5 * k)) & 31n)] : "=";
    }
  }
  return out;
}

/** hash/adler32 over the bytes, printed in decimal as Sprig does. */
function adler32(bytes: Uint8Array): number {
  const MOD = 65521;
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % MOD;
    b = (b + a) % MOD;
  }
  return b * 65536 + a;
}

function hexDigest(algorithm: "sha1" | "sha256", s: string): string {
  return bytesToHex((algorithm === "sha1" ? sha1 : sha256)(utf8Bytes(s)));
}

/** Sprig returns the decoder's error text in place of the decoded string. */
function decodeOrErrorText(decode: (s: string) => Uint8Array, s: string): string {
  try {
    return bytesToString(decode(s));
  } catch (e) {
    if (e instanceof CorruptInput) return e.message;
    throw e;
  }
}

export const encodingFuncs: Record<string, GoFunc> = {
  b64enc: goFunc("b64enc", ["string"], (s) => encodeBase64Std(utf8Bytes(s as string)), "string"),
  b64dec: goFunc("b64dec", ["string"], (s) => decodeOrErrorText(decodeBase64Std, s as string), "string"),
  b32enc: goFunc("b32enc", ["string"], (s) => encodeBase32Std(utf8Bytes(s as string)), "string"),
  b32dec: goFunc("b32dec", ["string"], (s) => decodeOrErrorText(decodeBase32Std, s as string), "string"),
  sha1sum: goFunc("sha1sum", ["string"], (s) => hexDigest("sha1", s as string), "string"),
  sha256sum: goFunc("sha256sum", ["string"], (s) => hexDigest("sha256", s as string), "string"),
  adler32sum: goFunc("adler32sum", ["string"], (s) => String(adler32(utf8Bytes(s as string))), "string"),
};
