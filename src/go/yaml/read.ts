/**
 * Reading YAML as Kubernetes reads it (sigs.k8s.io/yaml over go-yaml v2): go-yaml v2 decodes the text
 * with YAML 1.1 scalar rules (resolve.ts), then the value goes through JSON: map keys become strings and
 * numbers become JSON numbers. The `yaml` package parses; one scalar resolver replaces its YAML 1.1 tags
 * so plain scalars resolve exactly as go-yaml's `resolve` does. block.ts reads the common block subset
 * faster.
 */
import { type Document, parseAllDocuments, type ScalarTag, type Tags } from "yaml";
import { formatFloat } from "../strconv.js";
import { readBlockYaml, UNSUPPORTED } from "./block.js";
import { resolvePlain } from "./resolve.js";

/** A YAML document that cannot be read, with go-yaml-like position information. */
export class YamlError extends Error {
  override name = "YamlError";
}

/** Marks a YAML 1.1 timestamp: go-yaml hands it to interface{} targets as its text. */
const GO_SCALAR_TAG = "tag:meshinject,2025:go-scalar";

function goYamlTags(tags: Tags): Tags {
  const resolver: ScalarTag = {
    tag: GO_SCALAR_TAG,
    default: true,
    // Every plain scalar. A `<<` key still merges: the yaml package recognises it by its text.
    test: /^[\s\S]*$/,
    resolve: (text) => resolvePlain(text).value,
  };
  return [resolver, ...tags];
}

/**
 * Reads one YAML document (the first, if the text holds several) into a JSON-shaped value the way
 * `sigs.k8s.io/yaml.Unmarshal` into `interface{}` does. An empty document gives `null`.
 */
export function readYaml(text: string): unknown {
  const fast = readBlockYaml(text);
  if (fast !== UNSUPPORTED) return fast;
  return readYamlFully(text);
}

/** {@link readYaml} with the full parser (for every text; the block reader covers the common subset). */
export function readYamlFully(text: string): unknown {
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, {
      version: "1.1",
      customTags: goYamlTags,
      merge: true,
      uniqueKeys: false,
      prettyErrors: true,
      // Problems become errors or are ignored; the library must not print warnings to stderr.
      logLevel: "error",
    }) as Document.Parsed[];
  } catch (e) {
    throw new YamlError(`yaml: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!Array.isArray(docs)) docs = [docs as Document.Parsed];
  const doc = docs[0];
  if (doc === undefined) return null;
  const err = doc.errors[0];
  if (err !== undefined) {
    const pos = err.linePos?.[0];
    const where = pos ? `line ${pos.line}, column ${pos.col}: ` : "";
    const message = (err.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    throw new YamlError(`yaml: ${where}${message}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ mapAsMap: true, maxAliasCount: 10000 });
  } catch (e) {
    throw new YamlError(`yaml: ${e instanceof Error ? e.message : String(e)}`);
  }
  return toJSON(raw, "");
}

/** Converts a decoded YAML value to what JSON would carry (sigs.k8s.io/yaml's convertToJSONableObject). */
function toJSON(v: unknown, path: string): unknown {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (!Number.isFinite(v)) {
        throw new YamlError(
          `${where(path)}json: unsupported value: ${Number.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"}`,
        );
      }
      return v;
    case "bigint":
      return Number(v);
  }
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, value] of v) {
      const key = jsonKey(k, path);
      const child = toJSON(value, path ? `${path}.${key}` : key);
      Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (v instanceof Set) {
    const out: Record<string, unknown> = {};
    for (const k of v) out[jsonKey(k, path)] = null;
    return out;
  }
  if (Array.isArray(v)) return v.map((item, i) => toJSON(item, `${path}[${i}]`));
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Date) return v.toISOString();
  throw new YamlError(`${where(path)}unsupported YAML value`);
}

function jsonKey(k: unknown, path: string): string {
  switch (typeof k) {
    case "string":
      return k;
    case "boolean":
      return String(k);
    case "bigint":
      return k.toString();
    case "number":
      if (Number.isNaN(k)) return ".nan";
      if (!Number.isFinite(k)) return k > 0 ? ".inf" : "-.inf";
      return Number.isInteger(k) ? String(k) : formatFloat(k, "g", -1, 32);
  }
  throw new YamlError(`${where(path)}unsupported map key of type ${k === null ? "<nil>" : typeof k}`);
}

function where(path: string): string {
  return path ? `${path}: ` : "";
}
