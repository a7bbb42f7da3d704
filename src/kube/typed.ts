/**
 * Typed marshalling: the JSON that Go produces when a Kubernetes object is decoded into its typed
 * struct (sigs.k8s.io/yaml.Unmarshal: YAML → JSON → encoding/json) and marshalled again.
 *
 * - Unknown fields are dropped; field names match exactly first, then case-insensitively (as
 *   encoding/json does).
 * - Numbers and booleans given for a string field become strings (sigs.k8s.io/yaml's coercion).
 * - `omitempty` drops "", 0, false, nil and empty slices and maps; struct-typed fields are always
 *   written (`resources: {}`, `strategy: {}`, `status: {}`), `omitzero` drops zero structs
 *   (`metadata.creationTimestamp`); fields without `omitempty` are written even when nil
 *   (`containers: null`).
 * - Quantities are canonicalised as resource.Quantity prints them (`2000m` → `"2"`, `1024Mi` → `1Gi`);
 *   int-or-string values keep their kind; times print as RFC 3339 in UTC.
 * - Keys come in Go declaration order, so `JSON.stringify` of the result is Go's `json.Marshal`.
 */

import { isRecord } from "../go/json.js";
import { canonicalQuantity } from "../go/quantity.js";
import { type FieldDef, goStructName, goTypeString, isStructType, structDef } from "./schema.js";

/** A value that does not fit its Go type (what encoding/json reports as an UnmarshalTypeError). */
export class TypedDecodeError extends Error {
  override name = "TypedDecodeError";
}

/**
 * The JSON object Go writes for `obj` decoded into the struct named `type` (a name of the schema
 * table: `Pod`, `Deployment`, `PodSpec`, `Container`...). Throws {@link TypedDecodeError} when a
 * value cannot be decoded into its field.
 */
export function marshalTyped(obj: unknown, type: string): unknown {
  const def = structDef(type);
  if (def === undefined) throw new Error(`marshalTyped: unknown type ${type}`);
  return marshal(obj, type, typeInfo(type), type, undefined, TOP_PATH);
}

/**
 * Where a value sits, for error messages in encoding/json's form: the innermost struct and the
 * field path from the top (built only when an error needs it).
 */
interface Where {
  struct: string;
  /** The place of the struct holding the field, or undefined at the top. */
  parent: Where | undefined;
  /** The field's JSON name; "" at the top. */
  field: string;
}

const TOP_PATH = "";

function pathOf(where: Where): string {
  if (where.parent === undefined) return where.field;
  const base = pathOf(where.parent);
  return base ? `${base}.${where.field}` : where.field;
}

/** Decoded values use `undefined` for Go's zero/nil and keep JSON shapes otherwise. */
type Decoded = unknown;

function typeError(what: string, where: Where, type: string): TypedDecodeError {
  const path = pathOf(where);
  const field = path ? `Go struct field ${goStructName(where.struct).replace(/^v1\./, "")}.${path}` : "Go value";
  return new TypedDecodeError(`json: cannot unmarshal ${what} into ${field} of type ${goTypeString(type)}`);
}

function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  if (typeof v === "number") return "number";
  return typeof v;
}

/** A field type's shape, parsed once: pointer, slice, map (with their element type), struct or scalar. */
interface TypeInfo {
  kind: "ptr" | "slice" | "map" | "struct" | "scalar";
  /** The element type of a pointer, slice or map. */
  elem: string;
  /** The element type's info, once looked up. */
  elemInfo?: TypeInfo;
  /** For a struct: its codec, once built. */
  struct?: StructCodec;
}

function elemInfoOf(info: TypeInfo): TypeInfo {
  info.elemInfo ??= typeInfo(info.elem);
  return info.elemInfo;
}

function typeInfo(type: string): TypeInfo {
  let info = TYPE_INFO.get(type);
  if (info === undefined) {
    if (type.startsWith("*")) info = { kind: "ptr", elem: type.slice(1) };
    else if (type.startsWith("[]")) info = { kind: "slice", elem: type.slice(2) };
    else if (type.startsWith("map[string]")) info = { kind: "map", elem: type.slice("map[string]".length) };
    else info = { kind: isStructType(type) ? "struct" : "scalar", elem: "" };
    TYPE_INFO.set(type, info);
  }
  return info;
}
const TYPE_INFO = new Map<string, TypeInfo>();

/** The fields of a struct with inline embeds flattened, in encoding order. */
function flatFields(type: string): FieldDef[] {
  const cached = FLAT.get(type);
  if (cached) return cached;
  const out: FieldDef[] = [];
  for (const f of structDef(type)?.fields ?? []) {
    if (f.inline) out.push(...flatFields(f.type));
    else out.push(f);
  }
  FLAT.set(type, out);
  return out;
}
const FLAT = new Map<string, FieldDef[]>();

