/**
 * Reading mesh configuration text (YAML or JSON) the way Istio does: sigs.k8s.io/yaml, that is
 * go-yaml v2 (YAML 1.1 scalars: `yes`/`on` are booleans, `0777` is octal) converted to JSON, which
 * is what the Kubernetes YAML reader implements.
 */
import { readYaml, YamlError } from "../go/yaml/read.js";

/** A mesh config text that is not valid YAML (or whose top level is not a map). */
export class MeshYamlError extends Error {
  override name = "MeshYamlError";
}

/** The JSON object a YAML/JSON document holds; `{}` for an empty document. */
export function readYamlObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = readYaml(text);
  } catch (e) {
    if (e instanceof YamlError) throw new MeshYamlError(e.message);
    throw e;
  }
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    const what = Array.isArray(value) ? "a list" : `${typeof value} ${JSON.stringify(value)}`;
    throw new MeshYamlError(`the top level must be a map of values, not ${what}`);
  }
  return value as Record<string, unknown>;
}
