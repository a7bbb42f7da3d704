/**
 * Assembles the values a template sees, in Helm's order: values files first (each merged over the
 * ones before it), then every `--set`, then every `--set-string` (Helm applies all `--set` flags
 * before any `--set-string`, whatever their order on the command line).
 */
import { type GoValue, isMap, newMap } from "../go/value.js";
import { parseSetInto, SetError } from "./strvals.js";
import { parseValuesYaml, ValuesError } from "./values-yaml.js";

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
      parsed = parseValuesYaml(file.text);
    } catch (e) {
      // One line: the yaml package's message goes on with a snippet of the source and a caret.
      const first = (e instanceof ValuesError ? e.message : "").split("\n")[0]?.replace(/:$/, "") ?? "";
      if (e instanceof ValuesError) throw new ValuesInputError(`failed to parse ${file.name}: ${first}`);
      throw e;
    }
    values = mergeValues(values, parsed);
  }
  // --set writes into the merged map in place, as strvals.ParseInto does; the maps are all fresh.
  applySets(values, sources.set, false, "--set");
  applySets(values, sources.setString, true, "--set-string");
  return values;
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
