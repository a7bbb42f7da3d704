/**
 * Go's `fmt` printing (Sprintf, Sprint, Sprintln and the `%v` form) over the template value model.
 *
 * The structure follows Go's printer (print.go): a format string is scanned into flags, width,
 * precision, argument index and verb; each operand is then dispatched by verb and kind here, and
 * written under the directive's flags by the formatter in fmt-format.ts (Go's format.go). Go's error forms (`%!d(string=x)`,
 * `%!d(MISSING)`, `%!(EXTRA ...)`, ...) are reproduced, as are `Error()` / `String()` methods of
 * host objects (see {@link GoObject}).
 *
 * Deviation: Go prints a real memory address for pointers, funcs and `%p`; this module prints the
 * fixed address {@link FAKE_ADDRESS} instead (a nil one prints as Go does).
 */

import { Formatter, MAX_RUNE } from "./fmt-format.js";
import { codePointAtGo, formatFloat, quoteBytes, quoteRune, quoteRuneToASCII } from "./strconv.js";
import {
  Complex,
  GoError,
  type GoFunc,
  type GoObject,
  type GoValue,
  isGoFunc,
  isGoObject,
  kindOf,
  sortedKeys,
  TypedNil,
  TypedNumber,
  typeName,
} from "./value.js";

/** The address printed for any non-nil pointer, map, slice or func (Go would print a real one). */
export const FAKE_ADDRESS = 0xc000010000n;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();
const strictUtf8Decoder = new TextDecoder("utf-8", { fatal: true });
const NO_BYTES = new Uint8Array(0);

/** Go's fmt.Sprintf. */
export function sprintf(format: string, args: readonly GoValue[]): string {
  const p = new Printer();
  p.doPrintf(format, args);
  return p.buf;
}

/** Go's fmt.Sprint: a space goes between operands when neither side is a string. */
export function sprint(args: readonly GoValue[]): string {
  const p = new Printer();
  let prevString = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const isString = typeof arg === "string";
    if (i > 0 && !isString && !prevString) p.buf += " ";
    p.printArg(arg, "v");
    prevString = isString;
  }
  return p.buf;
}

/** Go's fmt.Sprintln: spaces between all operands and a trailing newline. */
export function sprintln(args: readonly GoValue[]): string {
  const p = new Printer();
  for (let i = 0; i < args.length; i++) {
    if (i > 0) p.buf += " ";
    p.printArg(args[i], "v");
  }
  return `${p.buf}\n`;
}

/**
 * What `%v` (and so Sprint of one operand) prints; a missing value prints `<no value>`.
 * Strings, ints, floats and bools take a fast path, since templates print them constantly.
 */
export function formatValue(v: GoValue): string {
  switch (typeof v) {
    case "string":
      return v;
    case "bigint":
      return v.toString();
    case "number":
      return formatFloat(v, "g", -1, 64);
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
      return "<no value>";
  }
  if (v === null) return "<nil>";
  const p = new Printer();
  p.printArg(v, "v");
  return p.buf;
}

/**
 * What text/template prints for `{{.x}}`: like {@link formatValue}, except that a non-nil pointer
 * without an `Error`/`String` method is printed as the value it points to (`{a b}`, not `&{a b}`),
 * because the executor dereferences pointers before printing.
 */
export function formatTemplateValue(v: GoValue): string {
  if (isGoObject(v) && isPointer(v) && !v.goIsNil?.() && !stringMethod(v, "Error") && !stringMethod(v, "String")) {
    const p = new Printer();
    p.printStruct(v, "v", 1);
    return p.buf;
  }
  return formatValue(v);
}

function isPointer(o: GoObject): boolean {
  return o.goTypeName().startsWith("*");
}

/** A zero-argument method returning string (Go's `Error() string` / `String() string`), if any. */
function stringMethod(o: GoObject, name: string): GoFunc | undefined {
  const m = o.goMethod?.(name);
  if (m === undefined || m.params.length !== 0 || m.variadic !== undefined) return undefined;
  if (m.returns !== undefined && m.returns !== "string") return undefined;
  return m;
}

/** One Sprintf/Sprint call: output buffer plus the flags of the directive being printed. */
class Printer extends Formatter {
  /** The operand being printed, for the `%!verb(type=value)` error form. */
  cur: GoValue = null;
  /** Set while printing a bad-verb message, to avoid calling methods inside it. */
  erroring = false;
  panicking = false;
  reordered = false;
  goodArgNum = true;

