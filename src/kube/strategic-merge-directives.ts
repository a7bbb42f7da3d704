/**
 * Strategic merge's directives: `$patch` (replace, delete, merge) on maps, `$retainKeys`, and the
 * `$deleteFromPrimitiveList/<key>` and `$setElementOrder/<key>` keys, plus the cleaning of values
 * copied from a patch (directives and nulls dropped).
 */
import { setOwn } from "../go/json.js";
import {
  DELETE,
  DELETE_FROM_PRIMITIVE_LIST,
  DIRECTIVE,
  ERR_BAD_PRIMITIVE_LIST,
  ERR_BAD_RETAIN_KEYS,
  ERR_BAD_SET_ELEMENT_ORDER,
  errBadPatchType,
  GoMergeError,
  hasKey,
  isMap,
  type JsonMap,
  REPLACE,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER,
} from "./strategic-merge-values.js";
/** Drops every object carrying `$patch` (and the list slot holding it) from a patch's list. */
export function removeDirectives(list: readonly unknown[]): unknown[] {
  return cleaned(list, false) as unknown[];
}

/** The list key a `$deleteFromPrimitiveList/<key>` or `$setElementOrder/<key>` directive names. */
export function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) throw new GoMergeError(ERR_BAD_PRIMITIVE_LIST);
    throw new GoMergeError(ERR_BAD_SET_ELEMENT_ORDER);
  }
  return key.slice(slash + 1);
}

/** A map-level `$patch`: replace returns the patch itself, delete an empty map. */
export function mapDirective(directive: unknown, patch: JsonMap): JsonMap {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  throw errBadPatchType(directive, patch);
}

/** {@link cleaned}'s answer for a value that is dropped. */
const DROPPED: unique symbol = Symbol("dropped");

/**
 * A patch value with every object carrying `$patch` dropped, and the key or list slot holding it.
 * With `dropNulls`, null-valued keys are deleted at every depth as well (nulls only mean "delete"
 * against an original), before anything else: an object whose `$patch` is null then stays. One
 * walk: maps are cleaned in place, lists are new lists; {@link DROPPED} when `v` itself goes.
 */
function cleaned(v: unknown, dropNulls: boolean): unknown {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const item of v) {
      const c = cleaned(item, dropNulls);
      if (c !== DROPPED) out.push(c);
    }
    return out;
  }
  if (!isMap(v)) return v;
  if (hasKey(v, DIRECTIVE) && !(dropNulls && v[DIRECTIVE] === null)) return DROPPED;
  for (const k of Object.keys(v)) {
    const item = v[k];
    if (dropNulls && item === null) {
      delete v[k];
      continue;
    }
    const c = cleaned(item, dropNulls);
    if (c === DROPPED) delete v[k];
    // setOwn: a `__proto__` key is data, never the map's prototype.
    else if (c !== item) setOwn(v, k, c);
  }
  return v;
}

/** Stores a patch value under a key the original lacks (or holds with another type). */
export function setCleaned(target: JsonMap, key: string, patchV: unknown): void {
  const value = cleaned(patchV, true);
  // setOwn: a `__proto__` key is data, never the target's prototype.
  if (value !== DROPPED) setOwn(target, key, value);
  else delete target[key];
}

/** `$retainKeys`: every patched key must be listed; original keys not listed are cleared. */
export function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw new GoMergeError(ERR_BAD_RETAIN_KEYS);
  const kept = new Set(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!kept.has(k)) throw new GoMergeError(ERR_BAD_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!kept.has(k)) delete original[k];
}
