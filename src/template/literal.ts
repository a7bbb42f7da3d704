/**
 * Reading Go number literals as the template parser needs them, in every Go form (decimal,
 * 0x/0o/0b, legacy octal, underscores, hex floats, imaginary and complex). Errors are the messages
 * Go's parser reports. The number syntax itself is strconv's (ParseInt, ParseUint, ParseFloat in
 * strconv.ts), as in Go's parser; string and character literals are strconv.Unquote's
 * (../go/unquote.ts).
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
