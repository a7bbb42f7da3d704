/**
 * Reading protobuf-JSON into a message, as Istio's jsonpb Unmarshaler does: JSON or .proto field
 * names, `null` meaning "not given", wrappers as bare values, durations through time.ParseDuration,
 * enums by name or number, int fields from numbers or numeric strings. The result is canonical (see
 * message.ts). Unknown fields are an error in strict mode and skipped otherwise, as Istio's
 * ApplyYAML/ApplyJSON retry with AllowUnknownFields does.
 */

import { isRecord } from "../go/json.js";
import { DurationError } from "../go/time/duration.js";
import { formatProtoDuration, parseProtoDuration } from "./duration.js";
import type { Msg } from "./message.js";
import { enumDef, enumName, enumNumber, type FieldDef, messageDef, refName, type ScalarType } from "./schema.js";

/** A value that does not fit the schema; the message names the field path and the cause. */
export class ProtoJSONError extends Error {
  override name = "ProtoJSONError";
}

export interface DecodeOptions {
  /** Reject unknown fields (jsonpb's first, strict pass). Default false. */
  strict?: boolean;
  /** Collects the paths of unknown fields that were skipped. */
  unknownFields?: string[];
  /**
   * Keep `null` map values as `null` (a Go object's nil entries, e.g. a nil custom tag) instead of
   * decoding them as empty messages, as jsonpb does. For reading Go-shaped test data.
   */
  keepNullMapValues?: boolean;
}

interface Ctx extends DecodeOptions {
  path: string;
}

function fail(ctx: Ctx, why: string): never {
  throw new ProtoJSONError(ctx.path ? `${ctx.path}: ${why}` : why);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (isRecord(v)) return "an object";
  return `${typeof v} ${JSON.stringify(v)}`;
}

function at(ctx: Ctx, key: string): Ctx {
  return { ...ctx, path: ctx.path ? `${ctx.path}.${key}` : key };
}

/** Decodes a JSON object into a message of the given type (only the fields present in the JSON). */
export function decodeMessage(type: string, json: unknown, options: DecodeOptions = {}): Msg {
  return decodeMsg(type, json, { ...options, path: "" });
}

function decodeMsg(type: string, json: unknown, ctx: Ctx): Msg {
  if (!isRecord(json)) fail(ctx, `expected an object for ${type}, got ${describe(json)}`);
  const def = messageDef(type);
  const out: Msg = {};
  const used = new Set<string>();
  for (const field of def.fields) {
    const key = Object.hasOwn(json, field.json)
      ? field.json
      : Object.hasOwn(json, field.proto)
        ? field.proto
        : undefined;
    if (key === undefined) continue;
    used.add(key);
    const raw = json[key];
    if (raw === null) continue; // jsonpb: a null field is left alone
    const value = decodeField(field, raw, at(ctx, key));
    if (field.oneof) {
      for (const other of def.fields) if (other.oneof === field.oneof) delete out[other.json];
    }
    out[field.json] = value;
  }
  for (const key of Object.keys(json)) {
    if (used.has(key)) continue;
    if (ctx.strict) fail(ctx, `unknown field ${JSON.stringify(key)} in ${type}`);
    ctx.unknownFields?.push(at(ctx, key).path);
  }
  return out;
}

function decodeField(field: FieldDef, raw: unknown, ctx: Ctx): unknown {
  if (field.map) {
    if (!isRecord(raw)) fail(ctx, `expected a map, got ${describe(raw)}`);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      // A null map value decodes to an empty message (jsonpb); for scalars it is an error.
      if (v === null && field.type.startsWith("message:")) out[k] = ctx.keepNullMapValues ? null : {};
      else out[k] = decodeSingular(field, v, at(ctx, k));
    }
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(raw)) fail(ctx, `expected a list, got ${describe(raw)}`);
    return raw.map((v, i) => decodeSingular(field, v, { ...ctx, path: `${ctx.path}[${i}]` }));
  }
  return decodeSingular(field, raw, ctx);
}