/** A flattened field with what encoding needs per call, computed once. */
interface FieldCodec {
  field: FieldDef;
  info: TypeInfo;
  /** Whether the field is left out when the decoded struct lacks it. */
  absentOmitted: boolean;
  /**
   * For a present value without `omitzero`: how `omitempty` tests its marshalled form
   * (see {@link isEmptyMarshalled}); "never" when it is always written.
   */
  empty: "never" | "list" | "map" | "scalar";
  /** The field's type is `string`. */
  stringField: boolean;
}

function emptyTest(field: FieldDef): FieldCodec["empty"] {
  if (!field.omitempty) return "never";
  const kind = typeInfo(field.type).kind;
  if (kind === "slice") return "list";
  if (kind === "map") return "map";
  if (kind !== "scalar") return "never";
  switch (field.type) {
    case "string":
    case "bool":
    case "int32":
    case "int64":
    case "float64":
      return "scalar";
    default:
      return "never";
  }
}

function fieldCodecs(type: string): FieldCodec[] {
  let cached = CODECS.get(type);
  if (cached === undefined) {
    cached = flatFields(type).map((field) => ({
      field,
      info: typeInfo(field.type),
      absentOmitted: isOmitted(undefined, field),
      empty: emptyTest(field),
      stringField: field.type === "string",
    }));
    CODECS.set(type, cached);
  }
  return cached;
}
const CODECS = new Map<string, FieldCodec[]>();

/** The JSON names of a struct's flattened fields, and whether two of them are equal but for case. */
interface FieldNames {
  names: Set<string>;
  caseCollision: boolean;
}

function fieldNames(type: string): FieldNames {
  let cached = NAMES.get(type);
  if (cached === undefined) {
    const fields = flatFields(type);
    const names = new Set(fields.map((f) => f.json));
    const folded = new Set(fields.map((f) => f.json.toLowerCase()));
    cached = { names, caseCollision: folded.size !== names.size };
    NAMES.set(type, cached);
  }
  return cached;
}
const NAMES = new Map<string, FieldNames>();
const NO_KEYS: string[] = [];

/**
 * The keys of an object that may case-fold to a field's name. A key equal to one field's name folds
 * to another field's name only if those two names collide; without collisions, only the keys that
 * match no field exactly can be case-folded matches (usually none: no array is made then).
 */
function foldCandidates(keys: string[], { names, caseCollision }: FieldNames): readonly string[] {
  if (caseCollision) return keys;
  let candidates: string[] = NO_KEYS;
  for (const k of keys) {
    if (names.has(k)) continue;
    if (candidates === NO_KEYS) candidates = [];
    candidates.push(k);
  }
  return candidates;
}

/**
 * Finds the JSON key that encoding/json would decode into field `name` (exact, else case-folded:
 * the last of `candidates`, the keys that may fold to it).
 */
function lookupKey(obj: Record<string, unknown>, name: string, candidates: readonly string[]): string | undefined {
  if (Object.hasOwn(obj, name)) return name;
  if (candidates.length === 0) return undefined;
  const lower = name.toLowerCase();
  let found: string | undefined;
  for (const k of candidates) if (k.toLowerCase() === lower) found = k;
  return found;
}

function decodeStruct(v: unknown, type: string, where: Where): Decoded {
  const def = structDef(type);
  if (def === undefined) throw new Error(`unknown struct ${type}`);
  if (v === null || v === undefined) return undefined;
  if (!isRecord(v)) throw typeError(jsonKind(v), where, type);
  if (def.opaque) return structuredClone(v);
  const out: Record<string, unknown> = {};
  const candidates = foldCandidates(Object.keys(v), fieldNames(type));
  for (const { field: f, info } of fieldCodecs(type)) {
    const key = lookupKey(v, f.json, candidates);
    if (key === undefined) continue;
    const d = decode(v[key], f.type, { struct: type, parent: where, field: f.json }, info);
    if (d !== undefined) out[f.json] = d;
  }
  return out;
}