  // ---------------------------------------------------------------------------------------------
  // The format string

  doPrintf(format: string, args: readonly GoValue[]): void {
    const end = format.length;
    let argNum = 0;
    let afterIndex = false; // the previous item was an index like [3]
    this.reordered = false;
    let i = 0;
    formatLoop: while (i < end) {
      this.goodArgNum = true;
      const pct = format.indexOf("%", i);
      if (pct < 0) {
        this.buf += format.slice(i);
        break;
      }
      if (pct > i) this.buf += format.slice(i, pct);
      i = pct + 1;

      this.clearFlags();
      for (; i < end; i++) {
        const c = format.charCodeAt(i);
        if (c === 0x23) this.sharp = true;
        else if (c === 0x30)
          this.zero = !this.minus; // zero padding only on the left
        else if (c === 0x2b) this.plus = true;
        else if (c === 0x2d) {
          this.minus = true;
          this.zero = false;
        } else if (c === 0x20) this.space = true;
        else {
          // Fast path: a lower-case verb right after the flags.
          if (c >= 0x61 && c <= 0x7a && argNum < args.length) {
            if (c === 0x76) this.setVFlags();
            this.printArg(args[argNum], format[i] as string);
            argNum++;
            i++;
            continue formatLoop;
          }
          break;
        }
      }

      // Argument index, width, precision.
      [argNum, i, afterIndex] = this.argNumber(argNum, format, i, args.length);
      if (i < end && format.charCodeAt(i) === 0x2a /* * */) {
        i++;
        [this.wid, this.widPresent, argNum] = intFromArg(args, argNum);
        if (!this.widPresent) this.buf += "%!(BADWIDTH)";
        if (this.wid < 0) {
          this.wid = -this.wid;
          this.minus = true;
          this.zero = false;
        }
        afterIndex = false;
      } else {
        [this.wid, this.widPresent, i] = parseNum(format, i, end);
        if (afterIndex && this.widPresent) this.goodArgNum = false; // "%[3]2d"
      }
      if (i + 1 < end && format.charCodeAt(i) === 0x2e /* . */) {
        i++;
        if (afterIndex) this.goodArgNum = false; // "%[3].2d"
        [argNum, i, afterIndex] = this.argNumber(argNum, format, i, args.length);
        if (i < end && format.charCodeAt(i) === 0x2a) {
          i++;
          [this.prec, this.precPresent, argNum] = intFromArg(args, argNum);
          if (this.prec < 0) {
            this.prec = 0;
            this.precPresent = false;
          }
          if (!this.precPresent) this.buf += "%!(BADPREC)";
          afterIndex = false;
        } else {
          [this.prec, this.precPresent, i] = parseNum(format, i, end);
          if (!this.precPresent) {
            this.prec = 0;
            this.precPresent = true;
          }
        }
      }
      if (!afterIndex) [argNum, i, afterIndex] = this.argNumber(argNum, format, i, args.length);

      if (i >= end) {
        this.buf += "%!(NOVERB)";
        break;
      }
      const cp = codePointAtGo(format, i);
      i += cp > 0xffff ? 2 : 1;
      const verb = String.fromCodePoint(cp);
      if (verb === "%") {
        this.buf += "%"; // takes no operand and ignores width and precision
      } else if (!this.goodArgNum) {
        this.buf += `%!${verb}(BADINDEX)`;
      } else if (argNum >= args.length) {
        this.buf += `%!${verb}(MISSING)`;
      } else {
        if (verb === "v") this.setVFlags();
        this.printArg(args[argNum], verb);
        argNum++;
      }
    }

    // Unused operands are reported unless the format used explicit indexes.
    if (!this.reordered && argNum < args.length) {
      this.clearFlags();
      this.buf += "%!(EXTRA ";
      for (let k = argNum; k < args.length; k++) {
        if (k > argNum) this.buf += ", ";
        const arg = args[k];
        if (arg === null || arg === undefined) this.buf += "<nil>";
        else {
          this.buf += `${typeName(arg)}=`;
          this.printArg(arg, "v");
        }
      }
      this.buf += ")";
    }
  }

  private setVFlags(): void {
    this.sharpV = this.sharp;
    this.sharp = false;
    this.plusV = this.plus;
    this.plus = false;
  }

