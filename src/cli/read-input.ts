/**
 * Reading a command's input: a file, or standard input for `-`, as text: UTF-8, or UTF-16 / UTF-32
 * with a byte-order mark (what PowerShell's `>` writes); the byte-order mark dropped (else it is
 * copied into the output). Anything else is refused rather than passed on garbled. A problem is
 * one line naming the file and `what`.
 */
import { readFile } from "node:fs/promises";

/** A file that cannot be read; the message names it. */
export class InputError extends Error {
  override name = "InputError";
}

/** A leading UTF-8 byte order mark is not part of the text. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Bytes that are not text this reader takes; the message says what they look like. */
export class EncodingError extends Error {
  override name = "EncodingError";
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((b, i) => bytes[i] === b);

/** UTF-32 code units (4 bytes each) to text; a value that is no code point is an error. */
function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  if (bytes.length % 4 !== 0) throw new EncodingError("is not valid UTF-32 (its length is not a multiple of 4)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = "";
  for (let i = 0; i < bytes.length; i += 4) {
    const cp = view.getUint32(i, littleEndian);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      throw new EncodingError(`is not valid UTF-32 (byte ${i}: 0x${cp.toString(16)} is no character)`);
    }
    out += String.fromCodePoint(cp);
  }
  return out;
}

/** UTF-16 text from bytes; `fatal` refuses unpaired surrogates. */
function decodeUtf16(bytes: Uint8Array, littleEndian: boolean): string {
  let le = bytes;
  if (!littleEndian) {
    le = new Uint8Array(bytes.length);
    for (let i = 0; i + 1 < bytes.length; i += 2) {
      le[i] = bytes[i + 1] as number;
      le[i + 1] = bytes[i] as number;
    }
  }
  try {
    return new TextDecoder("utf-16le", { fatal: true }).decode(le);
  } catch {
    throw new EncodingError("is not valid UTF-16");
  }
}

/**
 * The text of `bytes`: UTF-8 (a byte-order mark dropped), or UTF-16 / UTF-32 when a byte-order mark
 * says so. Throws {@link EncodingError} for anything else, e.g. UTF-16 without a byte-order mark
 * (NUL bytes), or Latin-1 (bytes that are not UTF-8).
 */
export function decodeText(bytes: Uint8Array): string {
  // UTF-32 first: its little-endian mark starts with UTF-16's.
  if (startsWith(bytes, [0xff, 0xfe, 0, 0])) return decodeUtf32(bytes.subarray(4), true);
  if (startsWith(bytes, [0, 0, 0xfe, 0xff])) return decodeUtf32(bytes.subarray(4), false);
  if (startsWith(bytes, [0xff, 0xfe])) return decodeUtf16(bytes.subarray(2), true);
  if (startsWith(bytes, [0xfe, 0xff])) return decodeUtf16(bytes.subarray(2), false);
  if (bytes.includes(0)) {
    throw new EncodingError(
      "is not UTF-8 text: it holds NUL bytes (UTF-16 or UTF-32 without a byte-order mark?); save it as UTF-8",
    );
  }
  try {
    return stripBom(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new EncodingError(`is not UTF-8 text (line ${firstInvalidUtf8Line(bytes)}); save it as UTF-8`);
  }
}

/** The line of the first byte that is not valid UTF-8 (for the message). */
function firstInvalidUtf8Line(bytes: Uint8Array): number {
  // Lossy decoding marks invalid bytes with U+FFFD; a U+FFFD of the text itself would come first
  // only if the file also held one, which is rare enough for a hint.
  const lossy = new TextDecoder("utf-8").decode(bytes);
  const at = lossy.indexOf("\ufffd");
  return lossy.slice(0, Math.max(at, 0)).split("\n").length;
}

/**
 * The text of `path` (`-`: standard input, `stdin`); `what` ("input", "values file") names it in
 * errors.
 */
export async function readInputText(
  path: string,
  stdin: AsyncIterable<Uint8Array | string>,
  what?: string,
): Promise<string> {
  const named = what === undefined ? path : `${what} ${path}`;
  let bytes: Uint8Array;
  try {
    if (path === "-") {
      const chunks: Uint8Array[] = [];
      for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      bytes = Buffer.concat(chunks);
    } else {
      bytes = await readFile(path);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EISDIR") throw new InputError(`${named}: is a directory`);
    throw new InputError(`cannot read ${named}: ${(e as Error).message}`);
  }
  try {
    return decodeText(bytes);
  } catch (e) {
    if (e instanceof EncodingError)
      throw new InputError(`${path === "-" ? `${what ?? "input"} (stdin)` : named} ${e.message}`);
    throw e;
  }
}
