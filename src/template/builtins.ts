/**
 * The template language's predefined functions (Go's text/template funcs.go): comparison, `index`,
 * `slice`, `len`, `call`, `not`, the escapers and the print family. `and` / `or` are here for their
 * signatures; the executor runs them itself because they short-circuit.
 *
 * Most take raw values ("value" parameters, Go's reflect.Value): `undefined` is Go's invalid value,
 * `null` a nil interface.
 */

import { sprint, sprintf, sprintln } from "../go/fmt.js";
import { isPrint } from "../go/strconv.js";
import {
  byteLength,
  Complex,
  compareStrings,
  floatValue,
  GO_TYPE,
  GoError,
  type GoFunc,
  type GoValue,
  goFunc,
  intValue,
  isGoFunc,
  isGoObject,
  isMap,
  isTrue,
  kindOf,
  TypedNil,
  TypedNumber,
  typeName,
} from "../go/value.js";

type BasicKind = "bool" | "int" | "uint" | "float" | "string" | "complex" | "invalid";

function basicKind(v: GoValue): BasicKind {
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "float";
    case "string":
      return "string";
  }
  if (v instanceof TypedNumber) return kindOf(v) as "int" | "uint" | "float";
  if (v instanceof Complex) return "complex";
  return "invalid";
}

const errBadComparisonType = "invalid type for comparison";
const errBadComparison = "incompatible types for comparison";
const errNoComparison = "missing argument for comparison";

function intOf(v: GoValue): bigint {
  return intValue(v) as bigint;
}

function floatOf(v: GoValue): number {
  return floatValue(v) as number;
}

/** Go's eq: arg1 == arg2 || arg1 == arg3 ... */
function eq(first: GoValue, ...rest: GoValue[]): boolean {
  if (rest.length === 0) throw new GoError(errNoComparison);
  // A nil interface compares as no value at all (Go looks through the interface first).
  const arg1 = first ?? undefined;
  const k1 = basicKind(arg1);
  for (const other of rest) {
    const arg = other ?? undefined;
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if (k1 === "int" && k2 === "uint") truth = intOf(arg1) >= 0n && intOf(arg1) === intOf(arg);
      else if (k1 === "uint" && k2 === "int") truth = intOf(arg) >= 0n && intOf(arg1) === intOf(arg);
      else if (arg1 !== undefined && arg !== undefined) throw new GoError(errBadComparison);
    } else {
      switch (k1) {
        case "bool":
        case "string":
          truth = arg1 === arg;
          break;
        case "int":
        case "uint":
          truth = intOf(arg1) === intOf(arg);
          break;
        case "float":
          truth = floatOf(arg1) === floatOf(arg);
          break;
        case "complex":
          truth = (arg1 as Complex).re === (arg as Complex).re && (arg1 as Complex).im === (arg as Complex).im;
          break;
        default:
          truth = eqOther(arg1, arg);
      }
    }
    if (truth) return true;
  }
  return false;
}

/**
 * Equality for kinds that are not basic (Go's eq, default case): values of different types must
 * both be comparable; a nil on either side compares by nil-ness; otherwise both must be comparable
 * and equal. Go names the second argument in its messages.
 */
function eqOther(a: GoValue, b: GoValue): boolean {
  if (typeName(a) !== typeName(b) && a !== undefined && b !== undefined && !(comparable(a) && comparable(b))) {
    const show = (v: GoValue, verb: string) => sprintf(verb, [v]);
    throw new GoError(`non-comparable types ${show(a, "%s")}: ${typeName(a)}, ${typeName(b)}: ${show(b, "%v")}`);
  }
  if (isNilValue(a) || isNilValue(b)) return isNilValue(a) === isNilValue(b);
  if (!comparable(b)) throw new GoError(`non-comparable type ${sprintf("%s", [b])}: ${typeName(b)}`);
  return a === b;
}

function comparable(v: GoValue): boolean {
  if (Array.isArray(v) || v instanceof Uint8Array || isGoFunc(v)) return false;
  if (v instanceof TypedNil)
    return !v.type.startsWith("[]") && !v.type.startsWith("map[") && !v.type.startsWith("func");
  if (isMap(v)) return false;
  return true;
}

function isNilValue(v: GoValue): boolean {
  return v === undefined || v === null || v instanceof TypedNil || (isGoObject(v) && v.goIsNil?.() === true);
}

/** Go's lt (and, through it, le, gt, ge). */
function lt(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  if (k1 === "invalid") throw new GoError(errBadComparisonType);
  const k2 = basicKind(b);
  if (k2 === "invalid") throw new GoError(errBadComparisonType);
  if (k1 !== k2) {
    if (k1 === "int" && k2 === "uint") return intOf(a) < 0n || intOf(a) < intOf(b);
    if (k1 === "uint" && k2 === "int") return intOf(b) >= 0n && intOf(a) < intOf(b);
    throw new GoError(errBadComparison);
  }
  switch (k1) {
    case "bool":
    case "complex":
      throw new GoError(errBadComparisonType);
    case "float":
      return floatOf(a) < floatOf(b);
    case "int":
    case "uint":
      return intOf(a) < intOf(b);
    default:
      return compareStrings(a as string, b as string) < 0;
  }
}

