// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's string functions (strings.go and the string entries of functions.go, Sprig v3.2.3),
 * plus Sprig's `strval` / `strslice` helpers for other families to reuse.
 *
 * Go strings are UTF-8 byte sequences: lengths and offsets (trunc, substr, abbrev, wrap) count
 * bytes. Where Go would cut a character in half the result is invalid UTF-8; here the broken
 * character decodes to U+FFFD instead.
 */

import { formatValue } from "../../go/fmt.js";
import { quote as goQuote } from "../../go/strconv.js";
import {
  compareStrings,
  GoError,
  type GoFunc,
  type GoValue,
  goFunc,
  isGoObject,
  kindOf,
  newMap,
  TypedNil,
  typeName,
  withGoType,
} from "../../go/value.js";
import { checkResultSize } from "./limits.js";
import { randomInt } from "./random.js";
import {
  abbreviateFull,
  deleteWhiteSpace,
  goTitle,
  goToLower,
  goToUpper,
  initials,
  swapCase,
  toCamelCase,
  toKebabCase,
  toSnakeCase,
  trimSpace,
  uncapitalize,
  wrapCustom,
} from "./strcase.js";

// Go's string([]byte) keeps a leading byte-order mark, so the decoder must not strip it.
const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Calls a zero-argument method of a host object when it has one returning a string. */
function callStringMethod(v: GoValue, name: string): string | undefined {
  if (!isGoObject(v)) return undefined;
  const m = v.goMethod?.(name);
  if (!m || m.params.length > 0 || m.variadic !== undefined) return undefined;
  const out = m.fn();
  return typeof out === "string" ? out : undefined;
}

/** The text of a host object's Error() or String() method (errors first, as Go's type switches test), if it has one. */
export function stringerText(v: GoValue): string | undefined {
  return callStringMethod(v, "Error") ?? callStringMethod(v, "String");
}

/** Sprig's strval: strings and []byte as text, errors and Stringers by their method, anything else with %v. */
export function strval(v: GoValue): string {
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return utf8Decoder.decode(v);
  return stringerText(v) ?? formatValue(v);
}

const isNil = (v: GoValue) => v === null || v === undefined;

/**
 * Sprig's strslice: a []string is returned as it is (the same array, which sortAlpha then sorts
 * in place, as Go does), other slices become their non-nil elements through strval, nil becomes
 * an empty list and any other value a one-element list.
 */
export function strslice(v: GoValue): string[] {
  if (Array.isArray(v)) {
    if (typeName(v) === "[]string") return v as string[];
    return withGoType(v.filter((e) => !isNil(e)).map(strval), "[]string");
  }
  if (v instanceof Uint8Array)
    return withGoType(
      Array.from(v, (b) => String(b)),
      "[]string",
    );
  if (v instanceof TypedNil && kindOf(v) === "slice") return withGoType([], "[]string");
  if (isNil(v)) return withGoType([], "[]string");
  return withGoType([strval(v)], "[]string");
}

// ---- byte-oriented helpers ----------------------------------------------------------------------

const toBytes = (s: string) => Buffer.from(s, "utf8");
const fromBytes = (b: Buffer) => b.toString("utf8");

/** Go's runtime error for a bad string slice expression, as a recovered panic. */
function sliceBoundsError(detail: string): GoError {
  return new GoError(`runtime error: slice bounds out of range ${detail}`);
}

/** Sprig's substring: s[start:end] with its own clamping rules; Go panics on what remains out of range. */
function substr(start: bigint, end: bigint, s: string): string {
  const b = toBytes(s);
  const len = BigInt(b.length);
  if (start < 0n) {
    // s[:end]
    if (end < 0n) throw sliceBoundsError(`[:${end}]`);
    if (end > len) throw sliceBoundsError(`[:${end}] with length ${len}`);
    return fromBytes(b.subarray(0, Number(end)));
  }
  if (end < 0n || end > len) {
    // s[start:]
    if (start > len) throw sliceBoundsError(`[${start}:${len}]`);
    return fromBytes(b.subarray(Number(start)));
  }
  if (start > end) throw sliceBoundsError(`[${start}:${end}]`);
  return fromBytes(b.subarray(Number(start), Number(end)));
}

/** Sprig's trunc: the first c bytes, or for negative c the last -c bytes. */
function trunc(c: bigint, s: string): string {
  const b = toBytes(s);
  const len = BigInt(b.length);
  if (c < 0n && len + c > 0n) return fromBytes(b.subarray(Number(len + c)));
  if (c >= 0n && len > c) return fromBytes(b.subarray(0, Number(c)));
  return s;
}