function decode(v: unknown, type: string, where: Where, info = typeInfo(type)): Decoded {
  if (info.kind === "ptr") {
    if (v === null || v === undefined) return undefined;
    const inner = decode(v, info.elem, where);
    // A present pointer to a zero value is not nil: remember it as present.
    return inner === undefined ? ZERO : inner;
  }
  if (info.kind === "slice") {
    if (v === null || v === undefined) return undefined;
    if (!Array.isArray(v)) throw typeError(jsonKind(v), where, type);
    const elem = info.elem;
    const elemInfo = typeInfo(elem);
    return v.map((item) => {
      const d = decode(item, elem, where, elemInfo);
      return d === undefined ? ZERO : d;
    });
  }
  if (info.kind === "map") {
    if (v === null || v === undefined) return undefined;
    if (!isRecord(v)) throw typeError(jsonKind(v), where, type);
    const elem = info.elem;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const d = decode(v[k], elem, where);
      out[k] = d === undefined ? ZERO : d;
    }
    return out;
  }
  if (info.kind === "struct") return decodeStruct(v, type, where);
  if (v === null || v === undefined) return undefined;
  switch (type) {
    case "raw":
      return structuredClone(v);
    case "string":
      if (typeof v === "string") return v;
      // sigs.k8s.io/yaml turns YAML numbers and booleans into strings for string targets.
      if (typeof v === "number") return Number.isInteger(v) ? String(v) : goFloat32(v);
      if (typeof v === "boolean") return v ? "true" : "false";
      throw typeError(jsonKind(v), where, type);
    case "bool":
      if (typeof v === "boolean") return v;
      throw typeError(jsonKind(v), where, type);
    case "int32":
    case "int64": {
      if (typeof v !== "number") throw typeError(jsonKind(v), where, type);
      const limit = type === "int32" ? 2 ** 31 : 2 ** 63;
      if (!Number.isInteger(v) || v < -limit || v >= limit) throw typeError(`number ${v}`, where, type);
      return v;
    }
    case "float64":
      if (typeof v !== "number") throw typeError(jsonKind(v), where, type);
      return v;
    case "quantity":
      if (typeof v === "number") return canonicalQuantity(String(v));
      if (typeof v === "string") return canonicalQuantity(v.trim());
      throw typeError(jsonKind(v), where, type);
    case "intOrString":
      if (typeof v === "string") return v;
      if (typeof v === "number") {
        if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw typeError(`number ${v}`, where, "int32");
        return v;
      }
      throw typeError(jsonKind(v), where, type);
    case "time":
      if (typeof v !== "string") throw typeError(jsonKind(v), where, type);
      return formatTime(v, where);
  }
  throw new Error(`unknown field type ${type}`);
}

/**
 * `encode(decode(v))` in one pass, without the intermediate decoded value: what Go writes for `v`
 * decoded into a field of type `type`. The place of the value (for error messages) is `{ struct,
 * parent, field }`, built only when needed. A nil (null or missing) value gives the type's zero
 * value, as a nil slice element or map value decodes to one.
 */
function marshal(
  v: unknown,
  type: string,
  info: TypeInfo,
  struct: string,
  parent: Where | undefined,
  field: string,
): unknown {
  switch (info.kind) {
    case "ptr":
      if (v === null || v === undefined) return null;
      return marshal(v, info.elem, elemInfoOf(info), struct, parent, field);
    case "slice": {
      if (v === null || v === undefined) return null;
      if (!Array.isArray(v)) throw typeError(jsonKind(v), { struct, parent, field }, type);
      const elem = info.elem;
      const elemInfo = elemInfoOf(info);
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = marshal(v[i], elem, elemInfo, struct, parent, field);
      return out;
    }
    case "map": {
      if (v === null || v === undefined) return null;
      if (!isRecord(v)) throw typeError(jsonKind(v), { struct, parent, field }, type);
      const elem = info.elem;
      const elemInfo = elemInfoOf(info);
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) out[k] = marshal(v[k], elem, elemInfo, struct, parent, field);
      return out;
    }
    case "struct":
      return marshalStruct(v, type, structCodecOf(info, type), struct, parent, field);
  }
  if (v === null || v === undefined) return encode(undefined, type, info);
  // The common cases directly; the rest (conversions, checks, errors) as decoding does them.
  switch (type) {
    case "string":
      if (typeof v === "string") return v;
      break;
    case "bool":
      if (typeof v === "boolean") return v;
      break;
    case "int32":
      if (typeof v === "number" && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) return v;
      break;
    case "intOrString":
      if (typeof v === "string") return v;
      break;
  }
  return decode(v, type, { struct, parent, field }, info);
}

/** What marshalling a struct type needs, looked up once. */
interface StructCodec {
  opaque: boolean;
  fields: FieldCodec[];
  names: FieldNames;
  /**
   * For structs with distinct JSON names: each name's position in `fields`, and the positions of the
   * fields written even when absent. An object whose keys all name fields exactly is then
   * marshalled by visiting only those positions (in field order) instead of every field, and one
   * whose keys are in field order besides (a typed object) by visiting its keys.
   */
  sparse?: { position: Map<string, number>; writtenWhenAbsent: number[] };
}

