/**
 * Sprig's reflection functions: typeOf, typeIs, typeIsLike, kindOf, kindIs, deepEqual.
 *
 * `kindOf` prints reflect.Kind names (value.ts's `reflectKindName`: `int64`, `float64`, `uint8`
 * rather than `int` / `float`). The module also exports `deepEqual` (reflect.DeepEqual), which the
 * list functions share for has/uniq/without.
 */
import {
  Complex,
  type GoFunc,
  type GoValue,
  goFunc,
  isGoFunc,
  isGoObject,
  isMap,
  mapGet,
  reflectKindName,
  TypedNil,
  TypedNumber,
  typeName,
} from "../../go/value.js";

/** True for the nil forms of the model: null, undefined and TypedNil. */
function isNil(v: GoValue): boolean {
  return v === null || v === undefined || v instanceof TypedNil;
}

/** reflect.DeepEqual: same Go type and deeply equal contents; nil and empty slices/maps differ. */
export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (a === null || a === undefined || b === null || b === undefined) {
    return (a === null || a === undefined) && (b === null || b === undefined);
  }
  return valueEqual(a, b, new Set());
}

function valueEqual(a: GoValue, b: GoValue, seen: Set<unknown>): boolean {
  // Interface elements (inside []interface{} / map[string]interface{}): both nil, or same dynamic type.
  if (a === null || a === undefined || b === null || b === undefined) {
    return (a === null || a === undefined) && (b === null || b === undefined);
  }
  if (typeName(a) !== typeName(b)) return false;
  if (a === b) return !(typeof a === "number" && Number.isNaN(a));
  if (typeof a === "number") return a === b;
  if (typeof a !== "object" || typeof b !== "object") return a === b;
  if (a instanceof TypedNumber) return b instanceof TypedNumber && a.value === b.value;
  if (a instanceof Complex) return b instanceof Complex && a.re === b.re && a.im === b.im;
  if (isNil(a) || isNil(b)) {
    // A typed nil only equals a typed nil of its type; a nil func never equals a non-nil one.
    return isNil(a) && isNil(b);
  }
  if (isGoFunc(a)) return false;
  if (seen.has(a)) return true; // reflect.DeepEqual treats revisited pairs as equal
  seen.add(a);
  try {
    if (a instanceof Uint8Array && b instanceof Uint8Array) {
      return a.length === b.length && a.every((x, i) => x === b[i]);
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      return a.length === b.length && a.every((x, i) => valueEqual(x, b[i], seen));
    }
    if (isGoObject(a) && isGoObject(b)) {
      if (a.goIsNil?.() || b.goIsNil?.()) return !!a.goIsNil?.() && !!b.goIsNil?.();
      const fa = a.goFields?.() ?? [];
      const fb = b.goFields?.() ?? [];
      return fa.length === fb.length && fa.every(([n, x], i) => fb[i][0] === n && valueEqual(x, fb[i][1], seen));
    }
    if (isMap(a) && isMap(b)) {
      const ka = Object.keys(a);
      if (ka.length !== Object.keys(b).length) return false;
      return ka.every((k) => Object.hasOwn(b, k) && valueEqual(a[k], mapGet(b, k), seen));
    }
    return false;
  } finally {
    seen.delete(a);
  }
}

export const reflectFuncs: Record<string, GoFunc> = {
  typeOf: goFunc("typeOf", ["any"], (src) => typeName(src), "string"),
  typeIs: goFunc("typeIs", ["string", "any"], (target, src) => target === typeName(src), "bool"),
  typeIsLike: goFunc(
    "typeIsLike",
    ["string", "any"],
    (target, src) => {
      const t = typeName(src);
      return target === t || `*${target as string}` === t;
    },
    "bool",
  ),
  kindOf: goFunc("kindOf", ["any"], (src) => reflectKindName(src), "string"),
  kindIs: goFunc("kindIs", ["string", "any"], (target, src) => target === reflectKindName(src), "bool"),
  deepEqual: goFunc("deepEqual", ["any", "any"], (x, y) => deepEqual(x, y), "bool"),
};