/** strings.Repeat, with its panics. */
function repeat(s: string, count: bigint): string {
  if (count === 0n) return "";
  if (count < 0n) throw new GoError("strings: negative Repeat count");
  const len = BigInt(Buffer.byteLength(s, "utf8"));
  if (BigInt.asIntN(64, len * count) / count !== len) throw new GoError("strings: Repeat count causes overflow");
  checkResultSize("repeat", BigInt(s.length) * count);
  return s.repeat(Number(count));
}

/** strings.Trim: removes leading and trailing runes found in cutset. */
function trimCutset(s: string, cutset: string): string {
  if (s === "" || cutset === "") return s;
  const set = new Set(Array.from(cutset));
  const cps = Array.from(s);
  let a = 0;
  let b = cps.length;
  while (a < b && set.has(cps[a]!)) a++;
  while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join("");
}

/** strings.Replace(s, old, new, -1); an empty `old` matches before every rune and at the end. */
function replaceAll(s: string, old: string, repl: string): string {
  if (old === repl) return s;
  if (old === "") return repl + Array.from(s).join(repl) + (s === "" ? "" : repl);
  return s.split(old).join(repl);
}

/** strings.SplitN (n < 0: all pieces; n == 0: none); an empty separator splits into runes. */
function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === "") {
    const runes = Array.from(s);
    if (n < 0 || n >= runes.length) return runes;
    return [...runes.slice(0, n - 1), runes.slice(n - 1).join("")];
  }
  const parts = s.split(sep);
  if (n < 0 || n >= parts.length) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** The `map[string]string` Sprig's split and splitn return: keys _0, _1, ... */
function indexedMap(parts: string[]): Record<string, GoValue> {
  const m = newMap();
  parts.forEach((p, i) => {
    m[`_${i}`] = p;
  });
  return withGoType(m, "map[string]string");
}

