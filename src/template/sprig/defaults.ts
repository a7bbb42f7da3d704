/**
 * Sprig's defaults.go: default, empty, coalesce, all, any, ternary and the JSON functions
 * (toJson, toPrettyJson, toRawJson, fromJson and their must variants), which call encoding/json
 * (json.ts): Marshal for toJson, MarshalIndent with two spaces for toPrettyJson, an Encoder without
 * HTML escaping for toRawJson, and Unmarshal into interface{} for fromJson.
 */

import { decodeJSON, type EncodeOptions, encodeJSON } from "../../go/encoding/json.js";
import {
  GoError,
  type GoFunc,
  type GoValue,
  goFunc,
  isGoFunc,
  isGoObject,
  TypedNil,
  TypedNumber,
} from "../../go/value.js";

/** Sprig's `empty`: nil, zero numbers, false, and empty strings/slices/maps; structs never are. */
export function isEmpty(v: GoValue): boolean {
  switch (typeof v) {
    case "undefined":
      return true;
    case "string":
      return v.length === 0;
    case "boolean":
      return !v;
    case "bigint":
      return v === 0n;
    case "number":
      return v === 0;
    case "object":
      if (v === null || v instanceof TypedNil) return true;
      if (v instanceof TypedNumber) return v.value === 0n || v.value === 0;
      if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
      if (isGoFunc(v)) return false;
      if (isGoObject(v)) return v.goTypeName().startsWith("*") ? !!v.goIsNil?.() : false;
      return Object.keys(v).length === 0;
    default:
      return false;
  }
}

function mustFromJson(s: GoValue): GoValue {
  return decodeJSON(s as string);
}

function fromJson(s: GoValue): GoValue {
  try {
    return decodeJSON(s as string);
  } catch (e) {
    if (e instanceof GoError) return null;
    throw e;
  }
}

/** Marshal errors are swallowed by toJson and toPrettyJson, which then return "". */
function orEmpty(f: () => string): string {
  try {
    return f();
  } catch (e) {
    if (e instanceof GoError) return "";
    throw e;
  }
}

const compactHTML: EncodeOptions = { escapeHTML: true };
const prettyHTML: EncodeOptions = { escapeHTML: true, indent: "  " };
const raw: EncodeOptions = { escapeHTML: false };

export const defaultsFuncs: Record<string, GoFunc> = {
  default: goFunc(
    "default",
    ["any", "...any"],
    (d, ...given) => (given.length === 0 || isEmpty(given[0]) ? d : given[0]),
    "interface {}",
  ),
  empty: goFunc("empty", ["any"], (v) => isEmpty(v), "bool"),
  coalesce: goFunc("coalesce", ["...any"], (...vs) => vs.find((v) => !isEmpty(v)) ?? null, "interface {}"),
  all: goFunc("all", ["...any"], (...vs) => vs.every((v) => !isEmpty(v)), "bool"),
  any: goFunc("any", ["...any"], (...vs) => vs.some((v) => !isEmpty(v)), "bool"),
  ternary: goFunc("ternary", ["any", "any", "bool"], (vt, vf, v) => (v ? vt : vf), "interface {}"),
  fromJson: goFunc("fromJson", ["string"], fromJson, "interface {}"),
  mustFromJson: goFunc("mustFromJson", ["string"], mustFromJson, "(interface {}, error)"),
  toJson: goFunc("toJson", ["any"], (v) => orEmpty(() => encodeJSON(v, compactHTML)), "string"),
  mustToJson: goFunc("mustToJson", ["any"], (v) => encodeJSON(v, compactHTML), "(string, error)"),
  toPrettyJson: goFunc("toPrettyJson", ["any"], (v) => orEmpty(() => encodeJSON(v, prettyHTML)), "string"),
  mustToPrettyJson: goFunc("mustToPrettyJson", ["any"], (v) => encodeJSON(v, prettyHTML), "(string, error)"),
  // toRawJson panics on error where toJson swallows it; both surface as GoError here.
  toRawJson: goFunc("toRawJson", ["any"], (v) => encodeJSON(v, raw), "string"),
  mustToRawJson: goFunc("mustToRawJson", ["any"], (v) => encodeJSON(v, raw), "(string, error)"),
};