function structCodecOf(info: TypeInfo, type: string): StructCodec {
  if (info.struct === undefined) {
    const def = structDef(type);
    if (def === undefined) throw new Error(`unknown struct ${type}`);
    const fields = fieldCodecs(type);
    const names = fieldNames(type);
    info.struct = { opaque: def.opaque === true, fields, names };
    if (names.names.size === fields.length) {
      info.struct.sparse = {
        position: new Map(fields.map((fc, i) => [fc.field.json, i])),
        writtenWhenAbsent: fields.flatMap((fc, i) => (fc.absentOmitted ? [] : [i])),
      };
    }
  }
  return info.struct;
}

/**
 * The positions in `codec.fields` that marshalling `v` writes or reads, in field order, when every
 * key of `v` names a field exactly (`keys` are its keys); undefined otherwise (then every field is
 * visited). A field neither present nor written when absent would be skipped by the full visit too.
 * `ordered` (when given) is set to whether the positions are those of `keys`, one for one and in
 * the same order: every key is then that field's own key, and no absent field is written.
 */
function sparsePositions(
  v: Record<string, unknown>,
  keys: string[],
  codec: StructCodec,
  ordered: { value: boolean },
): number[] | undefined {
  const sparse = codec.sparse;
  if (sparse === undefined) return undefined;
  const out: number[] = [];
  // Keys in field order (an object typed already) need no sort.
  let inOrder = true;
  let last = -1;
  for (const k of keys) {
    const i = sparse.position.get(k);
    if (i === undefined) return undefined;
    if (i < last) inOrder = false;
    last = i;
    out.push(i);
  }
  for (const i of sparse.writtenWhenAbsent) {
    if (!Object.hasOwn(v, (codec.fields[i] as FieldCodec).field.json)) {
      out.push(i);
      inOrder = false;
    }
  }
  ordered.value = inOrder;
  return inOrder ? out : out.sort(byNumber);
}

const byNumber = (a: number, b: number) => a - b;

/** Scratch for {@link sparsePositions}' `ordered` (read right after each call, so one serves every call). */
const ORDERED = { value: false };

/** {@link marshal} for a struct type. */
function marshalStruct(
  v: unknown,
  type: string,
  codec: StructCodec,
  struct: string,
  parent: Where | undefined,
  field: string,
): unknown {
  const out: Record<string, unknown> = {};
  if (v === null || v === undefined) {
    if (codec.opaque) return out;
    for (const { field: f, info, absentOmitted } of codec.fields) {
      if (!absentOmitted) out[f.json] = marshal(undefined, f.type, info, type, undefined, f.json);
    }
    return out;
  }
  const where: Where = { struct, parent, field };
  if (!isRecord(v)) throw typeError(jsonKind(v), where, type);
  if (codec.opaque) return structuredClone(v);
  const keys = Object.keys(v);
  const positions = sparsePositions(v, keys, codec, ORDERED);
  if (positions !== undefined && ORDERED.value) {
    // Each key is its field's own (exact) key, in field order: no lookups.
    for (let n = 0; n < keys.length; n++) {
      marshalField(out, codec.fields[positions[n] as number] as FieldCodec, v[keys[n] as string], type, where);
    }
    return out;
  }
  const candidates = positions === undefined ? foldCandidates(keys, codec.names) : NO_KEYS;
  const count = positions === undefined ? codec.fields.length : positions.length;
  for (let n = 0; n < count; n++) {
    const fc = codec.fields[positions === undefined ? n : (positions[n] as number)] as FieldCodec;
    const key = lookupKey(v, fc.field.json, candidates);
    marshalField(out, fc, key === undefined ? undefined : v[key], type, where);
  }
  return out;
}

/** Writes to `out` what Go writes for field `fc` of a struct of type `type` whose value is `x` (undefined: absent). */
function marshalField(out: Record<string, unknown>, fc: FieldCodec, x: unknown, type: string, where: Where): void {
  const f = fc.field;
  if (x === null || x === undefined) {
    // Nil decodes to nothing: the field is written as if absent.
    if (!fc.absentOmitted) out[f.json] = marshal(undefined, f.type, fc.info, type, where, f.json);
    return;
  }
  if (f.omitzero) {
    const d = decode(x, f.type, { struct: type, parent: where, field: f.json }, fc.info);
    if (!isOmitted(d, f)) out[f.json] = encode(d, f.type, fc.info);
    return;
  }
  // A string for a string field is itself (the commonest field of all).
  const value = fc.stringField && typeof x === "string" ? x : marshal(x, f.type, fc.info, type, where, f.json);
  if (fc.empty === "never" || !isEmptyMarshalled(value, fc.empty)) out[f.json] = value;
}

