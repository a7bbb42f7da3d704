/**
 * Kubernetes strategic merge patch (SMP), apply side, as
 * `k8s.io/apimachinery/pkg/util/strategicpatch.StrategicMergeMapPatch` computes it
 * for a typed Go struct (Istio calls it with `corev1.Pod{}` to lay each rendered
 * injection template over the pod, and again to lay the user's own `istio-proxy`
 * container back over the result).
 *
 * Semantics, by value kind (the patch metadata comes from ./merge-keys.ts):
 * - objects merge key by key; `null` in the patch deletes the key; a key the
 *   original lacks, or whose value has another JSON type, takes the patch value
 *   (with its nulls and `$patch` directive objects dropped);
 * - lists whose field is tagged `patchStrategy:"merge"` merge: lists of objects
 *   by their merge key (matching items merge recursively, new ones are added),
 *   lists of scalars as a union; every other list is replaced;
 * - the order of a merged list: the patch's items in patch order, interleaved
 *   with the original-only items in original order (see `interleave`); new items
 *   therefore come before the original-only items that follow no patched item;
 * - directives: `$patch: replace | delete` in an object and in list items,
 *   `$patch: merge` (rejected in lists, as apimachinery does), `$retainKeys`,
 *   `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`.
 *
 * Keys the schema does not know are fine while only one side holds them, or
 * while the values are scalars; when both sides hold an object (or both a list)
 * under an unknown key, apimachinery fails ("unable to find api field in struct
 * ..."), and so do we. Istio's original is a marshalled typed Pod, which never
 * carries unknown keys, so this only bites untyped callers.
 *
 * Inputs are not modified: both are deep-copied first (apimachinery mutates both);
 * `strategicMergeInto` merges into an original its caller gives up.
 * Values are JSON-shaped (plain objects, arrays, strings, numbers, booleans, null);
 * `undefined` object members are treated as absent.
 */

import { cloneJson } from "../go/json.js";
import { sliceStable } from "../go/sort.js";
import { type FieldMeta, type GoType, goKindName, lookupField, structType } from "./merge-keys.js";
import {
  applyRetainKeys,
  directiveTarget,
  mapDirective,
  removeDirectives,
  setCleaned,
} from "./strategic-merge-directives.js";
import {
  DELETE,
  DELETE_FROM_PRIMITIVE_LIST,
  DIRECTIVE,
  errBadArgType,
  errBadPatchType,
  errNoMergeKey,
  fmtV,
  GoMergeError,
  goEqual,
  goTypeOf,
  hasKey,
  isMap,
  type JsonMap,
  MERGE,
  mergeKeyValue,
  REPLACE,
  SET_ELEMENT_ORDER,
  sliceElementKind,
} from "./strategic-merge-values.js";

/**
 * A merge failure. `goMessage` is apimachinery's own error text (what Istio prints
 * after "strategic merge: "); `path` locates the failing value, e.g.
 * `spec.containers[istio-proxy].env`; `message` combines them with the type name.
 */
export class StrategicMergeError extends Error {
  override name = "StrategicMergeError";
  constructor(
    readonly typeName: string,
    readonly path: string,
    readonly goMessage: string,
  ) {
    super(`strategic merge patch of ${typeName}${path ? ` at ${path}` : ""}: ${goMessage}`);
  }
}

/**
 * Applies `patch` to `original` with strategic-merge-patch semantics for the Go
 * struct `type` (a struct name from merge-keys.ts: "Pod" by default, or e.g.
 * "PodSpec", "Container", "PodTemplateSpec"). Returns the merged object; throws
 * StrategicMergeError with apimachinery's message when the patch is invalid.
 * `null`/`undefined` inputs count as `{}`, as apimachinery reads a nil document.
 */
export function strategicMerge(original: unknown, patch: unknown, type = "Pod"): unknown {
  const schema = structType(type);
  if (!schema) throw new Error(`strategicMerge: unknown type ${JSON.stringify(type)}`);
  const originalMap = documentMap(original, type);
  const patchMap = documentMap(patch, type);
  const merger = new Merger(type);
  return merger.mergeMap(originalMap, patchMap, schema, "");
}