  /** An explicit argument index `[n]` at `i`, if any: [argNum, next i, found]. */
  private argNumber(argNum: number, format: string, i: number, numArgs: number): [number, number, boolean] {
    if (i >= format.length || format.charCodeAt(i) !== 0x5b /* [ */) return [argNum, i, false];
    this.reordered = true;
    let index = 0;
    let width = 1;
    let ok = false;
    if (format.length - i >= 3) {
      const close = format.indexOf("]", i + 1);
      if (close >= 0) {
        const [n, isNum, next] = parseNum(format, i + 1, close);
        width = close - i + 1;
        if (isNum && next === close) {
          index = n - 1;
          ok = true;
        }
      }
    }
    if (ok && index >= 0 && index < numArgs) return [index, i + width, true];
    this.goodArgNum = false;
    return [argNum, i + width, ok];
  }

  // ---------------------------------------------------------------------------------------------
  // Operands

  /** Prints one top-level operand. */
  printArg(arg: GoValue, verb: string): void {
    this.cur = arg;
    if (arg === null || arg === undefined) {
      if (verb === "T" || verb === "v") this.pad("<nil>");
      else this.badVerb(verb);
      return;
    }
    if (verb === "T") {
      this.fmtS(typeName(arg));
      return;
    }
    if (verb === "p") {
      this.fmtPointerVerbP(arg);
      return;
    }
    switch (typeof arg) {
      case "string":
        this.fmtString(arg, verb);
        return;
      case "bigint":
        this.fmtInteger(arg, true, verb);
        return;
      case "number":
        this.fmtFloat(arg, 64, verb);
        return;
      case "boolean":
        this.fmtBool(arg, verb);
        return;
    }
    if (arg instanceof TypedNumber) {
      this.printNumber(arg, verb);
      return;
    }
    if (arg instanceof Complex) {
      this.fmtComplex(arg, verb);
      return;
    }
    if (arg instanceof Uint8Array) {
      this.fmtBytes(arg, verb, "[]byte");
      return;
    }
    if (arg instanceof TypedNil && (arg.type === "[]uint8" || arg.type === "[]byte")) {
      this.fmtBytes(NO_BYTES, verb, "[]byte", true);
      return;
    }
    if (!this.handleMethods(arg, verb)) this.printValue(arg, verb, 0);
  }

  /** Prints a value found at `depth` (0 for an operand, more inside containers). */
  private printValue(v: GoValue, verb: string, depth: number): void {
    // Values inside containers may have methods too (an operand's were tried by printArg).
    if (depth > 0 && v !== null && v !== undefined && this.handleMethods(v, verb)) return;
    this.cur = v;
    switch (typeof v) {
      case "string":
        this.fmtString(v, verb);
        return;
      case "bigint":
        this.fmtInteger(v, true, verb);
        return;
      case "number":
        this.fmtFloat(v, 64, verb);
        return;
      case "boolean":
        this.fmtBool(v, verb);
        return;
      case "undefined":
        // A nil interface{} inside a container (a missing value cannot occur there).
        this.buf += this.sharpV ? "interface {}(nil)" : "<nil>";
        return;
    }
    if (v === null) {
      this.buf += this.sharpV ? "interface {}(nil)" : "<nil>";
      return;
    }
    if (v instanceof TypedNumber) {
      this.printNumber(v, verb);
      return;
    }
    if (v instanceof Complex) {
      this.fmtComplex(v, verb);
      return;
    }
    if (v instanceof Uint8Array) {
      if (verb === "s" || verb === "q" || verb === "x" || verb === "X") this.fmtBytes(v, verb, "[]uint8");
      else this.printList(v, "[]uint8", verb, depth);
      return;
    }
    if (Array.isArray(v)) {
      this.printList(v, typeName(v), verb, depth);
      return;
    }
    if (v instanceof TypedNil) {
      this.printTypedNil(v, verb);
      return;
    }
    if (isGoFunc(v)) {
      this.fmtPointer(v, verb, false);
      return;
    }
    if (isGoObject(v)) {
      if (!isPointer(v)) this.printStruct(v, verb, depth);
      else if (v.goIsNil?.()) this.fmtPointer(v, verb, true);
      else if (depth === 0) {
        // A pointer to a struct is shown as &{...} at top level only (Go avoids loops that way).
        this.buf += "&";
        this.printStruct(v, verb, depth + 1);
      } else this.fmtPointer(v, verb, false);
      return;
    }
    this.printMap(v as Record<string, GoValue>, verb, depth);
  }

