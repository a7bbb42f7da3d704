/**
 * Reading a command's input: a file, or standard input for `-`, as text: UTF-8, or UTF-16 / UTF-32
 * with a byte-order mark (what PowerShell's `>` writes); the byte-order mark dropped (else it is
 * copied into the output). Anything else is refused rather than passed on garbled. A problem is
 * one line naming the file and `what`.
 */
import { close, open, read, readFile } from "node:fs";

/**
 * A file's bytes, through fs.readFile's callback: node:fs/promises would load the readline and
 * directory modules too, a few milliseconds of a short command's start. Same errors.
 */
export function readFileBytes(path: string): Promise<Buffer> {
  return fsCall<Buffer>((done) => readFile(path, done));
}

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

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

type Encoding = "utf-8" | "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be";

/** How many bytes the longest byte-order mark takes: what is looked at before choosing. */
const BOM_BYTES = 4;

/**
 * Text from bytes that arrive in pieces (a file read in chunks, standard input): the encoding is
 * chosen from the first bytes (a UTF-16 / UTF-32 byte-order mark, else UTF-8), then each piece is
 * decoded as it comes (a character split between pieces is completed by the next one). Throws
 * {@link EncodingError} at the first bytes that are not text of that encoding: NUL bytes without a
 * byte-order mark, bytes that are not UTF-8 (with the line), an unpaired surrogate, a UTF-32 value
 * that is no character, or a last character cut short. {@link decodeText} is this over one piece.
 */
export class TextStreamDecoder {
  private head: Uint8Array | undefined = new Uint8Array(0) as Uint8Array;
  private encoding: Encoding = "utf-8";
  private decoder: TextDecoder | undefined;
  /** Bytes of an unfinished code unit (UTF-16 big-endian, UTF-32). */
  private rest: Uint8Array = new Uint8Array(0);
  /** Bytes decoded so far (UTF-32's message names the byte). */
  private offset = 0;
  /** Line breaks in the text given out so far (the UTF-8 message names the line). */
  private lines = 0;
  private first = true;

  /** The text that `bytes` completes. */
  decode(bytes: Uint8Array): string {
    if (this.head !== undefined) {
      this.head = concat(this.head, bytes);
      if (this.head.length < BOM_BYTES) return "";
      return this.start(false);
    }
    return this.emit(this.decodeMore(bytes, false));
  }

  /** The text of the last bytes; throws when they end inside a character. */
  end(): string {
    if (this.head !== undefined) return this.start(true);
    return this.emit(this.decodeMore(new Uint8Array(0), true));
  }

  private start(last: boolean): string {
    const bytes = this.head as Uint8Array;
    this.head = undefined;
    // UTF-32 first: its little-endian mark starts with UTF-16's.
    let skip = 0;
    if (startsWith(bytes, [0xff, 0xfe, 0, 0])) [this.encoding, skip] = ["utf-32le", 4];
    else if (startsWith(bytes, [0, 0, 0xfe, 0xff])) [this.encoding, skip] = ["utf-32be", 4];
    else if (startsWith(bytes, [0xff, 0xfe])) [this.encoding, skip] = ["utf-16le", 2];
    else if (startsWith(bytes, [0xfe, 0xff])) [this.encoding, skip] = ["utf-16be", 2];
    if (this.encoding.startsWith("utf-16") || this.encoding === "utf-8") {
      this.decoder = new TextDecoder(this.encoding === "utf-8" ? "utf-8" : "utf-16le", { fatal: true });
    }
    return this.emit(this.decodeMore(bytes.subarray(skip), last));
  }

  private decodeMore(bytes: Uint8Array, last: boolean): string {
    switch (this.encoding) {
      case "utf-8":
        return this.decodeUtf8(bytes, last);
      case "utf-16le":
      case "utf-16be":
        return this.decodeUtf16(bytes, last);
      default:
        return this.decodeUtf32(bytes, last);
    }
  }

  private emit(text: string): string {
    let out = text;
    if (this.first && out.length > 0) {
      this.first = false;
      // TextDecoder drops one UTF-8 byte-order mark; a second one would be copied into the output.
      if (this.encoding === "utf-8") out = stripBom(out);
    }
    for (let at = out.indexOf("\n"); at >= 0; at = out.indexOf("\n", at + 1)) this.lines++;
    return out;
  }

  private decodeUtf8(bytes: Uint8Array, last: boolean): string {
    if (bytes.includes(0)) {
      throw new EncodingError(
        "is not UTF-8 text: it holds NUL bytes (UTF-16 or UTF-32 without a byte-order mark?); save it as UTF-8",
      );
    }
    const held = this.rest;
    this.rest = bytes.subarray(bytes.length - incompleteUtf8Tail(bytes));
    try {
      return (this.decoder as TextDecoder).decode(bytes, { stream: !last });
    } catch {
      // The line: lines given out so far, plus those of this piece (after the start of a character
      // the decoder held back from the last one) up to the first invalid byte.
      const line = this.lines + firstInvalidUtf8Line(held.length > 0 ? concat(held, bytes) : bytes);
      throw new EncodingError(`is not UTF-8 text (line ${line}); save it as UTF-8`);
    }
  }