/**
 * {@link strategicMerge} for a caller that gives `original` up: it is merged in place and returned
 * instead of being deep-copied first (the patch still is: callers reuse it). `original` must be
 * JSON-shaped without `undefined` members, as `marshalTyped` returns it.
 */
export function strategicMergeInto(original: object, patch: unknown, type = "Pod"): unknown {
  const schema = structType(type);
  if (!schema) throw new Error(`strategicMergeInto: unknown type ${JSON.stringify(type)}`);
  if (!isMap(original)) throw new StrategicMergeError(type, "", "invalid JSON document");
  const patchMap = documentMap(patch, type);
  return new Merger(type).mergeMap(original, patchMap, schema, "");
}

function documentMap(doc: unknown, type: string): JsonMap {
  if (doc === null || doc === undefined) return {};
  if (!isMap(doc)) throw new StrategicMergeError(type, "", "invalid JSON document");
  return cloneJson(doc) as JsonMap;
}

// ---------------------------------------------------------------------------
// Schema lookups (apimachinery's PatchMetaFromStruct).

interface PatchMeta {
  /** The field's type (for slices: the element type). */
  readonly type: GoType;
  readonly strategy: string;
  readonly mergeKey: string;
}

function fieldOf(schema: GoType, key: string): FieldMeta {
  if (schema.kind !== "struct") {
    throw new GoMergeError(`merging an object in json but data type is not struct, instead is: ${goKindName(schema)}`);
  }
  const field = lookupField(schema.name, key);
  if (!field) {
    throw new GoMergeError(
      `unable to find api field in struct ${schema.name} for the json field ${JSON.stringify(key)}`,
    );
  }
  return field;
}

/** Splits `merge,retainKeys` style tags into the non-retainKeys strategy. */
function mainStrategy(strategies: readonly string[]): string {
  if (strategies.length === 0) return "";
  if (strategies.length === 1) return strategies[0] === "retainKeys" ? "" : strategies[0];
  if (strategies.length === 2) {
    if (strategies[0] === "retainKeys") return strategies[1];
    if (strategies[1] === "retainKeys") return strategies[0];
  }
  throw new GoMergeError(`unexpected patch strategy: [${strategies.join(" ")}]`);
}

function metaForMap(schema: GoType, key: string): PatchMeta {
  const field = fieldOf(schema, key);
  return { type: field.type, strategy: mainStrategy(field.strategies), mergeKey: field.mergeKey };
}

function metaForSlice(schema: GoType, key: string): PatchMeta {
  const field = fieldOf(schema, key);
  if (field.type.kind !== "slice") {
    throw new GoMergeError(`expected slice or array type, but got: ${goKindName(schema)}`);
  }
  return { type: field.type.elem, strategy: mainStrategy(field.strategies), mergeKey: field.mergeKey };
}

// ---------------------------------------------------------------------------
// Ordering of merged lists.

/** The position of `item` in `order`, matching by merge key for maps and by value for scalars. */
/** The value an item is ordered by: its merge key (a list of maps) or itself (a list of scalars). */
function orderKey(item: unknown, mergeKey: string, kind: string): unknown {
  const v = kind === "map" ? mergeKeyValue(item, mergeKey) : item;
  return v === undefined ? null : v;
}

/**
 * Positions in an order list, looked up in constant time: the first index of each key (Go scans
 * the list for every comparison, which is quadratic; a pod with thousands of env vars or containers
 * would stall the webhook). Keys compare as goEqual does: strictly, undefined as null.
 */
function orderPositions(order: unknown[], mergeKey: string, kind: string): (item: unknown) => number {
  const positions = new Map<unknown, number>();
  order.forEach((v, i) => {
    const k = orderKey(v, mergeKey, kind);
    if (!positions.has(k)) positions.set(k, i);
  });
  return (item) => positions.get(orderKey(item, mergeKey, kind)) ?? -1;
}

