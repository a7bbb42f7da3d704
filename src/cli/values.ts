/**
 * Assembles the values a template sees, in Helm's order: values files first (each merged over the
 * ones before it), then every `--set`, then every `--set-string` (Helm applies all `--set` flags
 * before any `--set-string`, whatever their order on the command line).
 */
import { type GoValue, isMap, newMap } from "../go/value.js";
import { readYaml, YamlError } from "../go/yaml/read.js";
import { parseSetInto, SetError } from "./strvals.js";

export interface ValuesSources {
  /** Values files in command-line order, already read. */
  files: ReadonlyArray<{ name: string; text: string }>;
  set: readonly string[];
  setString: readonly string[];
}

/** A problem with one of the value sources; the message names the file or flag. */
export class ValuesInputError extends Error {
  override name = "ValuesInputError";
}

/**
 * Helm's mergeMaps: keys of `override` replace those of `base`, except that two maps under the
 * same key merge recursively. Lists are replaced, never merged. Neither input is modified.
 */
export function mergeValues(base: Record<string, GoValue>, override: Record<string, GoValue>): Record<string, GoValue> {
  const out = newMap();
  for (const k of Object.keys(base)) out[k] = base[k];
  for (const k of Object.keys(override)) {
    const next = override[k];
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    out[k] = isMap(next) && isMap(prev) ? mergeValues(prev, next) : next;
  }
  return out;
}

/** Builds the merged values map from files and `--set` flags. */
export function buildValues(sources: ValuesSources): Record<string, GoValue> {
  let values = newMap();
  for (const file of sources.files) {
    let parsed: Record<string, GoValue>;
    try {
      parsed = readValuesFile(file.text);
    } catch (e) {
      if (e instanceof YamlError) throw new ValuesInputError(`failed to parse ${file.name}: ${e.message}`);
      throw e;
    }
    values = mergeValues(values, parsed);
  }
  // --set writes into the merged map in place, as strvals.ParseInto does; the maps are all fresh.
  applySets(values, sources.set, false, "--set");
  applySets(values, sources.setString, true, "--set-string");
  return values;
}

/**
 * A values file as Helm reads it: YAML through go-yaml v2 and JSON (sigs.k8s.io/yaml, src/go/yaml), so
 * every number is a float64 and a float key such as `3.14159265` reads as `3.1415927`. An empty file
 * (or only `null`) is no values; another top level than a map is an error, as in Helm. Each map is
 * copied into a fresh `map[string]interface {}` without a prototype, since `--set` writes into them.
 */
function readValuesFile(text: string): Record<string, GoValue> {
  const value = readYaml(text);
  if (value === null) return newMap();
  if (typeof value !== "object" || Array.isArray(value)) {
    const what = Array.isArray(value) ? "a list" : `${typeof value} ${JSON.stringify(value)}`;
    throw new YamlError(`the top level must be a map of values, not ${what}`);
  }
  return goMaps(value) as Record<string, GoValue>;
}

function goMaps(v: unknown): GoValue {
  if (Array.isArray(v)) return v.map(goMaps);
  if (v === null || typeof v !== "object") return v;
  const out = newMap();
  for (const k of Object.keys(v)) out[k] = goMaps((v as Record<string, unknown>)[k]);
  return out;
}

function applySets(values: Record<string, GoValue>, lines: readonly string[], forceString: boolean, flag: string) {
  for (const line of lines) {
    try {
      parseSetInto(line, values, forceString);
    } catch (e) {
      if (e instanceof SetError)
        throw new ValuesInputError(`failed parsing ${flag} ${JSON.stringify(line)}: ${e.message}`);
      throw e;
    }
  }
}
