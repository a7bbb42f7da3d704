/**
 * RFC 6902 JSON Patch for Kubernetes objects: building the patch that turns a received object into
 * a modified one, and applying a patch (RFC 6902 add, remove, replace, move, copy, test).
 *
 * `createPatch` is not a minimal edit script. It walks objects key by key and treats arrays the way
 * pod changes look: elements appended (`add` at `/-`), inserted, removed, moved, or changed in
 * place, with elements matched by their `name` (containers, env, volumes) when every element has a
 * unique one, by common prefix and suffix otherwise. At each array it keeps the cheaper of that
 * edit and one `replace` of the whole array, so the patch grows with the change, not with the
 * object (an injected pod with 2,000 env vars in its app container gets a patch of a few KiB).
 */
import { cloneJson, isRecord, setOwn } from "../go/json.js";

export { cloneJson };

export type Operation =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown }
  | { op: "move"; from: string; path: string }
  | { op: "copy"; from: string; path: string }
  | { op: "test"; path: string; value: unknown };

/** A patch that cannot be applied, or is not a patch; the message names the operation and path. */
export class JsonPatchError extends Error {
  override name = "JsonPatchError";
}

type JsonObject = Record<string, unknown>;

/** One reference token of a JSON Pointer, escaped (`~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The reference tokens of a JSON Pointer (`""` is the whole document). */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** An own property, so that keys such as `__proto__` or `constructor` are plain data. */
function ownGet(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** JSON equality: numbers by value (0 equals -0), object key order ignored, undefined members absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    // Every defined member of a equal in b, and b with no more defined members (no key lists kept).
    let defined = 0;
    for (const k of Object.keys(a)) {
      const va = a[k];
      if (va === undefined) continue;
      defined++;
      if (!Object.hasOwn(b, k) || !jsonEqual(va, b[k])) return false;
    }
    for (const k of Object.keys(b)) if (b[k] !== undefined) defined--;
    return defined === 0;
  }
  return false;
}

/**
 * The JSON text lengths of the objects and arrays measured during one {@link createPatch} (which
 * modifies nothing it measures), so that a value added by an edit and then met again in the whole
 * array the edit is weighed against is measured once. Made afresh by each createPatch.
 */
let measured: WeakMap<object, number> | undefined;

/** `JSON.stringify(v).length` of a value of an operation, remembered for objects during a createPatch. */
function valueLength(v: unknown): number {
  if (typeof v !== "object" || v === null || measured === undefined)
    return jsonLengthWithin(v, Number.POSITIVE_INFINITY);
  let n = measured.get(v);
  if (n === undefined) {
    n = jsonLengthWithin(v, Number.POSITIVE_INFINITY);
    measured.set(v, n);
  }
  return n;
}

/** The size of a patch as JSON text (each operation and a separator), which is what patch choices are weighed by. */
function patchSize(ops: readonly Operation[]): number {
  let n = 0;
  for (const op of ops) {
    if ((op.op === "add" || op.op === "replace") && Object.keys(op).length === 3) {
      // `{"op":"add","path":"...","value":...}`, with the value measured once.
      n += op.op.length + 26 + stringLength(op.path) + valueLength(op.value) + 1;
    } else n += JSON.stringify(op).length + 1;
  }
  return n;
}

/**
 * `JSON.stringify(v).length` for a plain JSON value, or, once that is known to be over `limit`, some
 * number over `limit` (the rest is not measured: a large array that an edit beats is not written
 * out only to be weighed). Leaves (strings, numbers, booleans, null) and anything unusual (a
 * `toJSON` method) are measured by JSON.stringify itself, so escapes count as written.
 */
export function jsonLengthWithin(v: unknown, limit: number): number {
  if (typeof v === "string") return stringLength(v);
  if (typeof v !== "object" || v === null || typeof (v as { toJSON?: unknown }).toJSON === "function") {
    return JSON.stringify(v)?.length ?? 0;
  }
  if (Array.isArray(v)) {
    let n = 2 + Math.max(0, v.length - 1); // brackets and commas
    for (const item of v) {
      if (n > limit) return n;
      // undefined, functions and symbols are written as null in an array
      const kind = typeof item;
      n += item === undefined || kind === "function" || kind === "symbol" ? 4 : jsonLengthWithin(item, limit - n);
    }
    return n;
  }
  let n = 2; // braces
  let members = 0;
  for (const key of Object.keys(v)) {
    if (n > limit) return n;
    const item = (v as JsonObject)[key];
    const kind = typeof item;
    // undefined, functions and symbols leave their member out of an object
    if (item === undefined || kind === "function" || kind === "symbol") continue;
    if (members++ > 0) n++; // comma
    n += stringLength(key) + 1 + jsonLengthWithin(item, limit - n);
  }
  return n;
}

