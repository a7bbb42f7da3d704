/**
 * Reading mesh configuration text (YAML or JSON) the way Istio does: sigs.k8s.io/yaml, that is
 * go-yaml v2 (YAML 1.1 scalars: `yes`/`on` are booleans, `0777` is octal) converted to JSON.
 * The values-file reader already implements exactly that conversion, so it is reused here.
 */
import { parseValuesYaml, ValuesError } from "../cli/values-yaml.js";

/** A mesh config text that is not valid YAML (or whose top level is not a map). */
export class MeshYamlError extends Error {
  override name = "MeshYamlError";
}

/** The JSON object a YAML/JSON document holds; `{}` for an empty document. */
export function readYamlObject(text: string): Record<string, unknown> {
  try {
    return parseValuesYaml(text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof ValuesError) throw new MeshYamlError(e.message);
    throw e;
  }
}