function checkMergeKeys(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isMap(item)) throw errBadArgType("map[string]interface {}", item);
      if (!hasKey(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Sorts `items` by their position in `order` (stably); `$patch: delete` items go last. */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: string): unknown[] {
  let sorted = items;
  let deletions: unknown[] = [];
  if (kind === "map") {
    checkMergeKeys(mergeKey, items, order);
    sorted = [];
    for (const item of items) {
      if ((item as JsonMap)[DIRECTIVE] === DELETE) deletions.push(item);
      else sorted.push(item);
    }
  } else {
    sorted = [...items];
    deletions = [];
  }
  const position = orderPositions(order, mergeKey, kind);
  sliceStable(sorted, (i, j) => {
    const ii = position(sorted[i]);
    if (ii >= 0) {
      const ij = position(sorted[j]);
      if (ij >= 0) return ii < ij;
    }
    return true;
  });
  return sorted.concat(deletions);
}

/**
 * Puts a merged list in order: the patch's items sorted by `patchOrder`, the
 * original-only items sorted by `serverOrder`, then interleaved: an
 * original-only item goes first only while both it and the next patch item are
 * in `serverOrder` and it comes earlier there; otherwise the patch item goes
 * first. So an added item precedes the original-only items that follow it.
 */
function normalizeOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: string,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  return interleave(left, right, serverOrder, mergeKey, kind);
}

function interleave(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: string) {
  const out: unknown[] = [];
  const position = orderPositions(serverOrder, mergeKey, kind);
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = position(left[i]);
    const ri = position(right[j]);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
    else out.push(right[j++]);
  }
  while (i < left.length) out.push(left[i++]);
  while (j < right.length) out.push(right[j++]);
  return out;
}

function findByMergeKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isMap(item)) throw new GoMergeError(`value for key ${i} is not a map`);
    if (hasKey(item, mergeKey) && goEqual(item[mergeKey], value)) return i;
  }
  return -1;
}

/** Splits `merged` into [items present in `by`, items not present], for lists of maps. */
function partitionMaps(merged: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  const patched = mergeKeyIndex(by, mergeKey);
  for (const v of merged) {
    if (!isMap(v)) throw errBadArgType("map[string]interface {}", v);
    if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    if (patched.find(v[mergeKey]) >= 0) inPatch.push(v);
    else serverOnly.push(v);
  }
  return [inPatch, serverOnly];
}

/**
 * findByMergeKey in constant time over a list that only grows: maps merge-key values to their first
 * index. A list holding a non-map keeps the linear search, so that its error comes out as before.
 */
function mergeKeyIndex(list: unknown[], mergeKey: string): { find(value: unknown): number; added(at: number): void } {
  if (!list.every(isMap)) {
    return { find: (value) => findByMergeKey(list, mergeKey, value), added: () => {} };
  }
  const firsts = new Map<unknown, number>();
  const add = (at: number) => {
    const item = list[at] as JsonMap;
    if (!hasKey(item, mergeKey)) return;
    const key = item[mergeKey] === undefined ? null : item[mergeKey];
    if (!firsts.has(key)) firsts.set(key, at);
  };
  for (let i = 0; i < list.length; i++) add(i);
  return { find: (value) => firsts.get(value === undefined ? null : value) ?? -1, added: add };
}

