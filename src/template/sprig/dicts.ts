/**
 * Sprig's dict functions (dict.go). Dicts are map[string]interface{}; `set`, `unset` and the merge
 * functions mutate their first argument, as in Go.
 *
 * merge/mergeOverwrite follow mergo v0.3 on maps (see `mergeInto`). Go iterates maps in random
 * order, so `keys` and `values` have no defined order there; here they follow sorted key order.
 */
import {
  GoError,
  type GoFunc,
  type GoValue,
  goFunc,
  isGoObject,
  isMap,
  mapGet,
  newMap,
  reflectKindName,
  sortedKeys,
  TypedNil,
  TypedNumber,
  typeName,
  withGoType,
} from "../../go/value.js";
import { strval } from "./strings.js";

type GoMap = Record<string, GoValue>;

/** A map value that can hold entries (not a nil map). */
const isLiveMap = (v: GoValue): v is GoMap => isMap(v);

function dict(...v: GoValue[]): GoMap {
  const d = newMap();
  for (let i = 0; i < v.length; i += 2) {
    d[strval(v[i])] = i + 1 < v.length ? v[i + 1] : "";
  }
  return d;
}

function keys(...dicts: GoValue[]): string[] {
  const out: string[] = [];
  for (const d of dicts) if (isLiveMap(d)) out.push(...sortedKeys(d));
  return withGoType(out, "[]string");
}

function pick(d: GoValue, ...ks: GoValue[]): GoMap {
  const res = newMap();
  if (!isLiveMap(d)) return res;
  for (const k of ks as string[]) if (Object.hasOwn(d, k)) res[k] = d[k];
  return res;
}

function omit(d: GoValue, ...ks: GoValue[]): GoMap {
  const res = newMap();
  if (!isLiveMap(d)) return res;
  const drop = new Set(ks as string[]);
  for (const k of Object.keys(d)) if (!drop.has(k)) res[k] = d[k];
  return res;
}

/** mergo's isEmptyValue: zero values, empty containers, nil; structs never, non-nil pointers by their struct. */
function mergoEmpty(v: GoValue): boolean {
  if (v === null || v === undefined || v instanceof TypedNil) return true;
  switch (typeof v) {
    case "string":
      return v === "";
    case "boolean":
      return !v;
    case "bigint":
      return v === 0n;
    case "number":
      return v === 0;
  }
  if (v instanceof TypedNumber) return v.value === 0n || v.value === 0;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (isGoObject(v)) return !!v.goIsNil?.();
  if (isMap(v)) return Object.keys(v).length === 0;
  return false;
}

/**
 * mergo.Merge(&dst, src) (overwrite=false) / MergeWithOverwrite (overwrite=true) for maps:
 * - nested maps merge recursively into the destination's map when both sides hold maps;
 * - a non-empty destination value is kept unless overwriting, but a map or slice from src never
 *   replaces a non-empty destination value, even when overwriting — except that slices do replace
 *   when overwriting (mergo assigns them before that check);
 * - a nil src value clears the destination only when overwriting; empty src values still overwrite.
 */
function mergeInto(dst: GoMap, src: GoMap, overwrite: boolean): void {
  const srcEmpty = Object.keys(src).length === 0;
  for (const key of sortedKeys(src)) {
    const s = src[key];
    const present = Object.hasOwn(dst, key);
    const d = present ? dst[key] : undefined;
    if (s === null || s === undefined) {
      if (overwrite) dst[key] = null;
      continue;
    }
    const kind = reflectKindName(s);
    if (kind === "map") {
      if (present && isLiveMap(d) && isLiveMap(s)) mergeInto(d, s, overwrite);
    } else if (kind === "slice") {
      // mergo tests emptiness of the enclosing maps here, not of the elements.
      let slice: GoValue = !present || d === null ? emptyLike(s) : d;
      if (!srcEmpty && (overwrite || Object.keys(dst).length === 0)) slice = s;
      dst[key] = slice;
    }
    if (present && !mergoEmpty(d) && (kind === "map" || kind === "slice")) continue;
    if (overwrite || !present || mergoEmpty(d)) dst[key] = s;
  }
}

/** reflect.MakeSlice(type of s, 0, ...). */
function emptyLike(s: GoValue): GoValue {
  if (s instanceof Uint8Array) return new Uint8Array(0);
  const t = typeName(s);
  return t === "[]interface {}" ? [] : withGoType([], t);
}

function merge(overwrite: boolean) {
  return (dst: GoValue, ...srcs: GoValue[]): GoValue => {
    // A nil destination map is replaced by a fresh one (mergo can set it through the pointer).
    let target: GoMap | undefined = isLiveMap(dst) ? dst : undefined;
    for (const src of srcs) {
      if (!isLiveMap(src)) continue;
      target ??= newMap();
      mergeInto(target, src, overwrite);
    }
    return target ?? dst;
  };
}