function decodeSingular(field: FieldDef, raw: unknown, ctx: Ctx): unknown {
  const t = field.type;
  const msg = refName(t, "message");
  if (msg !== undefined) return decodeMsg(msg, raw, ctx);
  const en = refName(t, "enum");
  if (en !== undefined) return decodeEnum(en, raw, ctx);
  if (t.startsWith("wrapper:")) return decodeScalar(wrapped(t), raw, ctx);
  if (t === "duration") return decodeDuration(raw, ctx);
  if (t === "raw") {
    if (!isRecord(raw)) fail(ctx, `expected an object, got ${describe(raw)}`);
    return withoutNulls(raw);
  }
  return decodeScalar(t as ScalarType, raw, ctx);
}

function wrapped(t: string): ScalarType {
  switch (t) {
    case "wrapper:BoolValue":
      return "bool";
    case "wrapper:Int32Value":
      return "int32";
    case "wrapper:UInt32Value":
      return "uint32";
    case "wrapper:Int64Value":
      return "int64";
    case "wrapper:UInt64Value":
      return "uint64";
    case "wrapper:DoubleValue":
      return "double";
    case "wrapper:FloatValue":
      return "float";
    default:
      return "string";
  }
}

const INT_RANGES: Record<string, readonly [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  int64: [-(2 ** 63), 2 ** 63],
  uint64: [0, 2 ** 64],
};

function decodeScalar(t: ScalarType, raw: unknown, ctx: Ctx): unknown {
  switch (t) {
    case "string":
    case "bytes":
      if (typeof raw !== "string") fail(ctx, `expected a string, got ${describe(raw)}`);
      return raw;
    case "bool":
      if (typeof raw !== "boolean") fail(ctx, `expected a boolean, got ${describe(raw)}`);
      return raw;
    case "double":
    case "float": {
      if (typeof raw === "number") return raw;
      if (typeof raw === "string") {
        if (raw === "NaN") return Number.NaN;
        if (raw === "Infinity") return Number.POSITIVE_INFINITY;
        if (raw === "-Infinity") return Number.NEGATIVE_INFINITY;
        const n = Number(raw);
        if (raw.trim() !== "" && Number.isFinite(n)) return n;
      }
      return fail(ctx, `expected a number, got ${describe(raw)}`);
    }
    default: {
      // int32, uint32, int64, uint64: a JSON number or a quoted one.
      const n =
        typeof raw === "number" ? raw : typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : undefined;
      if (n === undefined || !Number.isInteger(n)) fail(ctx, `expected an integer (${t}), got ${describe(raw)}`);
      const [lo, hi] = INT_RANGES[t] as readonly [number, number];
      if (n < lo || n > hi) fail(ctx, `value ${n} out of range for ${t}`);
      return n;
    }
  }
}

function decodeEnum(name: string, raw: unknown, ctx: Ctx): string | number {
  const def = enumDef(name);
  if (typeof raw === "string") {
    if (enumNumber(def, raw) === undefined) fail(ctx, `unknown value ${JSON.stringify(raw)} for enum ${name}`);
    return raw;
  }
  if (typeof raw === "number" && Number.isInteger(raw) && raw >= -(2 ** 31) && raw < 2 ** 31) {
    return enumName(def, raw) ?? raw;
  }
  return fail(ctx, `expected a value of enum ${name}, got ${describe(raw)}`);
}

function decodeDuration(raw: unknown, ctx: Ctx): string {
  if (typeof raw !== "string") fail(ctx, `bad Duration: expected a string, got ${describe(raw)}`);
  try {
    return formatProtoDuration(parseProtoDuration(raw));
  } catch (e) {
    if (e instanceof DurationError) fail(ctx, `bad Duration: ${e.message}`);
    throw e;
  }
}

/** A deep copy without null object members (jsonpb skips null fields). */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (isRecord(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x);
    return out;
  }
  return v;
}
