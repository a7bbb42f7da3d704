/**
 * Writing a message as Istio's jsonpb Marshaler does (protomarshal.ToJSON): compact text, fields in
 * .proto declaration order, a oneof at the place of its group, zero scalars and enums, empty lists and
 * maps and absent messages left out, set oneof members and wrappers always written, map keys sorted,
 * int64 values quoted, strings escaped like Go's encoding/json (`<` → `\u003c`).
 */

import { isRecord } from "../go/json.js";
import { compareStrings } from "../go/value.js";
import { isPresent, type Msg } from "./message.js";
import { enumDef, enumName, type FieldDef, messageDef, refName } from "./schema.js";

/** The compact jsonpb text of a message of the given type. */
export function protoToJSON(msg: Msg | undefined, type: string): string {
  return msg === undefined ? "{}" : writeMessage(type, msg);
}

/** The same, as a JSON value (parsed back), for callers that want objects in declaration order. */
export function toProtoJSONValue(msg: Msg | undefined, type: string): Record<string, unknown> {
  return JSON.parse(protoToJSON(msg, type)) as Record<string, unknown>;
}

function writeMessage(type: string, msg: Msg): string {
  const parts: string[] = [];
  for (const field of messageDef(type).fields) {
    const v = msg[field.json];
    if (!isPresent(field, v)) continue;
    parts.push(`${goJSONString(field.json)}:${writeField(field, v)}`);
  }
  return `{${parts.join(",")}}`;
}

function writeField(field: FieldDef, v: unknown): string {
  if (field.repeated) return `[${(v as unknown[]).map((x) => writeSingular(field, x)).join(",")}]`;
  if (field.map) {
    const m = v as Record<string, unknown>;
    const keys = Object.keys(m).sort(compareStrings);
    return `{${keys.map((k) => `${goJSONString(k)}:${writeSingular(field, m[k])}`).join(",")}}`;
  }
  return writeSingular(field, v);
}

function writeSingular(field: FieldDef, v: unknown): string {
  const t = field.type;
  const msg = refName(t, "message");
  if (msg !== undefined) return isRecord(v) ? writeMessage(msg, v) : "{}";
  const en = refName(t, "enum");
  if (en !== undefined) {
    if (typeof v === "string") return goJSONString(v);
    return enumName(enumDef(en), v as number) !== undefined
      ? goJSONString(enumName(enumDef(en), v as number) as string)
      : String(v);
  }
  if (t === "duration") return goJSONString(v as string);
  if (t === "raw") return writeRaw(v);
  if (t === "int64" || t === "uint64" || t === "wrapper:Int64Value" || t === "wrapper:UInt64Value") {
    return `"${String(v)}"`;
  }
  if (typeof v === "number") return goJSONNumber(v);
  if (typeof v === "string") return goJSONString(v);
  return JSON.stringify(v);
}

/** A raw (unmodelled) message: its JSON as given. */
function writeRaw(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(writeRaw).join(",")}]`;
  if (isRecord(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${goJSONString(k)}:${writeRaw(x)}`)
      .join(",")}}`;
  if (typeof v === "number") return goJSONNumber(v);
  if (typeof v === "string") return goJSONString(v);
  return JSON.stringify(v) ?? "null";
}

/** encoding/json's float64 text; NaN and infinities as jsonpb's strings. */
export function goJSONNumber(n: number): string {
  if (Number.isNaN(n)) return '"NaN"';
  if (n === Number.POSITIVE_INFINITY) return '"Infinity"';
  if (n === Number.NEGATIVE_INFINITY) return '"-Infinity"';
  if (Object.is(n, -0)) return "-0";
  // JS and Go agree on the shortest digits and on switching to exponent form below 1e-6 and from 1e21.
  return String(n);
}

/** encoding/json's string text (HTML-safe: `<`, `>`, `&`, U+2028 and U+2029 escaped). */
export function goJSONString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