/** copystructure.Copy: maps and slices are copied deeply; other values are immutable or shared. */
function deepCopy(v: GoValue): GoValue {
  if (v === null || v === undefined) throw new GoError("reflect: call of reflect.Value.Type on zero Value");
  return copyValue(v);
}

function copyValue(v: GoValue): GoValue {
  if (v instanceof Uint8Array) return withSameType(v, Uint8Array.from(v));
  if (Array.isArray(v)) return withSameType(v, v.map(copyValue));
  if (isMap(v)) {
    const out = newMap();
    for (const k of Object.keys(v)) out[k] = copyValue(v[k]);
    return withSameType(v, out);
  }
  return v;
}

function withSameType<T extends object>(orig: GoValue, copy: T): T {
  const t = typeName(orig);
  return t === "[]interface {}" || t === "map[string]interface {}" || t === "[]uint8" ? copy : withGoType(copy, t);
}

/** Go's panic text for a failed interface type assertion `x.(T)`. */
function assertionError(v: GoValue, want: string): GoError {
  const have = v === null || v === undefined ? "nil" : typeName(v);
  return new GoError(`interface conversion: interface {} is ${have}, not ${want}`);
}

function dig(...ps: GoValue[]): GoValue {
  if (ps.length < 3) throw new GoError("dig needs at least three arguments");
  const d = ps[ps.length - 1];
  if (!isMap(d) || typeName(d) !== "map[string]interface {}") throw assertionError(d, "map[string]interface {}");
  const def = ps[ps.length - 2];
  const path = ps.slice(0, -2).map((k) => {
    if (typeof k !== "string") throw assertionError(k, "string");
    return k;
  });
  let cur: GoMap = d;
  for (let i = 0; ; i++) {
    if (!Object.hasOwn(cur, path[i])) return def;
    const step = cur[path[i]];
    if (i === path.length - 1) return step;
    if (!isMap(step) || typeName(step) !== "map[string]interface {}")
      throw assertionError(step, "map[string]interface {}");
    cur = step;
  }
}

const MAP = "map[string]interface {}";

export const dictsFuncs: Record<string, GoFunc> = {
  dict: goFunc("dict", ["...any"], dict, MAP),
  get: goFunc(
    "get",
    [MAP, "string"],
    (d, key) => {
      const v = isLiveMap(d) ? mapGet(d, key as string) : undefined;
      return v === undefined ? "" : v;
    },
    "interface {}",
  ),
  set: goFunc(
    "set",
    [MAP, "string", "any"],
    (d, key, value) => {
      // Assigning into a nil map is a Go runtime panic.
      if (!isLiveMap(d)) throw new GoError("assignment to entry in nil map");
      d[key as string] = value;
      return d;
    },
    MAP,
  ),
  unset: goFunc(
    "unset",
    [MAP, "string"],
    (d, key) => {
      if (isLiveMap(d)) delete d[key as string];
      return d;
    },
    MAP,
  ),
  hasKey: goFunc("hasKey", [MAP, "string"], (d, key) => isLiveMap(d) && Object.hasOwn(d, key as string), "bool"),
  pluck: goFunc(
    "pluck",
    ["string", `...${MAP}`],
    (key, ...ds) => {
      const out: GoValue[] = [];
      for (const d of ds) if (isLiveMap(d) && Object.hasOwn(d, key as string)) out.push(d[key as string]);
      return out;
    },
    "[]interface {}",
  ),
  keys: goFunc("keys", [`...${MAP}`], keys, "[]string"),
  pick: goFunc("pick", [MAP, "...string"], pick, MAP),
  omit: goFunc("omit", [MAP, "...string"], omit, MAP),
  merge: goFunc("merge", [MAP, `...${MAP}`], merge(false), "interface {}"),
  mergeOverwrite: goFunc("mergeOverwrite", [MAP, `...${MAP}`], merge(true), "interface {}"),
  mustMerge: goFunc("mustMerge", [MAP, `...${MAP}`], merge(false), "(interface {}, error)"),
  mustMergeOverwrite: goFunc("mustMergeOverwrite", [MAP, `...${MAP}`], merge(true), "(interface {}, error)"),
  values: goFunc("values", [MAP], (d) => (isLiveMap(d) ? sortedKeys(d).map((k) => d[k]) : []), "[]interface {}"),
  dig: goFunc("dig", ["...any"], dig, "(interface {}, error)"),
  deepCopy: goFunc("deepCopy", ["any"], deepCopy, "interface {}"),
  mustDeepCopy: goFunc("mustDeepCopy", ["any"], deepCopy, "(interface {}, error)"),
};