function le(a: GoValue, b: GoValue): boolean {
  return lt(a, b) || eq(a, b);
}

/** The length a value would have in Go, for `len`, `index` and `slice`. */
function lengthOf(v: GoValue): number | undefined {
  if (typeof v === "string") return byteLength(v);
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (isMap(v)) return Object.keys(v).length;
  if (v instanceof TypedNil && (v.type.startsWith("[]") || v.type.startsWith("map["))) return 0;
  return undefined;
}

function length(v: GoValue): bigint {
  if (v === undefined) throw new GoError("reflect: call of reflect.Value.Type on zero Value");
  if (v === null || (v instanceof TypedNil && v.type.startsWith("*"))) throw new GoError("len of nil pointer");
  const n = lengthOf(v);
  if (n === undefined) throw new GoError(`len of type ${typeName(v)}`);
  return BigInt(n);
}

/** An index for a slice, array or string (Go's indexArg). */
function indexArg(index: GoValue, cap: number): number {
  const k = basicKind(index);
  if (k !== "int" && k !== "uint") {
    if (index === undefined || index === null) throw new GoError("cannot index slice/array with nil");
    throw new GoError(`cannot index slice/array with type ${typeName(index)}`);
  }
  const x = intOf(index);
  if (x < 0n || x > BigInt(cap)) throw new GoError(`index out of range: ${x}`);
  return Number(x);
}

const utf8 = new TextEncoder();

function index(item: GoValue, ...indexes: GoValue[]): GoValue {
  if (item === undefined || item === null) throw new GoError("index of untyped nil");
  let cur: GoValue = item;
  for (const ix of indexes) {
    if (cur === null || (cur instanceof TypedNil && cur.type.startsWith("*")))
      throw new GoError("index of nil pointer");
    if (typeof cur === "string" || Array.isArray(cur) || cur instanceof Uint8Array) {
      const len = lengthOf(cur) as number;
      const x = indexArg(ix, len);
      if (x === len) throw new GoError(`reflect: ${typeof cur === "string" ? "string" : "slice"} index out of range`);
      if (typeof cur === "string") cur = new TypedNumber("uint8", BigInt(utf8.encode(cur)[x] as number));
      else if (cur instanceof Uint8Array) cur = new TypedNumber("uint8", BigInt(cur[x] as number));
      else cur = cur[x];
    } else if (isMap(cur) || (cur instanceof TypedNil && cur.type.startsWith("map["))) {
      const keyType = mapKeyType(cur);
      if (ix === undefined || ix === null) {
        throw new GoError(`value is nil; should be of type ${keyType}`);
      }
      if (typeName(ix) !== keyType) throw new GoError(`value has type ${typeName(ix)}; should be ${keyType}`);
      if (cur instanceof TypedNil) {
        cur = zeroOfElem(cur.type);
      } else {
        const key = ix as string;
        cur = Object.hasOwn(cur, key) ? (cur as Record<string, GoValue>)[key] : zeroOfElem(mapTypeOf(cur));
      }
    } else {
      throw new GoError(`can't index item of type ${typeName(cur)}`);
    }
  }
  return cur;
}

function mapTypeOf(m: object): string {
  return (m as { [GO_TYPE]?: string })[GO_TYPE] ?? "map[string]interface {}";
}

function mapKeyType(m: object): string {
  const t = m instanceof TypedNil ? m.type : mapTypeOf(m);
  let depth = 0;
  for (let i = 4; i < t.length; i++) {
    if (t[i] === "[") depth++;
    else if (t[i] === "]") {
      if (depth === 0) return t.slice(4, i);
      depth--;
    }
  }
  return "string";
}

/** The zero value of a map type's element, as `index` returns for a missing key. */
function zeroOfElem(mapType: string): GoValue {
  const elem = mapType.slice(mapType.indexOf("]") + 1);
  switch (elem) {
    case "interface {}":
      return null;
    case "string":
      return "";
    case "bool":
      return false;
    case "int":
      return 0n;
    case "float64":
      return 0;
  }
  if (elem.startsWith("[]") || elem.startsWith("map[") || elem.startsWith("*")) return new TypedNil(elem);
  return null;
}