/** Splits `merged` into [items present in `by`, items not present], for lists of scalars. */
function partitionScalars(merged: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const present = new Set(by);
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of merged) (present.has(v) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

/**
 * apimachinery's in-place de-duplication: a later duplicate is overwritten by the
 * current last element and the list shrinks, so the order is not preserved.
 */
function dedupeScalars(s: unknown[]): unknown[] {
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (goEqual(s[i], s[j])) {
        s[j] = s[last];
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}

function joinPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function itemPath(path: string, item: unknown, mergeKey: string, index: number): string {
  const v = mergeKey ? mergeKeyValue(item, mergeKey) : undefined;
  return `${path}[${typeof v === "string" || typeof v === "number" ? v : index}]`;
}

// ---------------------------------------------------------------------------
// The merge.

class Merger {
  constructor(private readonly typeName: string) {}

  /** Runs `fn`, turning a GoMergeError into a StrategicMergeError located at `path`. */
  private at<T>(path: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof GoMergeError) throw new StrategicMergeError(this.typeName, path, e.message);
      throw e;
    }
  }

  /** Merges `patch` into `original` (both owned by the merge and mutated). */
  mergeMap(original: JsonMap | null, patch: JsonMap, schema: GoType, path: string): JsonMap {
    if (hasKey(patch, DIRECTIVE)) return this.at(path, () => mapDirective(patch[DIRECTIVE], patch));
    const target = original ?? {};
    this.at(path, () => applyRetainKeys(target, patch));
    this.applySetElementOrder(target, patch, schema, path);

    for (const rawKey of Object.keys(patch)) {
      let key = rawKey;
      let isDeleteList = false;
      if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        key = this.at(path, () => directiveTarget(rawKey, DELETE_FROM_PRIMITIVE_LIST));
        isDeleteList = true;
      }
      const patchV = patch[rawKey];
      const fieldPath = joinPath(path, key);

      if (patchV === null) {
        delete target[key];
        continue;
      }
      if (!hasKey(target, key) || goTypeOf(target[key]) !== goTypeOf(patchV)) {
        if (!isDeleteList) setCleaned(target, key, patchV);
        continue;
      }
      const originalV = target[key];
      if (isMap(originalV)) {
        const meta = this.at(fieldPath, () => metaForMap(schema, key));
        target[key] =
          meta.strategy === REPLACE ? patchV : this.mergeMap(originalV, patchV as JsonMap, meta.type, fieldPath);
      } else if (Array.isArray(originalV)) {
        const meta = this.at(fieldPath, () => metaForSlice(schema, key));
        target[key] =
          meta.strategy === MERGE || isDeleteList
            ? this.mergeList(originalV, patchV as unknown[], meta.type, meta.mergeKey, isDeleteList, fieldPath)
            : patchV;
      } else {
        setCleaned(target, key, patchV);
      }
    }
    return target;
  }

  /** Merges two lists of a field with the merge strategy (or applies a deletion list). */
  private mergeList(
    original: unknown[],
    patch: unknown[],
    elemSchema: GoType,
    mergeKey: string,
    isDeleteList: boolean,
    path: string,
  ): unknown[] {
    if (original.length === 0 && patch.length === 0) return original;
    const kind = this.at(path, () => sliceElementKind(original, patch));

    if (kind !== "map") {
      if (isDeleteList) {
        const doomed = new Set(patch);
        return original.filter((v) => !doomed.has(v));
      }
      const merged = dedupeScalars([...original, ...patch]);
      const [inPatch, serverOnly] = partitionScalars(merged, patch);
      return this.at(path, () => normalizeOrder(inPatch, serverOnly, patch, original, mergeKey, kind));
    }

    if (mergeKey === "") {
      throw new StrategicMergeError(
        this.typeName,
        path,
        `cannot merge lists without merge key for ${goKindName(elemSchema)}`,
      );
    }
    let base = original;
    const plain: JsonMap[] = [];
    let replace = false;
    for (const item of patch as JsonMap[]) {
      if (!hasKey(item, DIRECTIVE)) {
        plain.push(item);
        continue;
      }
      const directive = item[DIRECTIVE];
      if (directive === DELETE) {
        if (!hasKey(item, mergeKey))
          throw new StrategicMergeError(this.typeName, path, errNoMergeKey(item, mergeKey).message);
        base = this.at(path, () => withoutMatching(base, mergeKey, item[mergeKey]));
      } else if (directive === REPLACE) {
        replace = true; // keep scanning, so that the other directive items are dropped too
      } else if (directive === MERGE) {
        throw new StrategicMergeError(this.typeName, path, "merging lists cannot yet be specified in the patch");
      } else {
        throw new StrategicMergeError(this.typeName, path, errBadPatchType(directive, item).message);
      }
    }
    const patchItems: JsonMap[] = replace ? [] : plain;
    if (replace) base = plain;

    // The items of `base` keep their positions; patch items merge into the
    // first item with the same key or are appended.
    const merged = [...base];
    const index = mergeKeyIndex(merged, mergeKey);
    patchItems.forEach((item, i) => {
      const itemLoc = itemPath(path, item, mergeKey, i);
      if (!hasKey(item, mergeKey)) {
        throw new StrategicMergeError(this.typeName, itemLoc, errNoMergeKey(item, mergeKey).message);
      }
      const at = this.at(path, () => index.find(item[mergeKey]));
      if (at >= 0) merged[at] = this.mergeMap(merged[at] as JsonMap, item, elemSchema, itemLoc);
      else index.added(merged.push(item) - 1);
    });

    return this.at(path, () => {
      const [inPatch, serverOnly] = partitionMaps(merged, patchItems, mergeKey);
      return normalizeOrder(inPatch, serverOnly, patchItems, base, mergeKey, kind);
    });
  }

  /** Processes `$setElementOrder/<list>` directives (with their lists) before the other keys. */
  private applySetElementOrder(original: JsonMap, patch: JsonMap, schema: GoType, path: string): void {
    for (const key of Object.keys(patch)) {
      if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
      const order = patch[key];
      delete patch[key];
      this.at(path, () => {
        if (!Array.isArray(order)) throw errBadArgType("[]interface {}", order);
      });
      const listKey = this.at(path, () => directiveTarget(key, SET_ELEMENT_ORDER));
      const listPath = joinPath(path, listKey);
      const foundOriginal = hasKey(original, listKey);
      const foundPatch = hasKey(patch, listKey);
      const originalList = original[listKey];
      const patchList = patch[listKey];
      const meta = this.at(listPath, () => {
        if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType("[]interface {}", originalList);
        if (foundPatch && !Array.isArray(patchList)) throw errBadArgType("[]interface {}", patchList);
        const m = metaForSlice(schema, listKey);
        checkPatchAgainstOrder((patchList as unknown[] | undefined) ?? [], order as unknown[], m.mergeKey);
        return m;
      });
      const originalItems = foundOriginal ? (originalList as unknown[]) : [];
      const patchItems = foundPatch ? (patchList as unknown[]) : [];

      let merged: unknown[];
      if (foundOriginal && !foundPatch) merged = originalItems;
      else if (!foundOriginal && foundPatch) merged = removeDirectives(patchItems);
      else if (foundOriginal && foundPatch) {
        merged =
          meta.strategy === MERGE
            ? this.mergeList(originalItems, patchItems, meta.type, meta.mergeKey, false, listPath)
            : patchItems;
      } else continue;

      original[listKey] = this.at(listPath, () => {
        const [inOrder, serverOnly] =
          meta.mergeKey === ""
            ? partitionScalars(merged, order as unknown[])
            : partitionMaps(merged, order as unknown[], meta.mergeKey);
        const kind = sliceElementKind(originalItems, patchItems);
        return normalizeOrder(inOrder, serverOnly, order as unknown[], originalItems, meta.mergeKey, kind);
      });
      delete patch[listKey];
    }
  }
}

