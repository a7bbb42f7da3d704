// The hand-kept schema table (schema.ts) against the Kubernetes API as @kubernetes/client-node's
// generated models describe it (from Kubernetes' OpenAPI spec): for every struct with a model, the
// same JSON fields and the same types. The models carry no Go declaration order, Go field names,
// pointers, omitempty or patch tags (what typed marshalling and the strategic merge need), so the table
// cannot be generated from them; this checks what they do carry. A difference fails, unless listed in
// KNOWN below with the reason.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { type FieldDef, structDef, structNames } from "./schema.js";

interface Attribute {
  baseName: string;
  type: string;
  format: string;
}
type Model = { attributeTypeMap?: readonly Attribute[] } | undefined;
const models = k8s as unknown as Record<string, Model>;

/** The model of a table struct (`V1Container`, `CoreV1ResourceClaim`), by its Go name. */
function modelOf(name: string): { name: string; attributes: readonly Attribute[] } | undefined {
  for (const prefix of ["V1", "CoreV1"]) {
    const attributes = models[prefix + name]?.attributeTypeMap;
    if (attributes !== undefined) return { name: prefix + name, attributes };
  }
  return undefined;
}

/** The struct's JSON fields, inline embedded structs flattened (as encoding/json does). */
function jsonFields(name: string): FieldDef[] {
  return (structDef(name)?.fields ?? []).flatMap((f) => (f.inline ? jsonFields(f.goType) : [f]));
}

/** The model's spelling of a table type: `*[]Container` → `Array<V1Container>`, `int64` → `number/int64`. */
function modelType(goType: string): string | undefined {
  const type = goType.replace(/^\*/, "");
  if (type.startsWith("[]")) {
    const elem = modelType(type.slice(2));
    return elem === undefined ? undefined : `Array<${elem.replace(/\/.*$/, "")}>`;
  }
  if (type.startsWith("map[string]")) {
    const elem = modelType(type.slice("map[string]".length));
    return elem === undefined ? undefined : `{ [key: string]: ${elem.replace(/\/.*$/, "")}; }`;
  }
  switch (type) {
    case "string":
    case "quantity":
      return "string";
    case "int32":
    case "int64":
      return `number/${type}`;
    case "float64":
      return "number/double";
    case "bool":
      return "boolean";
    case "intOrString":
      return "IntOrString/int-or-string";
    case "time":
      return "Date/date-time";
    case "raw":
    case "FieldsV1": // its own JSON (a raw field set): `any` in the models
      return undefined; // kept as given: any model type
  }
  return modelOf(type)?.name ?? `(no model for ${type})`;
}

/**
 * Differences that are right in the table, with why. Checked against Kubernetes' Go types
 * (k8s.io/api core/v1 types.go, Kubernetes 1.34).
 */
const KNOWN: Readonly<Record<string, string>> = {
  "PodResourceClaim.source: not in V1PodResourceClaim":
    "kept on purpose from Kubernetes 1.30 (schema.ts says so); 1.34's Go type no longer has it (removed in 1.31)",
  "ClaimSource: no model": "the type of PodResourceClaim.source, above",
};

/** Structs without a model of their own: meta/v1's TypeMeta, Go-only names, OpenShift's, List. */
const NO_MODEL = new Set([
  "TypeMeta",
  "EphemeralContainerCommon",
  "ProbeHandler",
  "VolumeSource",
  "FieldsV1",
  "List",
  "DeploymentConfig",
  "DeploymentConfigSpec",
  "DeploymentConfigStrategy",
  "DeploymentConfigStatus",
]);

test("the schema table has the fields and types of the Kubernetes API (client-node's models)", () => {
  const differences: string[] = [];
  let compared = 0;
  for (const name of structNames()) {
    const model = modelOf(name);
    if (model === undefined) {
      if (!NO_MODEL.has(name)) differences.push(`${name}: no model`);
      continue;
    }
    compared++;
    const ours = new Map(jsonFields(name).map((f) => [f.json, f]));
    const theirs = new Map(model.attributes.map((a) => [a.baseName, a]));
    for (const [json, f] of ours) {
      const a = theirs.get(json);
      if (a === undefined) {
        differences.push(`${name}.${json}: not in ${model.name}`);
        continue;
      }
      const expected = modelType(f.goType);
      const actual = a.format === "" ? a.type : `${a.type}/${a.format}`;
      if (expected !== undefined && expected !== actual && expected !== a.type) {
        differences.push(`${name}.${json}: ${f.goType} (${expected}), model ${actual}`);
      }
    }
    for (const json of theirs.keys()) if (!ours.has(json)) differences.push(`${name}.${json}: missing`);
  }
  const unexplained = differences.filter((d) => !Object.hasOwn(KNOWN, d));
  assert.deepEqual(unexplained, []);
  assert.ok(compared > 100, `compared ${compared} structs`);
});

test("the models checked against are those of the Kubernetes version the table is of (1.34)", () => {
  // The models' generated files name the spec they were made from; a client-node upgrade that moves to
  // another Kubernetes version fails here first: then update the table (schema.ts) and this test.
  const entry = createRequire(import.meta.url).resolve("@kubernetes/client-node");
  const pod = readFileSync(join(dirname(entry), "gen", "models", "V1Pod.d.ts"), "utf8");
  assert.match(pod, /OpenAPI spec version: v1\.34\.\d+/);
});