/**
 * Whether `omitempty` drops a field whose present (non-nil) value marshalled to `value`: the
 * marshalled form of a list, map or scalar is empty exactly when its decoded form is.
 */
function isEmptyMarshalled(value: unknown, test: FieldCodec["empty"]): boolean {
  switch (test) {
    case "list":
      return (value as unknown[]).length === 0;
    case "map":
      for (const _ in value as object) return false;
      return true;
    case "scalar":
      return value === "" || value === 0 || value === false;
    default:
      return false;
  }
}

/** Stands for a present zero value (a non-nil pointer to "" or 0, an empty struct in a slice). */
const ZERO: unique symbol = Symbol("zero");

function encode(d: Decoded, type: string, info = typeInfo(type)): unknown {
  if (info.kind === "ptr") {
    if (d === undefined) return null;
    return encode(d === ZERO ? undefined : d, info.elem);
  }
  if (info.kind === "slice") {
    if (d === undefined) return null;
    const elem = info.elem;
    const elemInfo = typeInfo(elem);
    return (d as Decoded[]).map((x) => encode(x === ZERO ? undefined : x, elem, elemInfo));
  }
  if (info.kind === "map") {
    if (d === undefined) return null;
    const elem = info.elem;
    const m = d as Record<string, Decoded>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(m)) out[k] = encode(m[k] === ZERO ? undefined : m[k], elem);
    return out;
  }
  if (info.kind === "struct") {
    const def = structDef(type);
    if (def?.opaque) return d === undefined ? {} : d;
    const src = (d ?? {}) as Record<string, Decoded>;
    const out: Record<string, unknown> = {};
    for (const { field: f, info: fieldInfo, absentOmitted } of fieldCodecs(type)) {
      const present = Object.hasOwn(src, f.json);
      if (!present && absentOmitted) continue;
      const value = present ? src[f.json] : undefined;
      if (isOmitted(value, f)) continue;
      out[f.json] = encode(value === ZERO ? undefined : value, f.type, fieldInfo);
    }
    return out;
  }
  if (d === ZERO) d = undefined;
  switch (type) {
    case "raw":
      return d === undefined ? null : d;
    case "string":
      return d ?? "";
    case "bool":
      return d ?? false;
    case "int32":
    case "int64":
    case "float64":
      return d ?? 0;
    case "quantity":
      return d ?? "0";
    case "intOrString":
      return d ?? 0;
    case "time":
      return d ?? null;
  }
  throw new Error(`unknown field type ${type}`);
}

/** Whether encoding/json leaves the field out. */
function isOmitted(value: Decoded, f: FieldDef): boolean {
  const t = f.type;
  if (f.omitzero && isZeroValue(value, t)) return true;
  if (!f.omitempty) return false;
  const kind = typeInfo(t).kind;
  if (kind === "ptr") return value === undefined;
  if (kind === "slice") return value === undefined || (value as unknown[]).length === 0;
  if (kind === "map") return value === undefined || Object.keys(value as object).length === 0;
  if (kind === "struct") return false;
  switch (t) {
    case "string":
    case "bool":
    case "int32":
    case "int64":
    case "float64":
      return value === undefined || value === ZERO || value === "" || value === 0 || value === false;
    case "raw":
      return value === undefined || value === null;
    default:
      // Quantity, IntOrString and Time are structs: omitempty never drops them.
      return false;
  }
}

function isZeroValue(value: Decoded, type: string): boolean {
  if (value === undefined || value === ZERO) return true;
  if (isStructType(type)) return Object.keys(value as object).length === 0;
  return value === "" || value === 0 || value === false;
}

function goFloat32(v: number): string {
  // strconv.FormatFloat(v, 'g', -1, 32) for the non-integral numbers YAML can give a string field.
  const f = Math.fround(v);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return goExponent(Number(s).toString());
  }
  return goExponent(f.toString());
}

function goExponent(s: string): string {
  // JavaScript writes 1e+21 / 1e-7; Go's %g writes two-digit exponents (1e+21, 1e-07).
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

/** metav1.Time: RFC 3339 text, re-printed in UTC with second precision. */
function formatTime(text: string, where: Where): string {
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) || Number.isNaN(ms)) {
    throw new TypedDecodeError(
      `${pathOf(where) ? `${pathOf(where)}: ` : ""}parsing time ${JSON.stringify(text)} as "2006-01-02T15:04:05Z07:00": cannot parse`,
    );
  }
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