  private decodeUtf16(bytes: Uint8Array, last: boolean): string {
    let le = bytes;
    if (this.encoding === "utf-16be") {
      const all = this.rest.length > 0 ? concat(this.rest, bytes) : bytes;
      const even = all.length - (all.length % 2);
      le = new Uint8Array(last ? all.length : even);
      for (let i = 0; i + 1 < all.length; i += 2) {
        le[i] = all[i + 1] as number;
        le[i + 1] = all[i] as number;
      }
      this.rest = all.subarray(even);
    }
    try {
      return (this.decoder as TextDecoder).decode(le, { stream: !last });
    } catch {
      throw new EncodingError("is not valid UTF-16");
    }
  }

  /** UTF-32 code units (4 bytes each) to text; a value that is no code point is an error. */
  private decodeUtf32(bytes: Uint8Array, last: boolean): string {
    const all = this.rest.length > 0 ? concat(this.rest, bytes) : bytes;
    const whole = all.length - (all.length % 4);
    if (last && whole !== all.length) {
      throw new EncodingError("is not valid UTF-32 (its length is not a multiple of 4)");
    }
    const view = new DataView(all.buffer, all.byteOffset, all.byteLength);
    const littleEndian = this.encoding === "utf-32le";
    let out = "";
    for (let i = 0; i < whole; i += 4) {
      const cp = view.getUint32(i, littleEndian);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        throw new EncodingError(`is not valid UTF-32 (byte ${this.offset + i}: 0x${cp.toString(16)} is no character)`);
      }
      out += String.fromCodePoint(cp);
    }
    this.offset += whole;
    this.rest = all.slice(whole);
    return out;
  }
}

/**
 * The text of `bytes`: UTF-8 (a byte-order mark dropped), or UTF-16 / UTF-32 when a byte-order mark
 * says so. Throws {@link EncodingError} for anything else, e.g. UTF-16 without a byte-order mark
 * (NUL bytes), or Latin-1 (bytes that are not UTF-8).
 */
export function decodeText(bytes: Uint8Array): string {
  const decoder = new TextStreamDecoder();
  return decoder.decode(bytes) + decoder.end();
}

/** How many bytes at the end of `bytes` start a UTF-8 character that the next bytes complete (0-3). */
function incompleteUtf8Tail(bytes: Uint8Array): number {
  for (let k = 1; k <= 3 && k <= bytes.length; k++) {
    const b = bytes[bytes.length - k] as number;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return length > k ? k : 0;
  }
  return 0;
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
      bytes = await readFileBytes(path);
    }
  } catch (e) {
    throw readFailure(e, named);
  }
  try {
    return decodeText(bytes);
  } catch (e) {
    throw decodeFailure(e, path, what);
  }
}

/** A failed read of `named` as the user sees it. */
function readFailure(e: unknown, named: string): InputError {
  if ((e as NodeJS.ErrnoException).code === "EISDIR") return new InputError(`${named}: is a directory`);
  return new InputError(`cannot read ${named}: ${(e as Error).message}`);
}

/** A decoding failure of `path`'s bytes as the user sees it (other errors as they are). */
function decodeFailure(e: unknown, path: string, what: string | undefined): unknown {
  return e instanceof EncodingError ? new InputError(`${encodingSubject(path, what)} ${e.message}`) : e;
}

/** `path`'s name in messages about what it holds (`input (stdin)` for standard input). */
function encodingSubject(path: string, what: string | undefined): string {
  return path === "-" ? `${what ?? "input"} (stdin)` : what === undefined ? path : `${what} ${path}`;
}

/** fs.read's chunk size, as fs.createReadStream's default. */
const CHUNK_BYTES = 64 * 1024;

function fsCall<T>(call: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => call((error, value) => (error ? reject(error) : resolve(value))));
}

/**
 * A file's bytes in chunks, as fs.createReadStream gives them (the same errors: ENOENT at the open,
 * EISDIR at the first read), but through fs's callbacks: the stream class loads node:fs/promises,
 * readline and the directory modules, a few milliseconds of every command's start. The file is
 * closed when the reading ends or is stopped.
 */
async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  const fd = await fsCall<number>((done) => open(path, "r", done));
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      const n = await fsCall<number>((done) => read(fd, buffer, 0, CHUNK_BYTES, null, done));
      if (n === 0) return;
      yield buffer.subarray(0, n);
    }
  } finally {
    await fsCall<void>((done) => close(fd, (error) => done(error, undefined)));
  }
}

/**
 * The text of `path` (`-`: standard input) piece by piece as it is read, decoded as
 * {@link readInputText} decodes the whole: nothing is held but the piece. Errors are
 * readInputText's, thrown when the reading gets to them.
 */
export async function* readInputPieces(
  path: string,
  stdin: AsyncIterable<Uint8Array | string>,
  what?: string,
): AsyncGenerator<string> {
  const named = what === undefined ? path : `${what} ${path}`;
  const decoder = new TextStreamDecoder();
  const decode = (next: () => string) => {
    try {
      return next();
    } catch (e) {
      throw decodeFailure(e, path, what);
    }
  };
  const source: AsyncIterable<Uint8Array | string> = path === "-" ? stdin : fileChunks(path);
  const chunks = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array | string>;
      try {
        next = await chunks.next();
      } catch (e) {
        throw readFailure(e, named);
      }
      if (next.done) break;
      const chunk = next.value;
      const text = decode(() => decoder.decode(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
      if (text !== "") yield text;
    }
  } finally {
    // Stopped early (an error, or a reader that closed stdout): the file is closed.
    await chunks.return?.();
  }
  const last = decode(() => decoder.end());
  if (last !== "") yield last;
}
