/**
 * Sprig's list functions (list.go). Like Sprig, they accept any slice type through reflection
 * ([]interface{}, []string, []int, []byte, ...) and build new []interface{} results.
 *
 * Errors: the `must...` variants return Sprig's error ("Cannot push on type string"); the plain
 * variants panic with the same text, which the template reports identically, so both throw
 * GoError. A nil list makes Sprig's reflect.TypeOf(nil).Kind() dereference nil; that runtime panic
 * is reproduced too. Go's results that are nil slices (`rest` of an empty list) are TypedNil.
 */
import {
  GoError,
  type GoFunc,
  type GoValue,
  goFunc,
  reflectKindName,
  TypedNil,
  TypedNumber,
  typeName,
  withGoType,
} from "../../go/value.js";
import { nilDeref, toInt } from "./cast.js";
import { isEmpty } from "./defaults.js";
import { deepEqual } from "./reflect.js";

const NIL_LIST = (): TypedNil => new TypedNil("[]interface {}");

/** The elements of a slice value as interface{} values, or Sprig's error for other kinds. */
function elements(list: GoValue, message: (kind: string) => string): GoValue[] {
  if (list === null || list === undefined) nilDeref();
  const kind = reflectKindName(list);
  if (kind !== "slice" && kind !== "array") throw new GoError(message(kind));
  if (list instanceof TypedNil) return [];
  if (list instanceof Uint8Array) return Array.from(list, (b) => new TypedNumber("uint8", BigInt(b)));
  return [...(list as GoValue[])];
}

/** Declares a must-variant and its panicking twin, which behave the same once the template reports them. */
function pair(
  name: string,
  mustName: string,
  params: string[],
  fn: (...args: GoValue[]) => GoValue,
  returns: string,
): Record<string, GoFunc> {
  return {
    [name]: goFunc(name, params, fn, returns),
    [mustName]: goFunc(mustName, params, fn, `(${returns}, error)`),
  };
}

function push(list: GoValue, v: GoValue): GoValue[] {
  return [...elements(list, (k) => `Cannot push on type ${k}`), v];
}

function prepend(list: GoValue, v: GoValue): GoValue[] {
  return [v, ...elements(list, (k) => `Cannot prepend on type ${k}`)];
}

/** Go's int(float) on amd64 (MinInt64 when out of range), as chunk's float arithmetic needs. */
function floatToInt(f: number): number {
  return Number.isFinite(f) && Math.abs(f) < 2 ** 63 ? Math.trunc(f) : Number.MIN_SAFE_INTEGER;
}

function makeSlice(n: number): void {
  if (n < 0) throw new GoError("runtime error: makeslice: len out of range");
}

/** Splits into chunks of `size`, with Sprig's float arithmetic (so size 0 fails like Go's makeslice). */
function chunk(size: GoValue, list: GoValue): GoValue[][] {
  const items = elements(list, (k) => `Cannot chunk type ${k}`);
  const n = Number(size as bigint);
  const l = items.length;
  const count = floatToInt(Math.floor((l - 1) / n) + 1);
  makeSlice(count);
  const out: GoValue[][] = [];
  for (let i = 0; i < count; i++) {
    let clen = n;
    if (i === count - 1) {
      clen = floatToInt(Math.floor(l % n));
      if (clen === 0) clen = n;
    }
    makeSlice(clen);
    out.push(items.slice(i * n, i * n + clen));
  }
  return withGoType(out, "[][]interface {}");
}

function first(list: GoValue): GoValue {
  const items = elements(list, (k) => `Cannot find first on type ${k}`);
  return items.length === 0 ? null : items[0];
}

function last(list: GoValue): GoValue {
  const items = elements(list, (k) => `Cannot find last on type ${k}`);
  return items.length === 0 ? null : items[items.length - 1];
}

function rest(list: GoValue): GoValue {
  const items = elements(list, (k) => `Cannot find rest on type ${k}`);
  return items.length === 0 ? NIL_LIST() : items.slice(1);
}