/** Removes every item whose merge key equals `value`. */
function withoutMatching(list: unknown[], mergeKey: string, value: unknown): unknown[] {
  const out = [...list];
  for (let at = findByMergeKey(out, mergeKey, value); at >= 0; at = findByMergeKey(out, mergeKey, value)) {
    out.splice(at, 1);
  }
  return out;
}

/**
 * Checks that the patch list's items (directive items aside) appear in the
 * `$setElementOrder` list, in the same relative order.
 */
function checkPatchAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey !== "") {
    items = [];
    for (const v of patchList) {
      if (!isMap(v)) throw errBadArgType("map[string]interface {}", v);
      if (v[DIRECTIVE] !== DELETE) items.push(v);
    }
  }
  const sameKey = (a: unknown, b: unknown): boolean => {
    if (mergeKey === "") return goEqual(a, b);
    if (!isMap(a)) throw errBadArgType("map[string]interface {}", a);
    if (!isMap(b)) throw errBadArgType("map[string]interface {}", b);
    if (!hasKey(a, mergeKey)) throw errNoMergeKey(a, mergeKey);
    if (!hasKey(b, mergeKey)) throw errNoMergeKey(b, mergeKey);
    return goEqual(a[mergeKey], b[mergeKey]);
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isMap(items[p]) && hasKey(items[p] as JsonMap, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameKey(items[p], order[o])) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw new GoMergeError(
      `the order in patch list:\n${fmtV(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${fmtV(order)}`,
    );
  }
}