/** What JSON.stringify escapes in a string: quote, backslash, control characters, surrogates (lone ones). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(s).length`, without writing the string out when nothing in it is escaped. */
function stringLength(s: string): number {
  return ESCAPED.test(s) ? JSON.stringify(s).length : s.length + 2;
}

/**
 * Whether a patch of `editSize` is smaller than the one operation replacing the array at `path`
 * with `value`: `patchSize(edit) < patchSize([{ op: "replace", path, value }])`, with the replacement
 * measured only as far as needed.
 */
function editIsSmaller(editSize: number, path: string, value: readonly unknown[]): boolean {
  const head = `{"op":"replace","path":${JSON.stringify(path)},"value":`.length + 2; // "}" and the separator
  const limit = editSize - head;
  // jsonLengthWithin of the array, with its items measured already (added by the edit) not again.
  let n = 2 + Math.max(0, value.length - 1);
  for (const item of value) {
    if (n > limit) return true;
    const kind = typeof item;
    const known = typeof item === "object" && item !== null ? measured?.get(item) : undefined;
    // undefined, functions and symbols are written as null in an array
    n +=
      known ?? (item === undefined || kind === "function" || kind === "symbol" ? 4 : jsonLengthWithin(item, limit - n));
  }
  return limit < n;
}

/** The patch that turns `original` into `modified` (both plain JSON values). */
export function createPatch(original: unknown, modified: unknown): Operation[] {
  const ops: Operation[] = [];
  measured = new WeakMap();
  try {
    diffValue(original, modified, "", ops);
  } finally {
    measured = undefined;
  }
  return ops;
}

function diffValue(a: unknown, b: unknown, path: string, ops: Operation[]): void {
  if (isRecord(a) && isRecord(b)) diffObject(a, b, path, ops);
  else if (Array.isArray(a) && Array.isArray(b)) diffArray(a, b, path, ops);
  else if (!jsonEqual(a, b)) ops.push({ op: "replace", path, value: b });
}

function diffObject(a: JsonObject, b: JsonObject, path: string, ops: Operation[]): void {
  for (const k of Object.keys(a)) {
    if (a[k] !== undefined && (!Object.hasOwn(b, k) || b[k] === undefined)) {
      ops.push({ op: "remove", path: `${path}/${escapePointerToken(k)}` });
    }
  }
  for (const k of Object.keys(b)) {
    const vb = b[k];
    if (vb === undefined) continue;
    const child = `${path}/${escapePointerToken(k)}`;
    const va = ownGet(a, k);
    if (va === undefined) ops.push({ op: "add", path: child, value: vb });
    else diffValue(va, vb, child, ops);
  }
}

function diffArray(a: readonly unknown[], b: readonly unknown[], path: string, ops: Operation[]): void {
  if (jsonEqual(a, b)) return;
  const keysA = elementKeys(a);
  const keysB = keysA && elementKeys(b);
  const edit: Operation[] = [];
  if (keysA && keysB) diffKeyedArray(a, keysA, b, keysB, path, edit);
  else diffListArray(a, b, path, edit);
  if (editIsSmaller(patchSize(edit), path, b)) ops.push(...edit);
  else ops.push({ op: "replace", path, value: b });
}

/** The `name` of every element when all are objects with distinct string names; else undefined. */
function elementKeys(list: readonly unknown[]): string[] | undefined {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const e of list) {
    const name = isRecord(e) ? ownGet(e, "name") : undefined;
    if (typeof name !== "string" || seen.has(name)) return undefined;
    seen.add(name);
    keys.push(name);
  }
  return keys;
}

