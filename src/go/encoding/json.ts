/**
 * Go's encoding/json as Sprig and Helm call it, over the Go value model: Marshal (HTML-escaping
 * `<`, `>`, `&`), MarshalIndent, an Encoder without HTML escaping, and Unmarshal into interface{}
 * (numbers become float64). Output and error texts follow Go's, including its scanner's
 * "invalid character ..." messages.
 */
import { formatFloat, quote } from "../strconv.js";
import {
  Complex,
  GoError,
  type GoValue,
  isGoFunc,
  isGoObject,
  isMap,
  newMap,
  sortedKeys,
  TypedNil,
  TypedNumber,
  typeName,
} from "../value.js";

// ---- encoding ----------------------------------------------------------------------------------

export interface EncodeOptions {
  escapeHTML: boolean;
  /** Indent unit for MarshalIndent; undefined for compact output. */
  indent?: string;
}

/** json.Marshal / MarshalIndent / Encoder.Encode of a value; throws GoError with Go's error text. */
export function encodeJSON(v: GoValue, opts: EncodeOptions): string {
  return encodeValue(v, opts, "", new Set());
}

function encodeValue(v: GoValue, opts: EncodeOptions, indent: string, path: Set<object>): string {
  switch (typeof v) {
    case "undefined":
      return "null";
    case "string":
      return encodeString(v, opts.escapeHTML);
    case "boolean":
    case "bigint":
      return String(v);
    case "number":
      return encodeFloat(v, 64);
    case "object": {
      if (v === null || v instanceof TypedNil) return "null";
      if (v instanceof TypedNumber) {
        return typeof v.value === "bigint" ? v.value.toString() : encodeFloat(v.value, 32);
      }
      if (v instanceof Uint8Array) return `"${Buffer.from(v).toString("base64")}"`;
      if (isGoFunc(v) || v instanceof Complex) throw new GoError(`json: unsupported type: ${typeName(v)}`);
      if (path.has(v)) {
        throw new GoError(`json: unsupported value: encountered a cycle via ${typeName(v)}`);
      }
      path.add(v);
      try {
        if (Array.isArray(v)) {
          return encodeList(
            v.map((x) => (inner: string) => encodeValue(x, opts, inner, path)),
            "[",
            "]",
            opts,
            indent,
          );
        }
        if (isGoObject(v)) return encodeObject(v, opts, indent, path);
        if (isMap(v)) {
          const sep = opts.indent === undefined ? ":" : ": ";
          const parts = sortedKeys(v).map(
            (k) => (inner: string) => encodeString(k, opts.escapeHTML) + sep + encodeValue(v[k], opts, inner, path),
          );
          return encodeList(parts, "{", "}", opts, indent);
        }
        return "null";
      } finally {
        path.delete(v);
      }
    }
    default:
      return "null";
  }
}

/** Host structs: a MarshalJSON method wins (time.Time has one), else the exported fields in order. */
function encodeObject(v: GoValue & object, opts: EncodeOptions, indent: string, path: Set<object>): string {
  if (!isGoObject(v)) return "null";
  const marshal = v.goMethod?.("MarshalJSON");
  if (marshal) {
    const out = marshal.fn();
    return typeof out === "string" ? out : Buffer.from(out as Uint8Array).toString("utf8");
  }
  if (v.goIsNil?.()) return "null";
  const sep = opts.indent === undefined ? ":" : ": ";
  const fields = (v.goFields?.() ?? []).filter(([name]) => /^\p{Lu}/u.test(name));
  const parts = fields.map(
    ([name, x]) =>
      (inner: string) =>
        encodeString(name, opts.escapeHTML) + sep + encodeValue(x, opts, inner, path),
  );
  return encodeList(parts, "{", "}", opts, indent);
}

function encodeList(
  parts: Array<(inner: string) => string>,
  open: string,
  close: string,
  opts: EncodeOptions,
  indent: string,
): string {
  if (parts.length === 0) return open + close;
  if (opts.indent === undefined) return open + parts.map((p) => p("")).join(",") + close;
  const inner = indent + opts.indent;
  return `${open}\n${parts.map((p) => inner + p(inner)).join(",\n")}\n${indent}${close}`;
}