function slice(item: GoValue, ...indexes: GoValue[]): GoValue {
  if (item === undefined || item === null) throw new GoError("slice of untyped nil");
  if (indexes.length > 3) throw new GoError(`too many slice indexes: ${indexes.length}`);
  let cap: number;
  if (typeof item === "string") {
    if (indexes.length === 3) throw new GoError("cannot 3-index slice a string");
    cap = byteLength(item);
  } else if (Array.isArray(item) || item instanceof Uint8Array) {
    cap = item.length;
  } else {
    throw new GoError(`can't slice item of type ${typeName(item)}`);
  }
  const idx = [0, lengthOf(item) as number, cap];
  indexes.forEach((ix, i) => {
    idx[i] = indexArg(ix, cap);
  });
  const [from, to, max] = idx as [number, number, number];
  if (from > to) throw new GoError(`invalid slice index: ${from} > ${to}`);
  if (indexes.length === 3 && to > max) throw new GoError(`invalid slice index: ${to} > ${max}`);
  if (typeof item === "string") {
    return new TextDecoder().decode(utf8.encode(item).slice(from, to));
  }
  const out = item.slice(from, to);
  const type = (item as { [GO_TYPE]?: string })[GO_TYPE];
  if (type) Object.defineProperty(out, GO_TYPE, { value: type, enumerable: false });
  return out;
}

function not(v: GoValue): boolean {
  return !isTrue(v);
}

/** `call fn args...`: calls a func-valued argument. */
function call(fn: GoValue, ...args: GoValue[]): GoValue {
  if (fn === undefined || fn === null) throw new GoError("call of nil");
  if (!isGoFunc(fn)) throw new GoError(`non-function of type ${typeName(fn)}`);
  const fixed = fn.params.length;
  if (fn.variadic !== undefined) {
    if (args.length < fixed) throw new GoError(`wrong number of args: got ${args.length} want at least ${fixed}`);
  } else if (args.length !== fixed) {
    throw new GoError(`wrong number of args: got ${args.length} want ${fixed}`);
  }
  const argv = args.map((a, i) => {
    const t = i < fixed ? (fn.params[i] as string) : (fn.variadic as string);
    if (t === "any" || t === "value") return a === undefined ? null : a;
    if (a === undefined || a === null) throw new GoError(`arg ${i}: value is nil; should be of type ${t}`);
    if (typeName(a) !== t) throw new GoError(`arg ${i}: value has type ${typeName(a)}; should be ${t}`);
    return a;
  });
  return fn.fn(...argv);
}

/** Go's evalArgs for the escapers: one string argument as is, anything else through Sprint. */
function evalArgs(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  // A nil argument has no printable value here (Go's printableValue of an invalid reflect.Value).
  return sprint(args.map((a) => (a === undefined || a === null ? "<no value>" : a)));
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '"': "&#34;",
  "'": "&#39;",
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\0": "\uFFFD",
};

export function htmlEscape(s: string): string {
  return s.replace(/["'&<>\0]/g, (c) => HTML_ESCAPES[c] as string);
}

const JS_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "'": "\\'",
  '"': '\\"',
  "<": "\\u003C",
  ">": "\\u003E",
  "&": "\\u0026",
  "=": "\\u003D",
};

export function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    const simple = JS_ESCAPES[ch];
    if (simple !== undefined) out += simple;
    else if (c < 0x20) out += `\\u00${c.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (c >= 0x80 && !isPrint(c)) out += `\\u${c.toString(16).toUpperCase().padStart(4, "0")}`;
    else out += ch;
  }
  return out;
}

/** url.QueryEscape. */
export function queryEscape(s: string): string {
  let out = "";
  for (const b of utf8.encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The predefined functions, by name. */
export const builtinFuncs: Readonly<Record<string, GoFunc>> = {
  and: goFunc("and", ["value", "...value"], (...a) => a.at(-1), "reflect.Value"),
  or: goFunc("or", ["value", "...value"], (...a) => a.at(-1), "reflect.Value"),
  not: goFunc("not", ["value"], not, "bool"),
  len: goFunc("len", ["value"], length, "(int, error)"),
  index: goFunc("index", ["value", "...value"], index, "(reflect.Value, error)"),
  slice: goFunc("slice", ["value", "...value"], slice, "(reflect.Value, error)"),
  call: goFunc("call", ["value", "...value"], call, "(reflect.Value, error)"),
  eq: goFunc("eq", ["value", "...value"], eq, "(bool, error)"),
  ne: goFunc("ne", ["value", "value"], (a, b) => !eq(a, b), "(bool, error)"),
  lt: goFunc("lt", ["value", "value"], lt, "(bool, error)"),
  le: goFunc("le", ["value", "value"], le, "(bool, error)"),
  gt: goFunc("gt", ["value", "value"], (a, b) => !le(a, b), "(bool, error)"),
  ge: goFunc("ge", ["value", "value"], (a, b) => !lt(a, b), "(bool, error)"),
  html: goFunc("html", ["...any"], (...a) => htmlEscape(evalArgs(a)), "string"),
  js: goFunc("js", ["...any"], (...a) => jsEscape(evalArgs(a)), "string"),
  urlquery: goFunc("urlquery", ["...any"], (...a) => queryEscape(evalArgs(a)), "string"),
  print: goFunc("print", ["...any"], (...a) => sprint(a), "string"),
  printf: goFunc("printf", ["string", "...any"], (f, ...a) => sprintf(f as string, a), "string"),
  println: goFunc("println", ["...any"], (...a) => sprintln(a), "string"),
};