/** Elements matched by name: removals, then, position by position, in-place diffs, moves and inserts. */
function diffKeyedArray(
  a: readonly unknown[],
  keysA: readonly string[],
  b: readonly unknown[],
  keysB: readonly string[],
  path: string,
  ops: Operation[],
): void {
  const wanted = new Set(keysB);
  const cur = a.map((value, i) => ({ key: keysA[i] as string, value }));
  for (let i = cur.length - 1; i >= 0; i--) {
    if (!wanted.has((cur[i] as { key: string }).key)) {
      ops.push({ op: "remove", path: `${path}/${i}` });
      cur.splice(i, 1);
    }
  }
  for (let i = 0; i < b.length; i++) {
    const key = keysB[i] as string;
    const here = cur[i];
    if (here !== undefined && here.key === key) {
      diffValue(here.value, b[i], `${path}/${i}`, ops);
      continue;
    }
    let j = -1;
    for (let k = i + 1; k < cur.length; k++) {
      if ((cur[k] as { key: string }).key === key) {
        j = k;
        break;
      }
    }
    if (j >= 0) {
      const [moved] = cur.splice(j, 1) as [{ key: string; value: unknown }];
      cur.splice(i, 0, moved);
      ops.push({ op: "move", from: `${path}/${j}`, path: `${path}/${i}` });
      diffValue(moved.value, b[i], `${path}/${i}`, ops);
    } else {
      ops.push({ op: "add", path: `${path}/${i === cur.length ? "-" : i}`, value: b[i] });
      cur.splice(i, 0, { key, value: b[i] });
    }
  }
}

/** Elements matched by position: common prefix and suffix kept, the middle diffed pairwise, the rest added or removed. */
function diffListArray(a: readonly unknown[], b: readonly unknown[], path: string, ops: Operation[]): void {
  const shorter = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < shorter && jsonEqual(a[prefix], b[prefix])) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && jsonEqual(a[a.length - 1 - suffix], b[b.length - 1 - suffix])) {
    suffix++;
  }
  const midA = a.length - prefix - suffix;
  const midB = b.length - prefix - suffix;
  const paired = Math.min(midA, midB);
  for (let i = prefix; i < prefix + paired; i++) diffValue(a[i], b[i], `${path}/${i}`, ops);
  const at = prefix + paired;
  for (let n = midA - paired; n > 0; n--) ops.push({ op: "remove", path: `${path}/${at}` });
  for (let n = 0; n < midB - paired; n++) {
    const index = at + n;
    const atEnd = suffix === 0;
    ops.push({ op: "add", path: `${path}/${atEnd ? "-" : index}`, value: b[index] });
  }
}

// ---- applying ----

function describeOp(op: unknown, index: number): string {
  const o = isRecord(op) ? op : {};
  return `operation ${index} (${typeof o.op === "string" ? o.op : "?"} ${JSON.stringify(o.path ?? null)})`;
}

/** The array index a token names; `allowEnd` accepts `-` and the length itself (for add). */
function arrayIndex(token: string, list: readonly unknown[], allowEnd: boolean): number {
  if (token === "-" && allowEnd) return list.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new JsonPatchError(`invalid array index ${JSON.stringify(token)}`);
  const i = Number(token);
  if (i > list.length || (i === list.length && !allowEnd)) {
    throw new JsonPatchError(`array index ${i} out of range (length ${list.length})`);
  }
  return i;
}

/** The value a pointer names; throws when it names nothing. */
function getAt(doc: unknown, tokens: readonly string[]): unknown {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur, false)];
    else if (isRecord(cur) && Object.hasOwn(cur, t)) cur = cur[t];
    else throw new JsonPatchError(`path not found at ${JSON.stringify(t)}`);
  }
  return cur;
}

/**
 * Where the operations of one patch write. Applying, the document is copied first and every value
 * an operation brings is copied (`shared` undefined: everything reached is the patch's own).
 * Checking ({@link checkPatchApplies}), nothing is copied up front: `shared` holds the containers
 * made here, and a write copies every container on its way that is not one of them (copy on
 * write), so the document and the operations' values are only read.
 */
interface Target {
  doc: unknown;
  shared?: Set<object>;
}

/** `v` as a container of the target's own: itself, or (checking) a shallow copy made once. */
function owned(target: Target, v: unknown): unknown {
  const made = target.shared;
  if (made === undefined || typeof v !== "object" || v === null || made.has(v)) return v;
  const copy = Array.isArray(v) ? v.slice() : { ...v };
  made.add(copy);
  return copy;
}

/**
 * The container (object or array) of the value a pointer names, with the last token, ready to be
 * written: found as {@link getAt} finds it (with its errors), with the target's own containers on
 * the way (see {@link Target}).
 */