/** encoding/json's float format: 'f' for 1e-6 <= |f| < 1e21, else 'e' with a one-digit negative exponent kept short. */
function encodeFloat(f: number, bits: 32 | 64): string {
  if (!Number.isFinite(f)) throw new GoError(`json: unsupported value: ${formatFloat(f, "g", -1, bits)}`);
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    return formatFloat(f, "e", -1, bits).replace(/e-0(\d)$/, "e-$1");
  }
  return formatFloat(f, "f", -1, bits);
}

const HEX = "0123456789abcdef";

/** A JSON string literal as encoding/json writes it. */
export function encodeString(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      // A valid surrogate pair is one character; a lone surrogate is invalid UTF-8 to Go: U+FFFD.
      const d = s.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
      } else out += "\\ufffd";
      continue;
    }
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c < 0x20 || c === 0x2028 || c === 0x2029 || (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26))) {
      out += `\\u${c === 0x2028 ? "2028" : c === 0x2029 ? "2029" : `00${HEX[c >> 4]}${HEX[c & 15]}`}`;
    } else out += s[i];
  }
  return `${out}"`;
}

// ---- decoding ----------------------------------------------------------------------------------

const MAX_DEPTH = 10000;

/**
 * json.Unmarshal into interface{}: objects become maps, numbers float64. Syntax errors carry the
 * message Go's scanner gives for the first offending character (at the end of input, Go's scanner
 * feeds a space, hence "invalid character ' ' in literal true").
 */
export function decodeJSON(text: string): GoValue {
  return new Decoder(text).decode();
}

class Decoder {
  private i = 0;
  private depth = 0;
  private rangeError: string | undefined;

  constructor(private readonly s: string) {}

  decode(): GoValue {
    this.skipSpace();
    const v = this.value();
    this.skipSpace();
    if (this.i < this.s.length) this.fail(this.i, "after top-level value");
    if (this.rangeError !== undefined) {
      throw new GoError(`json: cannot unmarshal number ${this.rangeError} into Go value of type float64`);
    }
    return v;
  }

  private fail(at: number, context: string): never {
    if (at >= this.s.length) {
      // Go's scanner ends input by stepping a space; where a space is legal that is a plain EOF.
      if (context === "") throw new GoError("unexpected end of JSON input");
      throw new GoError(`invalid character ' ' ${context}`);
    }
    throw new GoError(`invalid character ${quoteChar(this.s, at)} ${context}`);
  }

