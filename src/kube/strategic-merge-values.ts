/**
 * What strategic merge works on: JSON values with Go's dynamic types (json.Unmarshal into
 * interface{}), the directive keys, and apimachinery's error texts.
 */
import { sprintf } from "../go/fmt.js";

export type JsonMap = Record<string, unknown>;

export const DIRECTIVE = "$patch";
export const DELETE = "delete";
export const REPLACE = "replace";
export const MERGE = "merge";
export const RETAIN_KEYS = "$retainKeys";
export const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
export const SET_ELEMENT_ORDER = "$setElementOrder";

export const ERR_BAD_PRIMITIVE_LIST = "invalid patch format of primitive list";
export const ERR_BAD_RETAIN_KEYS = "invalid patch format of retainKeys";
export const ERR_BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list";

/** An apimachinery error text, raised where the path is not known yet; see `atPath`. */
export class GoMergeError extends Error {}

export function isMap(v: unknown): v is JsonMap {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The Go dynamic type of a decoded JSON value, as reflect.TypeOf would distinguish it. */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return "nil";
  if (Array.isArray(v)) return "[]interface {}";
  if (isMap(v)) return "map[string]interface {}";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    case "bigint":
      return "int64";
    default:
      return typeof v;
  }
}

/** Go's `==` on two interface{} values holding JSON scalars (maps and lists compare by identity). */
export function goEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  return a === b;
}

/** fmt's %v of a JSON value (maps print as `map[k:v ...]` with sorted keys). */
export function fmtV(v: unknown): string {
  return sprintf("%v", [v as never]);
}

export function errNoMergeKey(m: unknown, key: string): GoMergeError {
  return new GoMergeError(`map: ${fmtV(m)} does not contain declared merge key: ${key}`);
}

export function errBadArgType(expected: string, actual: unknown): GoMergeError {
  const actualType = actual === null || actual === undefined ? "%!s(<nil>)" : goTypeOf(actual);
  return new GoMergeError(`expected a ${expected}, but received a ${actualType}`);
}

export function errBadPatchType(directive: unknown, m: unknown): GoMergeError {
  return new GoMergeError(`unknown patch type: ${sprintf("%s", [directive as never])} in map: ${fmtV(m)}`);
}

/** The merge key value of a list item, or undefined (Go's nil) when the item is not a map or lacks it. */
export function mergeKeyValue(item: unknown, mergeKey: string): unknown {
  if (!isMap(item)) return undefined;
  const v = item[mergeKey];
  return v === null ? undefined : v;
}

export function hasKey(m: JsonMap, key: string): boolean {
  return Object.hasOwn(m, key);
}

/**
 * The common element kind of some lists: "map", or the Go type of the scalars.
 * Mixed kinds, nested lists and (here) nulls are errors; so are lists with no
 * elements at all, which callers rule out first where apimachinery does.
 */
export function sliceElementKind(...lists: unknown[][]): string {
  let kind: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = goTypeOf(v);
      if (kind === undefined) {
        if (t === "[]interface {}") throw new GoMergeError("lists of lists are not supported");
        // Go would dereference a nil reflect.Type here and panic.
        if (t === "nil") throw new GoMergeError("list element is null");
        kind = t;
      } else if (kind !== t) {
        throw new GoMergeError(`list element types are not identical: ${fmtV(lists)}`);
      }
    }
  }
  if (kind === undefined) throw new GoMergeError("no elements in any of the given slices");
  return kind === "map[string]interface {}" ? "map" : kind;
}
