/**
 * Messages in protobuf-JSON form: plain objects keyed by JSON field names, holding canonical values
 * (durations as jsonpb writes them, enums by name, wrappers as bare values). Helpers to tell a field's
 * presence the way proto3 does, to compare like proto.Equal, and to copy.
 */
import { isRecord } from "../go/json.js";
import { enumDef, enumNumber, type FieldDef, messageDef, refName } from "./schema.js";

/** A message in protobuf-JSON form. */
export type Msg = Record<string, unknown>;

/** The number of an enum value held by name (or already as a number). */
export function enumValueNumber(field: FieldDef, v: unknown): number {
  if (typeof v === "number") return v;
  const name = refName(field.type, "enum");
  if (name === undefined || typeof v !== "string") return Number.NaN;
  return enumNumber(enumDef(name), v) ?? Number.NaN;
}

/**
 * Whether a field counts as set (protoreflect's Has): oneof members, messages, wrappers and durations
 * when present; scalars and enums when non-zero; lists and maps when non-empty.
 */
export function isPresent(field: FieldDef, v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (field.repeated) return Array.isArray(v) && v.length > 0;
  if (field.map) return isRecord(v) && Object.keys(v).length > 0;
  if (field.oneof) return true;
  return !isZeroSingular(field, v);
}

/** A singular non-oneof value equal to the proto3 zero value (never true for messages and wrappers). */
function isZeroSingular(field: FieldDef, v: unknown): boolean {
  const t = field.type;
  if (t.startsWith("enum:")) return enumValueNumber(field, v) === 0;
  if (t.startsWith("message:") || t.startsWith("wrapper:") || t === "duration" || t === "raw") return false;
  return v === "" || v === false || v === 0;
}

/** proto.Equal on two messages of the given type (absent and zero scalars are equal; absent and empty messages are not). */
export function messagesEqual(type: string, a: Msg | undefined, b: Msg | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  for (const field of messageDef(type).fields) {
    if (!fieldsEqual(field, a[field.json], b[field.json])) return false;
  }
  return true;
}

/** Compares one field of two messages. */
export function fieldsEqual(field: FieldDef, a: unknown, b: unknown): boolean {
  const pa = isPresent(field, a);
  const pb = isPresent(field, b);
  if (!pa || !pb) return pa === pb;
  if (field.repeated) {
    const la = a as unknown[];
    const lb = b as unknown[];
    return la.length === lb.length && la.every((x, i) => singularEqual(field, x, lb[i]));
  }
  if (field.map) {
    const ma = a as Record<string, unknown>;
    const mb = b as Record<string, unknown>;
    const ka = Object.keys(ma);
    return ka.length === Object.keys(mb).length && ka.every((k) => k in mb && singularEqual(field, ma[k], mb[k]));
  }
  return singularEqual(field, a, b);
}

function singularEqual(field: FieldDef, a: unknown, b: unknown): boolean {
  const msg = refName(field.type, "message");
  if (msg !== undefined)
    return messagesEqual(msg, (a ?? undefined) as Msg | undefined, (b ?? undefined) as Msg | undefined);
  if (field.type.startsWith("enum:")) return enumValueNumber(field, a) === enumValueNumber(field, b);
  if (field.type === "raw") return jsonEqual(a, b);
  return a === b;
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** The message with its fields in declaration order (unknown keys dropped). */
export function inDeclarationOrder(type: string, m: Msg): Msg {
  const out: Msg = {};
  for (const field of messageDef(type).fields) {
    if (m[field.json] !== undefined) out[field.json] = m[field.json];
  }
  return out;
}
