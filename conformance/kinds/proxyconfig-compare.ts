/**
 * The proxyconfig corpus's comparison rule: both sides read as protobuf JSON, then fields at their
 * zero value dropped (scalars "", 0, false; empty lists and maps; enums at their zero value), while
 * messages (even empty), wrappers (even 0/false) and set oneof members are kept; then deep equality
 * with map key order ignored.
 */
import { decodeMessage, enumDef, findField, type Msg, messageDef, refName } from "../../src/mesh/index.js";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads a JSON value as a message; unknown fields are reported (a schema gap would hide differences). */
export function canonical(type: string, json: unknown, keepNullMapValues = false): { msg: Msg; unknown: string[] } {
  const unknown: string[] = [];
  const msg = decodeMessage(type, json ?? {}, { unknownFields: unknown, keepNullMapValues });
  return { msg, unknown };
}

/** Drops what the comparison rule ignores, recursively. */
export function normalize(type: string, msg: Msg): Msg {
  const def = messageDef(type);
  const out: Msg = {};
  for (const [key, v] of Object.entries(msg)) {
    const field = findField(def, key);
    if (field === undefined) {
      out[key] = v;
      continue;
    }
    if (v === undefined || v === null) continue;
    if (field.repeated && Array.isArray(v) && v.length === 0) continue;
    if (field.map && isObject(v) && Object.keys(v).length === 0) continue;
    const sub = refName(field.type, "message");
    if (!field.repeated && !field.map && !field.oneof) {
      if (v === "" || v === false || v === 0) continue;
      if (field.type.startsWith("enum:") && isZeroEnum(field.type, v)) continue;
    }
    if (sub !== undefined) {
      if (field.repeated) out[key] = (v as Msg[]).map((x) => normalize(sub, x));
      else if (field.map) {
        const m: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) m[k] = isObject(x) ? normalize(sub, x) : x;
        out[key] = m;
      } else out[key] = normalize(sub, v as Msg);
    } else out[key] = v;
  }
  return out;
}

function isZeroEnum(type: string, v: unknown): boolean {
  if (v === 0) return true;
  const name = refName(type, "enum") as string;
  return typeof v === "string" && enumDef(name).values.find(([, n]) => n === 0)?.[0] === v;
}

/** Deep equality of JSON values, object key order ignored. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Compares a result with the wanted value under the rule; undefined when equal, else the reason. */
export function compareMessages(type: string, got: unknown, want: unknown): string | undefined {
  const w = canonical(type, want);
  if (w.unknown.length > 0) return `wanted fields the schema does not know: ${w.unknown.join(", ")}`;
  const g = canonical(type, got);
  return deepEqual(normalize(type, g.msg), normalize(type, w.msg)) ? undefined : "value differs";
}
