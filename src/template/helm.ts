/**
 * Helm's template functions beyond Sprig: `toYaml`, `fromYaml`, `fromYamlArray`, `required`, `tpl`
 * and `include`. They are an opt-in set (Helm charts use them; Istio's injection templates do not),
 * offered by `meshinject template render`.
 */

import { encodeJSON } from "../go/encoding/json.js";
import { GoError, type GoFunc, type GoValue, goFunc, newMap } from "../go/value.js";
import { readYaml } from "../go/yaml/read.js";
import { writeYaml } from "../go/yaml/write.js";
import { type Execution, executionFunc } from "./execution.js";

/** Helm stops `include` recursion at this depth with its own message. */
const MAX_INCLUDE_DEPTH = 200;

/**
 * Helm's toYaml: sigs.k8s.io/yaml.Marshal (through JSON, then go-yaml's writer, so a string such as
 * "yes" stays quoted), without the trailing newline; "" on error.
 */
function toYaml(v: GoValue): string {
  try {
    const plain: unknown = JSON.parse(encodeJSON(v, { escapeHTML: false }));
    return writeYaml(plain).replace(/\n$/, "");
  } catch {
    return "";
  }
}

/** Helm's fromYaml: sigs.k8s.io/yaml.Unmarshal (go-yaml v2 through JSON) of the first document. */
function fromYaml(text: string): GoValue {
  try {
    const v = readYaml(text);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return v;
    const m = newMap();
    m.Error = "error unmarshaling JSON: json: cannot unmarshal into Go value of type map[string]interface {}";
    return m;
  } catch (e) {
    const m = newMap();
    m.Error = e instanceof Error ? e.message : String(e);
    return m;
  }
}

function fromYamlArray(text: string): GoValue {
  try {
    const v = readYaml(text);
    if (Array.isArray(v)) return v;
    return [`error unmarshaling JSON: json: cannot unmarshal into Go value of type []interface {}`];
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)];
  }
}

function required(message: string, v: GoValue): GoValue {
  if (v === null || v === undefined || v === "") throw new GoError(message);
  return v;
}

function include(run: Execution, name: string, data: GoValue): string {
  if (run.includeDepth >= MAX_INCLUDE_DEPTH) {
    throw new GoError(`rendering template has a nested reference name: ${name}`);
  }
  run.includeDepth++;
  try {
    return run.template.executeTemplate(name, data, run);
  } finally {
    run.includeDepth--;
  }
}

function tpl(run: Execution, text: string, data: GoValue): string {
  const t = run.template.clone();
  t.parse(text);
  run.includeDepth++;
  try {
    if (run.includeDepth > MAX_INCLUDE_DEPTH) throw new GoError("tpl: nested too deeply");
    return t.executeTemplate(t.name, data, run);
  } finally {
    run.includeDepth--;
  }
}

export const helmFuncs: Readonly<Record<string, GoFunc>> = {
  toYaml: goFunc("toYaml", ["any"], toYaml, "string"),
  fromYaml: goFunc("fromYaml", ["string"], fromYaml, "map[string]interface {}"),
  fromYamlArray: goFunc("fromYamlArray", ["string"], fromYamlArray, "[]interface {}"),
  required: goFunc("required", ["string", "any"], required, "(interface {}, error)"),
  include: executionFunc("include", ["string", "any"], include, "(string, error)"),
  tpl: executionFunc("tpl", ["string", "any"], tpl, "(string, error)"),
};
