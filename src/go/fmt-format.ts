/**
 * The formatting half of Go's fmt (format.go): the flags, width and precision of one directive, and
 * how a number, string or byte slice is written under them (signs, bases, precision, padding,
 * quoting, truncation). Which of these a verb calls, and the error forms, are the printer's
 * (fmt.ts, Go's print.go).
 */

import { canBackquote, decodeRune, type FloatFormat, formatFloat, isPrint, quote, quoteToASCII } from "./strconv.js";

export const MAX_RUNE = 0x10ffff;

/** Code points in `s` (a lone surrogate counts as one, like the U+FFFD it stands for). */
export function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export class Formatter {
  buf = "";

  // Flags, width and precision of the current directive.
  wid = 0;
  prec = 0;
  widPresent = false;
  precPresent = false;
  minus = false;
  plus = false;
  sharp = false;
  space = false;
  zero = false;
  /** %+v and %#v: set instead of plus/sharp, since they mean different, flagless formats. */
  plusV = false;
  sharpV = false;

  clearFlags(): void {
    this.wid = 0;
    this.prec = 0;
    this.widPresent = false;
    this.precPresent = false;
    this.minus = false;
    this.plus = false;
    this.sharp = false;
    this.space = false;
    this.zero = false;
    this.plusV = false;
    this.sharpV = false;
  }

  /** Writes an integer in `base`, honouring precision, zero padding, #, + and space. */
  protected fmtIntegerBase(v: bigint, base: number, verb: string, upper: boolean): void {
    const negative = v < 0n;
    const mag = negative ? -v : v;
    let prec = 0;
    if (this.precPresent) {
      prec = this.prec;
      // Precision 0 and value 0 print nothing but the padding.
      if (prec === 0 && mag === 0n) {
        const oldZero = this.zero;
        this.zero = false;
        this.writePadding(this.wid);
        this.zero = oldZero;
        return;
      }
    } else if (this.zero && this.widPresent) {
      prec = this.wid;
      if (negative || this.plus || this.space) prec--; // leave room for the sign
    }
    let s = mag.toString(base);
    if (upper) s = s.toUpperCase();
    if (s.length < prec) s = "0".repeat(prec - s.length) + s;
    if (this.sharp) {
      if (base === 2) s = `0b${s}`;
      else if (base === 8) {
        if (s.charCodeAt(0) !== 0x30) s = `0${s}`;
      } else if (base === 16) s = (upper ? "0X" : "0x") + s;
    }
    if (verb === "O") s = `0o${s}`;
    if (negative) s = `-${s}`;
    else if (this.plus) s = `+${s}`;
    else if (this.space) s = ` ${s}`;
    // Zero padding was done above through the precision (or is overridden by an explicit one).
    const oldZero = this.zero;
    this.zero = false;
    this.pad(s);
    this.zero = oldZero;
  }

  /** Hexadecimal with or without 0x regardless of the # flag (pointers, %#v of unsigned). */
  protected fmt0x64(v: bigint, leading0x: boolean): void {
    const sharp = this.sharp;
    this.sharp = leading0x;
    this.fmtIntegerBase(v, 16, "v", false);
    this.sharp = sharp;
  }

  /** U+0078, or U+0078 'x' with #. */
  protected fmtUnicode(u: bigint): void {
    const prec = this.precPresent && this.prec > 4 ? this.prec : 4;
    let hex = u.toString(16).toUpperCase();
    if (hex.length < prec) hex = "0".repeat(prec - hex.length) + hex;
    let s = `U+${hex}`;
    if (this.sharp && u <= BigInt(MAX_RUNE) && isPrint(Number(u))) s += ` '${String.fromCodePoint(Number(u))}'`;
    const oldZero = this.zero;
    this.zero = false;
    this.pad(s);
    this.zero = oldZero;
  }

  protected fmtFloatPrec(v: number, size: 32 | 64, verb: FloatFormat, prec: number): void {
    if (this.precPresent) prec = this.prec;
    const num = formatFloat(v, verb, prec, size);
    const n0 = num.charCodeAt(0);
    const signed = n0 === 0x2d /* - */ || n0 === 0x2b; /* + */
    let sign = signed ? (num[0] as string) : "+";
    let body = signed ? num.slice(1) : num;
    if (this.space && sign === "+" && !this.plus) sign = " ";
    const c0 = body.charCodeAt(0);
    if (c0 === 0x49 /* I */ || c0 === 0x4e /* N */) {
      // Infinities and NaN are not numbers to pad with zeros; NaN shows a sign only if asked.
      const oldZero = this.zero;
      this.zero = false;
      this.pad(c0 === 0x4e && !this.space && !this.plus ? body : sign + body);
      this.zero = oldZero;
      return;
    }
    if (this.sharp && verb !== "b") body = this.sharpFloat(body, verb, prec);
    if (this.plus || sign !== "+") {
      // With zero padding the sign goes before the zeros.
      if (this.zero && this.widPresent && this.wid > body.length + 1) {
        this.buf += sign;
        this.writePadding(this.wid - body.length - 1);
        this.buf += body;
        return;
      }
      this.pad(sign + body);
      return;
    }
    this.pad(body);
  }

  /** The # flag for floats: always a decimal point; %g keeps its trailing zeros. */
  protected sharpFloat(body: string, verb: FloatFormat, prec: number): string {
    let digits = 0;
    if (verb === "g" || verb === "G" || verb === "x") digits = prec === -1 ? 6 : prec;
    let tail = "";
    let hasPoint = false;
    let sawNonzero = false;
    for (let i = 0; i < body.length; i++) {
      const c = body[i];
      if (c === ".") hasPoint = true;
      else if (c === "p" || c === "P" || ((c === "e" || c === "E") && verb !== "x" && verb !== "X")) {
        tail = body.slice(i);
        body = body.slice(0, i);
        break;
      } else {
        if (c !== "0") sawNonzero = true;
        if (sawNonzero) digits--; // significant digits after the first non-zero one
      }
    }
    if (!hasPoint) {
      if (body === "0") digits--; // a lone leading 0 counts once
      body += ".";
    }
    if (digits > 0) body += "0".repeat(digits);
    return body + tail;
  }

  /** Bytes as hex pairs: # adds 0x, space separates bytes (each with 0x under #). Precision counts bytes. */
  protected fmtHex(b: Uint8Array, upper: boolean): void {
    let length = b.length;
    if (this.precPresent && this.prec < length) length = this.prec;
    let width = 2 * length;
    if (width <= 0) {
      if (this.widPresent) this.writePadding(this.wid);
      return;
    }
    if (this.space) {
      if (this.sharp) width *= 2;
      width += length - 1;
    } else if (this.sharp) width += 2;
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width);
    const digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    const prefix = upper ? "0X" : "0x";
    let out = this.sharp ? prefix : "";
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) {
        out += " ";
        if (this.sharp) out += prefix;
      }
      const c = b[i] as number;
      out += digits[c >> 4] + digits[c & 0xf];
    }
    this.buf += out;
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width);
  }

  protected fmtS(s: string): void {
    this.pad(this.truncate(s));
  }

  /** A Go string literal: backquoted with # when possible, ASCII-only with +. */
  protected fmtQ(s: string): void {
    s = this.truncate(s);
    if (this.sharp && canBackquote(s)) this.pad(`\`${s}\``);
    else this.pad(this.plus ? quoteToASCII(s) : quote(s));
  }

  /** Cuts `s` to the precision, counted in runes. */
  protected truncate(s: string): string {
    if (!this.precPresent) return s;
    let n = this.prec;
    for (let i = 0; i < s.length; i++) {
      if (n-- <= 0) return s.slice(0, i);
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
    }
    return s;
  }

  protected truncateBytes(b: Uint8Array): Uint8Array {
    if (!this.precPresent) return b;
    let n = this.prec;
    for (let i = 0; i < b.length; ) {
      if (n-- <= 0) return b.subarray(0, i);
      i += (b[i] as number) < 0x80 ? 1 : decodeRune(b, i)[1];
    }
    return b;
  }

  protected writePadding(n: number): void {
    if (n > 0) this.buf += (this.zero ? "0" : " ").repeat(n);
  }

  /** Appends `s` padded to the width (counted in runes), on the left unless the - flag is set. */
  protected pad(s: string): void {
    if (!this.widPresent || this.wid === 0) {
      this.buf += s;
      return;
    }
    const width = this.wid - runeCount(s);
    if (!this.minus) {
      this.writePadding(width);
      this.buf += s;
    } else {
      this.buf += s;
      this.writePadding(width);
    }
  }
}
