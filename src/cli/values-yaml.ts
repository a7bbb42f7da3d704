/**
 * Reads a Helm values file the way Helm does: YAML decoded by go-yaml v2 (YAML 1.1 scalars), then
 * round-tripped through JSON (sigs.k8s.io/yaml), so every number becomes a float64 and every map a
 * `map[string]interface {}` with string keys.
 *
 * The `yaml` package parses the text; its YAML 1.1 number and timestamp tags are replaced by one
 * resolver that follows go-yaml v2's rules (the Kubernetes YAML reader's), which differ from the
 * YAML 1.1 spec in places:
 * `1e3` is a float, `0o17` and `0b101` are ints, `1_000` drops its underscores, base-60 numbers and
 * timestamps stay strings (go-yaml v2 hands timestamps to interface{} targets as text).
 */
import { parseDocument, type ScalarTag, type Tags } from "yaml";
import { type GoValue, newMap } from "../go/value.js";
import { resolvePlain } from "../go/yaml/resolve.js";

const INT_TAG = "tag:yaml.org,2002:int";
const FLOAT_TAG = "tag:yaml.org,2002:float";
const REPLACED_TAGS = new Set([INT_TAG, FLOAT_TAG, "tag:yaml.org,2002:timestamp"]);

/** go-yaml's shortcut: only scalars starting with a sign, a digit or a dot can be numbers (besides the .inf/.nan words). */
const NUMBER_HINT = /^[-+.0-9]/;

/**
 * The number go-yaml v2 reads from a plain scalar, or undefined when it reads a string.
 * Ints and floats both come back as JS numbers: after Helm's trip through JSON they are all float64.
 */
export function goYamlNumber(text: string): number | undefined {
  const resolved = resolvePlain(text);
  return resolved.tag === "int" || resolved.tag === "float" ? resolved.value : undefined;
}

/** One tag standing for both go-yaml number kinds; scalars it cannot read stay strings. */
function numberTag(tag: string): ScalarTag {
  return {
    tag,
    default: true,
    test: NUMBER_HINT,
    resolve: (text) => goYamlNumber(text) ?? text,
  };
}

function goYamlTags(tags: Tags): Tags {
  const kept = tags.filter((t) => !(typeof t === "object" && REPLACED_TAGS.has(t.tag)));
  return [...kept, numberTag(INT_TAG), numberTag(FLOAT_TAG)];
}

/** A values-file problem, with the file named by the caller. */
export class ValuesError extends Error {
  override name = "ValuesError";
}

/**
 * Parses the text of a values file into a `map[string]interface {}`. An empty file (or one that is
 * only `null`) gives an empty map; a top-level value that is not a map is an error, as in Helm.
 */
export function parseValuesYaml(text: string): Record<string, GoValue> {
  const doc = parseDocument(text, {
    version: "1.1",
    customTags: goYamlTags,
    merge: true,
    // go-yaml v2 lets a later duplicate key win.
    uniqueKeys: false,
    prettyErrors: true,
  });
  if (doc.errors.length > 0) throw new ValuesError(doc.errors[0]?.message ?? "invalid YAML");
  const raw: unknown = doc.toJS({ mapAsMap: true, maxAliasCount: 100 });
  if (raw === null || raw === undefined) return newMap();
  if (!(raw instanceof Map)) {
    throw new ValuesError(`the top level must be a map of values, not ${describe(raw)}`);
  }
  return toGoValue(raw, "") as Record<string, GoValue>;
}

/** Converts a decoded YAML value to the Go value model, as sigs.k8s.io/yaml + encoding/json would. */
function toGoValue(v: unknown, path: string): GoValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (!Number.isFinite(v)) throw new ValuesError(`${where(path)}json: unsupported value: ${goFloatWord(v)}`);
      return v;
    case "bigint":
      return Number(v);
  }
  if (v instanceof Map) {
    const out = newMap();
    for (const [k, value] of v) {
      const key = mapKey(k, path);
      out[key] = toGoValue(value, path ? `${path}.${key}` : key);
    }
    return out;
  }
  if (v instanceof Set) {
    // A !!set is a map whose values are all null.
    const out = newMap();
    for (const k of v) out[mapKey(k, path)] = null;
    return out;
  }
  if (Array.isArray(v)) return v.map((item, i) => toGoValue(item, `${path}[${i}]`));
  // !!binary: go-yaml decodes it to a string of the bytes.
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  throw new ValuesError(`${where(path)}unsupported YAML value ${describe(v)}`);
}

/** JSON object keys are strings; sigs.k8s.io/yaml spells numbers and booleans the way Go prints them. */
function mapKey(k: unknown, path: string): string {
  switch (typeof k) {
    case "string":
      return k;
    case "boolean":
      return String(k);
    case "number":
      if (Number.isNaN(k)) return ".nan";
      if (!Number.isFinite(k)) return k > 0 ? ".inf" : "-.inf";
      // Go formats float keys with 'g' at float32 precision; JS's shortest form agrees for the
      // integers and short decimals values files use as keys.
      return String(k);
  }
  throw new ValuesError(`${where(path)}unsupported map key ${describe(k)}: keys must be strings, numbers or booleans`);
}

function goFloatWord(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  return v > 0 ? "+Inf" : "-Inf";
}

function where(path: string): string {
  return path ? `${path}: ` : "";
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "a list";
  if (v instanceof Map) return "a map";
  return `${typeof v} ${JSON.stringify(v) ?? String(v)}`;
}