/** A saturating conversion for counts that only get compared with lengths. */
function clampInt(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (n < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(n);
}

// ---- random strings -----------------------------------------------------------------------------

const ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALPHANUM = DIGITS + ALPHA;
const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");

/**
 * goutils' CryptoRandom* draws uniformly from a code point range and rejects what is not wanted,
 * which amounts to a uniform choice from the wanted set. A negative count gives "" (Sprig drops
 * the error goutils returns).
 */
function randomString(count: bigint, alphabet: string): string {
  if (count <= 0n) return "";
  checkResultSize("rand", count);
  let out = "";
  for (let i = 0n; i < count; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** xstrings.Shuffle: a Fisher-Yates shuffle of the runes. */
function shuffle(s: string): string {
  const runes = Array.from(s);
  for (let i = runes.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [runes[i], runes[j]] = [runes[j]!, runes[i]!];
  }
  return runes.join("");
}

// ---- the function map ---------------------------------------------------------------------------

const S = (v: GoValue) => v as string;
const I = (v: GoValue) => v as bigint;

const nonNil = (args: GoValue[]) => args.filter((a) => !isNil(a));

/** Sprig's sortAlpha: slices are sorted as strings (in Go's byte order), anything else becomes [strval(v)]. */
function sortAlpha(list: GoValue): string[] {
  if (kindOf(list) !== "slice") return withGoType([strval(list)], "[]string");
  const a = strslice(list);
  a.sort(compareStrings);
  return withGoType(a, "[]string");
}

function indent(spaces: bigint, s: string): string {
  if (spaces > 0n) checkResultSize("indent", spaces * BigInt(s.split("\n").length) + BigInt(s.length));
  const pad = repeat(" ", spaces);
  return pad + s.replaceAll("\n", `\n${pad}`);
}

export const stringsFuncs: Record<string, GoFunc> = {
  abbrev: goFunc(
    "abbrev",
    ["int", "string"],
    (width, s) => (I(width) < 4n ? S(s) : abbreviateFull(S(s), 0, clampInt(I(width)))),
    "string",
  ),
  abbrevboth: goFunc(
    "abbrevboth",
    ["int", "int", "string"],
    (left, right, s) => {
      const l = I(left);
      const r = I(right);
      if (r < 4n || (l > 0n && r < 7n)) return S(s);
      return abbreviateFull(S(s), clampInt(l), clampInt(r));
    },
    "string",
  ),
  trunc: goFunc("trunc", ["int", "string"], (c, s) => trunc(I(c), S(s)), "string"),
  trim: goFunc("trim", ["string"], (s) => trimSpace(S(s)), "string"),
  upper: goFunc("upper", ["string"], (s) => goToUpper(S(s)), "string"),
  lower: goFunc("lower", ["string"], (s) => goToLower(S(s)), "string"),
  title: goFunc("title", ["string"], (s) => goTitle(S(s)), "string"),
  untitle: goFunc("untitle", ["string"], (s) => uncapitalize(S(s)), "string"),
  substr: goFunc("substr", ["int", "int", "string"], (a, b, s) => substr(I(a), I(b), S(s)), "string"),
  repeat: goFunc("repeat", ["int", "string"], (count, s) => repeat(S(s), I(count)), "string"),
  trimall: goFunc("trimall", ["string", "string"], (a, b) => trimCutset(S(b), S(a)), "string"),
  trimAll: goFunc("trimAll", ["string", "string"], (a, b) => trimCutset(S(b), S(a)), "string"),
  trimSuffix: goFunc(
    "trimSuffix",
    ["string", "string"],
    (a, b) => (S(b).endsWith(S(a)) ? S(b).slice(0, S(b).length - S(a).length) : S(b)),
    "string",
  ),
  trimPrefix: goFunc(
    "trimPrefix",
    ["string", "string"],
    (a, b) => (S(b).startsWith(S(a)) ? S(b).slice(S(a).length) : S(b)),
    "string",
  ),
  nospace: goFunc("nospace", ["string"], (s) => deleteWhiteSpace(S(s)), "string"),
  initials: goFunc("initials", ["string"], (s) => initials(S(s)), "string"),
  randAlphaNum: goFunc("randAlphaNum", ["int"], (n) => randomString(I(n), ALPHANUM), "string"),
  randAlpha: goFunc("randAlpha", ["int"], (n) => randomString(I(n), ALPHA), "string"),
  randAscii: goFunc("randAscii", ["int"], (n) => randomString(I(n), ASCII), "string"),
  randNumeric: goFunc("randNumeric", ["int"], (n) => randomString(I(n), DIGITS), "string"),
  swapcase: goFunc("swapcase", ["string"], (s) => swapCase(S(s)), "string"),
  shuffle: goFunc("shuffle", ["string"], (s) => shuffle(S(s)), "string"),
  snakecase: goFunc("snakecase", ["string"], (s) => toSnakeCase(S(s)), "string"),
  camelcase: goFunc("camelcase", ["string"], (s) => toCamelCase(S(s)), "string"),
  kebabcase: goFunc("kebabcase", ["string"], (s) => toKebabCase(S(s)), "string"),
  wrap: goFunc("wrap", ["int", "string"], (l, s) => wrapCustom(S(s), clampInt(I(l)), "", false), "string"),
  wrapWith: goFunc(
    "wrapWith",
    ["int", "string", "string"],
    (l, sep, s) => wrapCustom(S(s), clampInt(I(l)), S(sep), true),
    "string",
  ),
  contains: goFunc("contains", ["string", "string"], (sub, s) => S(s).includes(S(sub)), "bool"),
  hasPrefix: goFunc("hasPrefix", ["string", "string"], (p, s) => S(s).startsWith(S(p)), "bool"),
  hasSuffix: goFunc("hasSuffix", ["string", "string"], (p, s) => S(s).endsWith(S(p)), "bool"),
  quote: goFunc(
    "quote",
    ["...any"],
    (...args) =>
      nonNil(args)
        .map((a) => goQuote(strval(a)))
        .join(" "),
    "string",
  ),
  squote: goFunc(
    "squote",
    ["...any"],
    (...args) =>
      nonNil(args)
        .map((a) => `'${formatValue(a)}'`)
        .join(" "),
    "string",
  ),
  cat: goFunc("cat", ["...any"], (...args) => nonNil(args).map(formatValue).join(" "), "string"),
  indent: goFunc("indent", ["int", "string"], (n, s) => indent(I(n), S(s)), "string"),
  nindent: goFunc("nindent", ["int", "string"], (n, s) => `\n${indent(I(n), S(s))}`, "string"),
  replace: goFunc("replace", ["string", "string", "string"], (o, n, s) => replaceAll(S(s), S(o), S(n)), "string"),
  plural: goFunc("plural", ["string", "string", "int"], (one, many, n) => (I(n) === 1n ? one : many), "string"),
  split: goFunc("split", ["string", "string"], (sep, s) => indexedMap(splitN(S(s), S(sep), -1)), "map[string]string"),
  splitList: goFunc(
    "splitList",
    ["string", "string"],
    (sep, s) => withGoType(splitN(S(s), S(sep), -1), "[]string"),
    "[]string",
  ),
  splitn: goFunc(
    "splitn",
    ["string", "int", "string"],
    (sep, n, s) => indexedMap(splitN(S(s), S(sep), clampInt(I(n)))),
    "map[string]string",
  ),
  join: goFunc("join", ["string", "any"], (sep, v) => strslice(v).join(S(sep)), "string"),
  sortAlpha: goFunc("sortAlpha", ["any"], sortAlpha, "[]string"),
};