  /** A complex128 prints as `(re+imi)`, each part with the float verb; the imaginary part always signed. */
  private fmtComplex(c: Complex, verb: string): void {
    if (!"vbgGxXfFeE".includes(verb)) {
      this.badVerb(verb);
      return;
    }
    const oldPlus = this.plus;
    this.buf += "(";
    this.fmtFloat(c.re, 64, verb);
    this.plus = true;
    this.fmtFloat(c.im, 64, verb);
    this.buf += "i)";
    this.plus = oldPlus;
  }

  private printNumber(n: TypedNumber, verb: string): void {
    if (typeof n.value === "bigint") this.fmtInteger(n.value, !n.type.startsWith("u"), verb);
    else this.fmtFloat(n.value, n.type === "float32" ? 32 : 64, verb);
  }

  private printList(v: ArrayLike<unknown>, type: string, verb: string, depth: number): void {
    const bytes = v instanceof Uint8Array;
    const elem = (i: number): GoValue => (bytes ? new TypedNumber("uint8", BigInt(v[i] as number)) : v[i]);
    if (this.sharpV) {
      this.buf += `${type}{`;
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.buf += ", ";
        this.printValue(elem(i), verb, depth + 1);
      }
      this.buf += "}";
      return;
    }
    this.buf += "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) this.buf += " ";
      this.printValue(elem(i), verb, depth + 1);
    }
    this.buf += "]";
  }

  private printMap(m: Record<string, GoValue>, verb: string, depth: number): void {
    const sharpV = this.sharpV;
    this.buf += sharpV ? `${typeName(m)}{` : "map[";
    const keys = sortedKeys(m);
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.buf += sharpV ? ", " : " ";
      const key = keys[i] as string;
      this.cur = key;
      this.fmtString(key, verb);
      this.buf += ":";
      this.printValue(m[key], verb, depth + 1);
    }
    this.buf += sharpV ? "}" : "]";
  }

  /** `{a b}`, `{Name:a Age:b}` with %+v, `pkg.T{Name:"a", Age:b}` with %#v. */
  printStruct(o: GoObject, verb: string, depth: number): void {
    if (this.sharpV) {
      const t = o.goTypeName();
      this.buf += t.startsWith("*") ? t.slice(1) : t;
    }
    this.buf += "{";
    const fields = o.goFields?.() ?? [];
    for (let i = 0; i < fields.length; i++) {
      const [name, value] = fields[i] as readonly [string, GoValue];
      if (i > 0) this.buf += this.sharpV ? ", " : " ";
      if ((this.plusV || this.sharpV) && name !== "") this.buf += `${name}:`;
      this.printValue(value, verb, depth + 1);
    }
    this.buf += "}";
  }

  private printTypedNil(v: TypedNil, verb: string): void {
    const t = v.type;
    if (t.startsWith("map[")) {
      this.buf += this.sharpV ? `${t}(nil)` : "map[]";
    } else if (t.startsWith("[]")) {
      if ((t === "[]uint8" || t === "[]byte") && (verb === "s" || verb === "q" || verb === "x" || verb === "X")) {
        this.fmtBytes(NO_BYTES, verb, t, true);
      } else this.buf += this.sharpV ? `${t}(nil)` : "[]";
    } else this.fmtPointer(v, verb, true);
  }

  /**
   * Go's handling of Error/String (and GoString for %#v) methods: they format the value for the
   * verbs that accept a string. A method that fails on a nil receiver prints `<nil>`.
   */
  private handleMethods(v: GoValue, verb: string): boolean {
    if (this.erroring) return false;
    if (verb === "w") {
      // %w is only meaningful in Errorf; Sprintf reports it as a bad verb.
      this.cur = v;
      this.badVerb(verb);
      return true;
    }
    if (!isGoObject(v) || v.goMethod === undefined) return false;
    if (this.sharpV) {
      const m = stringMethod(v, "GoString");
      if (m === undefined) return false;
      const s = this.callMethod(v, m, verb, "GoString");
      if (s !== undefined) this.fmtS(s);
      return true;
    }
    if (verb !== "v" && verb !== "s" && verb !== "x" && verb !== "X" && verb !== "q") return false;
    let name = "Error";
    let m = stringMethod(v, name);
    if (m === undefined) {
      name = "String";
      m = stringMethod(v, name);
      if (m === undefined) return false;
    }
    const s = this.callMethod(v, m, verb, name);
    if (s !== undefined) this.fmtString(s, verb);
    return true;
  }

  /** Calls a formatting method; on failure prints what Go's catchPanic does and returns undefined. */
  private callMethod(o: GoObject, m: GoFunc, verb: string, name: string): string | undefined {
    let result: GoValue;
    try {
      result = m.fn();
    } catch (e) {
      if (!(e instanceof GoError)) throw e;
      if (isPointer(o) && o.goIsNil?.()) {
        this.buf += "<nil>";
        return undefined;
      }
      if (this.panicking) throw e;
      const saved = this.saveFlags();
      this.clearFlags();
      this.buf += `%!${verb}(PANIC=${name} method: `;
      this.panicking = true;
      this.printArg(e.message, "v");
      this.panicking = false;
      this.buf += ")";
      this.restoreFlags(saved);
      return undefined;
    }
    return typeof result === "string" ? result : formatValue(result);
  }

  private saveFlags(): unknown[] {
    return [
      this.wid,
      this.prec,
      this.widPresent,
      this.precPresent,
      this.minus,
      this.plus,
      this.sharp,
      this.space,
      this.zero,
      this.plusV,
      this.sharpV,
    ];
  }

  private restoreFlags(f: unknown[]): void {
    [
      this.wid,
      this.prec,
      this.widPresent,
      this.precPresent,
      this.minus,
      this.plus,
      this.sharp,
      this.space,
      this.zero,
      this.plusV,
      this.sharpV,
    ] = f as [number, number, boolean, boolean, boolean, boolean, boolean, boolean, boolean, boolean, boolean];
  }

  /** `%!verb(type=value)`: the verb does not apply to the operand. */
  private badVerb(verb: string): void {
    this.erroring = true;
    this.buf += `%!${verb}(`;
    const v = this.cur;
    if (v === null || v === undefined) this.buf += "<nil>";
    else {
      this.buf += `${typeName(v)}=`;
      this.printValue(v, "v", 0);
    }
    this.buf += ")";
    this.erroring = false;
  }

  // ---------------------------------------------------------------------------------------------
  // Kinds

  private fmtBool(v: boolean, verb: string): void {
    if (verb === "t" || verb === "v") this.pad(v ? "true" : "false");
    else this.badVerb(verb);
  }

  /** An integer; `v` is the signed value for signed types and the unsigned one otherwise. */
  private fmtInteger(v: bigint, signed: boolean, verb: string): void {
    switch (verb) {
      case "v":
        if (this.sharpV && !signed) this.fmt0x64(v, true);
        else this.fmtIntegerBase(v, 10, verb, false);
        return;
      case "d":
        this.fmtIntegerBase(v, 10, verb, false);
        return;
      case "b":
        this.fmtIntegerBase(v, 2, verb, false);
        return;
      case "o":
      case "O":
        this.fmtIntegerBase(v, 8, verb, false);
        return;
      case "x":
        this.fmtIntegerBase(v, 16, verb, false);
        return;
      case "X":
        this.fmtIntegerBase(v, 16, verb, true);
        return;
      case "c":
        this.pad(String.fromCodePoint(runeOf(v)));
        return;
      case "q": {
        const r = runeOf(v);
        this.pad(this.plus ? quoteRuneToASCII(r) : quoteRune(r));
        return;
      }
      case "U":
        this.fmtUnicode(BigInt.asUintN(64, v));
        return;
      default:
        this.badVerb(verb);
    }
  }

  private fmtFloat(v: number, size: 32 | 64, verb: string): void {
    switch (verb) {
      case "v":
        this.fmtFloatPrec(v, size, "g", -1);
        return;
      case "b":
      case "g":
      case "G":
      case "x":
      case "X":
        this.fmtFloatPrec(v, size, verb, -1);
        return;
      case "f":
      case "e":
      case "E":
        this.fmtFloatPrec(v, size, verb, 6);
        return;
      case "F":
        this.fmtFloatPrec(v, size, "f", 6);
        return;
      default:
        this.badVerb(verb);
    }
  }

  private fmtString(s: string, verb: string): void {
    switch (verb) {
      case "v":
        if (this.sharpV) this.fmtQ(s);
        else this.fmtS(s);
        return;
      case "s":
        this.fmtS(s);
        return;
      case "x":
        this.fmtHex(utf8Encoder.encode(s), false);
        return;
      case "X":
        this.fmtHex(utf8Encoder.encode(s), true);
        return;
      case "q":
        this.fmtQ(s);
        return;
      default:
        this.badVerb(verb);
    }
  }

  private fmtBytes(b: Uint8Array, verb: string, type: string, isNil = false): void {
    switch (verb) {
      case "v":
      case "d":
        if (this.sharpV) {
          if (isNil) {
            this.buf += `${type}(nil)`;
            return;
          }
          this.buf += `${type}{`;
          for (let i = 0; i < b.length; i++) {
            if (i > 0) this.buf += ", ";
            this.fmt0x64(BigInt(b[i] as number), true);
          }
          this.buf += "}";
        } else {
          this.buf += "[";
          for (let i = 0; i < b.length; i++) {
            if (i > 0) this.buf += " ";
            this.fmtIntegerBase(BigInt(b[i] as number), 10, verb, false);
          }
          this.buf += "]";
        }
        return;
      case "s":
        this.pad(utf8Decoder.decode(this.truncateBytes(b)));
        return;
      case "x":
      case "X":
        this.fmtHex(b, verb === "X");
        return;
      case "q": {
        let s: string | undefined;
        try {
          s = strictUtf8Decoder.decode(b);
        } catch {
          s = undefined;
        }
        if (s !== undefined) this.fmtQ(s);
        else this.pad(quoteBytes(this.truncateBytes(b), this.plus)); // invalid UTF-8: \x escapes, never backquoted
        return;
      }
      default:
        if (isNil) this.printValue(new TypedNil("[]uint8"), verb, 0);
        else this.printValue(b, verb, 0);
    }
  }

  /** A pointer-like value (pointer, func, map, slice): `%p`, `%v`, or its address as an integer. */
  private fmtPointer(v: GoValue, verb: string, isNil: boolean): void {
    const u = isNil ? 0n : FAKE_ADDRESS;
    switch (verb) {
      case "v":
        if (this.sharpV) {
          this.buf += `(${typeName(v)})(`;
          if (u === 0n) this.buf += "nil";
          else this.fmt0x64(u, true);
          this.buf += ")";
        } else if (u === 0n) this.pad("<nil>");
        else this.fmt0x64(u, !this.sharp);
        return;
      case "p":
        this.fmt0x64(u, !this.sharp);
        return;
      case "b":
      case "o":
      case "d":
      case "x":
      case "X":
        this.fmtInteger(u, false, verb);
        return;
      default:
        this.badVerb(verb);
    }
  }

  /** `%p`: only pointers, maps, slices and funcs have an address. */
  private fmtPointerVerbP(v: GoValue): void {
    const k = kindOf(v);
    if (k === "map" || k === "slice" || k === "func" || k === "ptr") {
      const isNil = v instanceof TypedNil || (isGoObject(v) && v.goIsNil?.() === true);
      this.fmtPointer(v, "p", isNil);
    } else this.badVerb("p");
  }
}