function parentOf(target: Target, tokens: readonly string[]): { parent: unknown; last: string } {
  const last = tokens[tokens.length - 1] as string;
  if (target.shared === undefined) return { parent: getAt(target.doc, tokens.slice(0, -1)), last };
  target.doc = owned(target, target.doc);
  let cur = target.doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i] as string;
    if (Array.isArray(cur)) {
      const at = arrayIndex(t, cur, false);
      cur[at] = owned(target, cur[at]);
      cur = cur[at];
    } else if (isRecord(cur) && Object.hasOwn(cur, t)) {
      const next = owned(target, cur[t]);
      if (next !== cur[t]) setOwn(cur, t, next);
      cur = next;
    } else throw new JsonPatchError(`path not found at ${JSON.stringify(t)}`);
  }
  return { parent: cur, last };
}

function addAt(target: Target, tokens: readonly string[], value: unknown): void {
  if (tokens.length === 0) {
    target.doc = value;
    return;
  }
  const { parent, last } = parentOf(target, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent, true), 0, value);
  else if (isRecord(parent)) setOwn(parent, last, value);
  else throw new JsonPatchError("parent is not an object or array");
}

/** Removes the value a pointer names; returns it. */
function removeAt(target: Target, tokens: readonly string[]): unknown {
  if (tokens.length === 0) {
    const removed = target.doc;
    target.doc = null;
    return removed;
  }
  const { parent, last } = parentOf(target, tokens);
  if (Array.isArray(parent)) {
    const [removed] = parent.splice(arrayIndex(last, parent, false), 1);
    return removed;
  }
  if (isRecord(parent) && Object.hasOwn(parent, last)) {
    const removed = parent[last];
    delete parent[last];
    return removed;
  }
  throw new JsonPatchError(`path not found at ${JSON.stringify(last)}`);
}

function stringField(op: JsonObject, field: string): string {
  const v = op[field];
  if (typeof v !== "string") throw new JsonPatchError(`missing "${field}"`);
  return v;
}

/** An operation's value (checked present), copied when applying. */
function valueField(op: JsonObject, target: Target): unknown {
  if (!Object.hasOwn(op, "value") || op.value === undefined) throw new JsonPatchError('missing "value"');
  return target.shared === undefined ? cloneJson(op.value) : op.value;
}

/** Applies a patch; returns the patched document (a new value: `doc` is not modified). */
export function applyPatch(doc: unknown, ops: readonly unknown[]): unknown {
  return runPatch({ doc: cloneJson(doc) }, ops).doc;
}

/**
 * Throws what {@link applyPatch} throws for `doc` (JSON as parsed: no `undefined` members) and
 * `ops`, without writing out the patched document: only the containers a write reaches are copied,
 * not the whole document and every value. Neither `doc` nor `ops` is modified.
 */
export function checkPatchApplies(doc: unknown, ops: readonly unknown[]): void {
  runPatch({ doc, shared: new Set() }, ops);
}

function runPatch(target: Target, ops: readonly unknown[]): Target {
  if (!Array.isArray(ops)) throw new JsonPatchError("a JSON patch must be an array of operations");
  for (const [index, raw] of ops.entries()) {
    try {
      if (!isRecord(raw)) throw new JsonPatchError("not an object");
      const path = parsePointer(stringField(raw, "path"));
      switch (raw.op) {
        case "add":
          addAt(target, path, valueField(raw, target));
          break;
        case "remove":
          removeAt(target, path);
          break;
        case "replace":
          getAt(target.doc, path);
          removeAt(target, path);
          addAt(target, path, valueField(raw, target));
          break;
        case "move": {
          const from = stringField(raw, "from");
          const fromTokens = parsePointer(from);
          if (path.length > fromTokens.length && fromTokens.every((t, i) => path[i] === t)) {
            throw new JsonPatchError("cannot move a value into one of its children");
          }
          addAt(target, path, removeAt(target, fromTokens));
          break;
        }
        case "copy":
          // Copied in both modes: a container of the target's own must not sit in two places.
          addAt(target, path, cloneJson(getAt(target.doc, parsePointer(stringField(raw, "from")))));
          break;
        case "test":
          if (!jsonEqual(getAt(target.doc, path), valueField(raw, target))) throw new JsonPatchError("test failed");
          break;
        default:
          throw new JsonPatchError(`unknown op ${JSON.stringify(raw.op)}`);
      }
    } catch (e) {
      if (e instanceof JsonPatchError) throw new JsonPatchError(`${describeOp(raw, index)}: ${e.message}`);
      throw e;
    }
  }
  return target;
}

/** The name the webhook contract uses. */
export const applyJsonPatch = applyPatch;