  private skipSpace(): void {
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") this.i++;
      else break;
    }
  }

  private value(): GoValue {
    if (this.i >= this.s.length) this.fail(this.i, "");
    const c = this.s[this.i];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        if (c === "-" || (c >= "0" && c <= "9")) return this.number();
        return this.fail(this.i, "looking for beginning of value");
    }
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw new GoError("exceeded max depth");
  }

  private object(): GoValue {
    this.enter();
    this.i++;
    const m = newMap();
    this.skipSpace();
    if (this.s[this.i] === "}") {
      this.i++;
      this.depth--;
      return m;
    }
    for (;;) {
      this.skipSpace();
      if (this.i >= this.s.length) this.fail(this.i, "");
      if (this.s[this.i] !== '"') this.fail(this.i, "looking for beginning of object key string");
      const key = this.string();
      this.skipSpace();
      if (this.i >= this.s.length) this.fail(this.i, "");
      if (this.s[this.i] !== ":") this.fail(this.i, "after object key");
      this.i++;
      this.skipSpace();
      m[key] = this.value();
      this.skipSpace();
      if (this.i >= this.s.length) this.fail(this.i, "");
      const c = this.s[this.i++];
      if (c === "}") break;
      if (c !== ",") this.fail(this.i - 1, "after object key:value pair");
    }
    this.depth--;
    return m;
  }

  private array(): GoValue {
    this.enter();
    this.i++;
    const out: GoValue[] = [];
    this.skipSpace();
    if (this.s[this.i] === "]") {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value());
      this.skipSpace();
      if (this.i >= this.s.length) this.fail(this.i, "");
      const c = this.s[this.i++];
      if (c === "]") break;
      if (c !== ",") this.fail(this.i - 1, "after array element");
    }
    this.depth--;
    return out;
  }

  private literal(word: string, v: GoValue): GoValue {
    for (let k = 1; k < word.length; k++) {
      const at = this.i + k;
      if (this.s[at] !== word[k]) this.fail(at, `in literal ${word} (expecting '${word[k]}')`);
    }
    this.i += word.length;
    return v;
  }

  private number(): GoValue {
    const s = this.s;
    const start = this.i;
    const isDigit = (at: number) => at < s.length && s[at] >= "0" && s[at] <= "9";
    if (s[this.i] === "-") {
      this.i++;
      if (!isDigit(this.i)) this.fail(this.i, "in numeric literal");
    }
    if (s[this.i] === "0") this.i++;
    else while (isDigit(this.i)) this.i++;
    if (s[this.i] === ".") {
      this.i++;
      if (!isDigit(this.i)) this.fail(this.i, "after decimal point in numeric literal");
      while (isDigit(this.i)) this.i++;
    }
    if (s[this.i] === "e" || s[this.i] === "E") {
      this.i++;
      if (s[this.i] === "+" || s[this.i] === "-") this.i++;
      if (!isDigit(this.i)) this.fail(this.i, "in exponent of numeric literal");
      while (isDigit(this.i)) this.i++;
    }
    const lit = s.slice(start, this.i);
    const f = Number(lit);
    if (!Number.isFinite(f)) {
      this.rangeError ??= lit;
      return null;
    }
    return f;
  }

  private string(): string {
    const s = this.s;
    this.i++;
    let out = "";
    for (;;) {
      if (this.i >= s.length) this.fail(this.i, "");
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail(this.i, "in string literal");
      if (c !== 0x5c) {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = s.charCodeAt(this.i + 1);
          if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
            out += s.slice(this.i, this.i + 2);
            this.i += 2;
          } else {
            out += "\ufffd";
            this.i++;
          }
          continue;
        }
        out += s[this.i++];
        continue;
      }
      this.i++;
      if (this.i >= s.length) this.fail(this.i, "");
      const e = s[this.i++];
      const simple: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (e in simple) {
        out += simple[e];
        continue;
      }
      if (e !== "u") this.fail(this.i - 1, "in string escape code");
      const hi = this.hex4();
      if (hi >= 0xd800 && hi <= 0xdbff && s[this.i] === "\\" && s[this.i + 1] === "u") {
        // A surrogate pair spelled as two escapes.
        const save = this.i;
        this.i += 2;
        const lo = this.hex4();
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          out += String.fromCharCode(hi, lo);
          continue;
        }
        this.i = save;
      }
      out += hi >= 0xd800 && hi <= 0xdfff ? "\ufffd" : String.fromCharCode(hi);
    }
  }

  private hex4(): number {
    let n = 0;
    for (let k = 0; k < 4; k++) {
      if (this.i >= this.s.length) this.fail(this.i, "");
      const c = this.s[this.i];
      if (!/[0-9a-fA-F]/.test(c)) this.fail(this.i, "in \\u hexadecimal character escape");
      n = n * 16 + Number.parseInt(c, 16);
      this.i++;
    }
    return n;
  }
}

/**
 * The scanner's quoteChar. Go scans bytes, so a non-ASCII character shows as its first UTF-8 byte
 * read as a Latin-1 rune (é appears as 'Ã').
 */
function quoteChar(s: string, at: number): string {
  const cp = s.codePointAt(at) ?? 0;
  const byte = cp < 0x80 ? cp : Buffer.from(String.fromCodePoint(cp), "utf8")[0];
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return "'\"'";
  const q = quote(String.fromCharCode(byte));
  return `'${q.slice(1, -1)}'`;
}