/** The rune for %c / %q of an integer: out-of-range values and surrogates become U+FFFD. */
function runeOf(v: bigint): number {
  const u = BigInt.asUintN(64, v);
  if (u > BigInt(MAX_RUNE)) return 0xfffd;
  const r = Number(u);
  return r >= 0xd800 && r <= 0xdfff ? 0xfffd : r;
}

const TOO_LARGE = 1_000_000;

/** Digits at `start`: [value, present, next index]; an absurdly long number counts as absent. */
function parseNum(s: string, start: number, end: number): [number, boolean, number] {
  if (start >= end) return [0, false, end];
  let num = 0;
  let isNum = false;
  let i = start;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    if (num > TOO_LARGE) return [0, false, end];
    num = num * 10 + (c - 0x30);
    isNum = true;
  }
  return [num, isNum, i];
}

/** A `*` width or precision: the operand must be an integer of modest size. */
function intFromArg(args: readonly GoValue[], argNum: number): [number, boolean, number] {
  if (argNum >= args.length) return [0, false, argNum];
  const a = args[argNum];
  let n: bigint | undefined;
  if (typeof a === "bigint") n = a;
  else if (a instanceof TypedNumber && typeof a.value === "bigint") n = a.value;
  if (n === undefined || n > BigInt(TOO_LARGE) || n < BigInt(-TOO_LARGE)) return [0, false, argNum + 1];
  return [Number(n), true, argNum + 1];
}