function initial(list: GoValue): GoValue {
  const items = elements(list, (k) => `Cannot find initial on type ${k}`);
  return items.length === 0 ? NIL_LIST() : items.slice(0, -1);
}

function reverse(list: GoValue): GoValue[] {
  return elements(list, (k) => `Cannot find reverse on type ${k}`).reverse();
}

function compact(list: GoValue): GoValue[] {
  return elements(list, (k) => `Cannot compact on type ${k}`).filter((x) => !isEmpty(x));
}

const contains = (haystack: GoValue[], needle: GoValue): boolean => haystack.some((h) => deepEqual(needle, h));

function uniq(list: GoValue): GoValue[] {
  const out: GoValue[] = [];
  for (const x of elements(list, (k) => `Cannot find uniq on type ${k}`)) if (!contains(out, x)) out.push(x);
  return out;
}

function without(list: GoValue, ...omit: GoValue[]): GoValue[] {
  return elements(list, (k) => `Cannot find without on type ${k}`).filter((x) => !contains(omit, x));
}

function has(needle: GoValue, haystack: GoValue): boolean {
  if (haystack === null || haystack === undefined) return false;
  return contains(
    elements(haystack, (k) => `Cannot find has on type ${k}`),
    needle,
  );
}

/** Sprig's slice: list[start:end] keeping the list's type; an empty list gives nil. */
function slice(list: GoValue, ...indices: GoValue[]): GoValue {
  const items = elements(list, (k) => `list should be type of slice or array but ${k}`);
  const l = items.length;
  if (l === 0) return null;
  const start = indices.length > 0 ? toInt(indices[0]) : 0n;
  const end = indices.length < 2 ? BigInt(l) : toInt(indices[1]);
  if (start < 0n || start > end || end > BigInt(l)) {
    throw new GoError("reflect.Value.Slice: slice index out of bounds");
  }
  if (list instanceof Uint8Array) return list.subarray(Number(start), Number(end));
  const out = items.slice(Number(start), Number(end));
  const t = typeName(list);
  return t === "[]interface {}" ? out : withGoType(out, t);
}

function concat(...lists: GoValue[]): GoValue {
  const out: GoValue[] = [];
  for (const list of lists) out.push(...elements(list, (k) => `Cannot concat type ${k} as list`));
  // Sprig appends to a nil slice, which stays nil when nothing was appended.
  return out.length === 0 ? NIL_LIST() : out;
}

export const listsFuncs: Record<string, GoFunc> = {
  tuple: goFunc("tuple", ["...any"], (...v) => [...v], "[]interface {}"),
  list: goFunc("list", ["...any"], (...v) => [...v], "[]interface {}"),
  ...pair("append", "mustAppend", ["any", "any"], push, "[]interface {}"),
  ...pair("push", "mustPush", ["any", "any"], push, "[]interface {}"),
  ...pair("prepend", "mustPrepend", ["any", "any"], prepend, "[]interface {}"),
  ...pair("first", "mustFirst", ["any"], first, "interface {}"),
  ...pair("rest", "mustRest", ["any"], rest, "[]interface {}"),
  ...pair("last", "mustLast", ["any"], last, "interface {}"),
  ...pair("initial", "mustInitial", ["any"], initial, "[]interface {}"),
  ...pair("reverse", "mustReverse", ["any"], reverse, "[]interface {}"),
  ...pair("uniq", "mustUniq", ["any"], uniq, "[]interface {}"),
  ...pair("without", "mustWithout", ["any", "...any"], without, "[]interface {}"),
  ...pair("has", "mustHas", ["any", "any"], has, "bool"),
  ...pair("slice", "mustSlice", ["any", "...any"], slice, "interface {}"),
  concat: goFunc("concat", ["...any"], concat, "interface {}"),
  ...pair("chunk", "mustChunk", ["int", "any"], chunk, "[][]interface {}"),
  ...pair("compact", "mustCompact", ["any"], compact, "[]interface {}"),
};
