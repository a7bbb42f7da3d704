/**
 * Reading Go literals as the template parser needs them: number literals in every Go form
 * (decimal, 0x/0o/0b, legacy octal, underscores, hex floats, imaginary and complex), interpreted and
 * raw strings, and character constants. Errors are the messages Go's parser reports. The number
 * syntax itself is strconv's (ParseInt, ParseUint, ParseFloat in strconv.ts), as in Go's parser.
 */

import { parseFloat64, parseInt64, parseUint64, quote } from "../go/strconv.js";
import type { NumberNode } from "./node.js";

/** A number node's readings: everything of {@link NumberNode} but its place in the tree. */
export type NumberReadings = Omit<NumberNode, "kind" | "pos">;

const TWO_63 = 2n ** 63n;
const TWO_64 = 2n ** 64n;

/**
 * Computes every reading of a number literal that Go's parser accepts, or returns the error message.
 * `complexItem` marks the lexer's `1+2i` form.
 */
export function parseGoNumber(text: string, complexItem: boolean): NumberReadings | string {
  const n: NumberReadings = {
    text,
    isInt: false,
    isUint: false,
    isFloat: false,
    isComplex: false,
    int: 0n,
    uint: 0n,
    float: 0,
    complex: [0, 0],
  };
  if (complexItem) {
    const parts = splitComplex(text);
    if (parts === undefined) return `expected integer`; // Sscan's complaint; the lexer makes this unlikely
    n.isComplex = true;
    n.complex = parts;
    return simplifyComplex(n);
  }
  if (text.endsWith("i")) {
    const f = parseFloat64(text.slice(0, -1));
    if (f.err === undefined) {
      n.isComplex = true;
      n.complex = [0, f.value];
      return simplifyComplex(n);
    }
  }
  const u = parseUint64(text);
  if (u.err === undefined) {
    n.isUint = true;
    n.uint = u.value;
  }
  const i = parseInt64(text);
  if (i.err === undefined) {
    n.isInt = true;
    n.int = i.value;
    if (i.value === 0n) {
      n.isUint = true; // -0
      n.uint = 0n;
    }
  }
  if (n.isInt) {
    n.isFloat = true;
    n.float = Number(n.int);
  } else if (n.isUint) {
    n.isFloat = true;
    n.float = Number(n.uint);
  } else {
    const f = parseFloat64(text);
    if (f.err === undefined) {
      // A float reading of something that looks like an integer means the integer overflowed.
      if (!/[.eEpP]/.test(text)) return `integer overflow: ${quote(text)}`;
      n.isFloat = true;
      n.float = f.value;
      setIntegerReadings(n, f.value);
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) return `illegal number syntax: ${quote(text)}`;
  return n;
}

function setIntegerReadings(n: NumberReadings, f: number): void {
  if (!Number.isInteger(f)) return;
  const b = BigInt(f);
  if (!n.isInt && b >= -TWO_63 && b < TWO_63) {
    n.isInt = true;
    n.int = b;
  }
  if (!n.isUint && b >= 0n && b < TWO_64) {
    n.isUint = true;
    n.uint = b;
  }
}

/** A complex constant with no imaginary part is also a float (and maybe an int). */
function simplifyComplex(n: NumberReadings): NumberReadings {
  const [re, im] = n.complex;
  if (im === 0) {
    n.isFloat = true;
    n.float = re;
    setIntegerReadings(n, re);
  }
  return n;
}

function splitComplex(text: string): [number, number] | undefined {
  if (!text.endsWith("i")) return undefined;
  // The sign that starts the imaginary part is the last + or - not at the start and not after an exponent letter.
  for (let k = text.length - 2; k > 0; k--) {
    const c = text[k];
    if ((c === "+" || c === "-") && !/[eEpP]/.test(text[k - 1] as string)) {
      const re = parseFloat64(text.slice(0, k));
      const im = parseFloat64(text.slice(k, -1));
      return re.err === undefined && im.err === undefined ? [re.value, im.value] : undefined;
    }
  }
  return undefined;
}

/** strconv.Unquote for "..." and `...` literals; undefined on bad syntax. */
export function unquoteString(literal: string): string | undefined {
  const q = literal[0];
  if (literal.length < 2 || literal[literal.length - 1] !== q) return undefined;
  const body = literal.slice(1, -1);
  if (q === "`") return body.includes("`") ? undefined : body.replaceAll("\r", "");
  if (q !== '"') return undefined;
  if (!body.includes("\\")) return body.includes('"') || body.includes("\n") ? undefined : body;
  let out = "";
  for (let i = 0; i < body.length; ) {
    const r = readChar(body, i, '"');
    if (r === undefined) return undefined;
    out += r.value;
    i = r.next;
  }
  return out;
}

/**
 * Reads a character constant like `'a'` or `'\n'` to its code point; "malformed" when more than one
 * character stands between the quotes; undefined on bad syntax.
 */
export function unquoteChar(literal: string): number | "malformed" | undefined {
  const body = literal.slice(1);
  const r = readChar(body, 0, "'");
  if (r === undefined) return undefined;
  if (body.slice(r.next) !== "'") return "malformed";
  return r.code;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
};

/** Reads one (possibly escaped) character of a quoted literal; undefined on bad syntax. */
function readChar(s: string, i: number, q: "'" | '"'): { value: string; code: number; next: number } | undefined {
  const c = s.codePointAt(i);
  if (c === undefined) return undefined;
  const ch = String.fromCodePoint(c);
  if (ch === q || ch === "\n") return undefined;
  if (ch !== "\\") return { value: ch, code: c, next: i + ch.length };
  const e = s[i + 1];
  if (e === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return { value: simple, code: simple.charCodeAt(0), next: i + 2 };
  if (e === q) return { value: q, code: q.charCodeAt(0), next: i + 2 };
  const hexLen = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
  if (hexLen > 0) {
    const digits = s.slice(i + 2, i + 2 + hexLen);
    if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(digits)) return undefined;
    const code = Number.parseInt(digits, 16);
    if (e !== "x" && (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))) return undefined;
    return { value: String.fromCodePoint(code), code, next: i + 2 + hexLen };
  }
  if (e >= "0" && e <= "7") {
    const digits = s.slice(i + 1, i + 4);
    if (!/^[0-7]{3}$/.test(digits)) return undefined;
    const code = Number.parseInt(digits, 8);
    if (code > 255) return undefined;
    return { value: String.fromCharCode(code), code, next: i + 4 };
  }
  return undefined;
}
