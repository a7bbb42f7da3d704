import assert from "node:assert/strict";
import { test } from "node:test";
import { goStructName, goTypeString, isStructType, structDef, structNames } from "./schema.js";

test("every referenced struct type is defined", () => {
  for (const name of structNames()) {
    for (const f of structDef(name)?.fields ?? []) {
      for (const type of [f.type, f.goType]) {
        const base = type.replace(/^(\*|\[\]|map\[string\])+/, "");
        const scalar = ["string", "int32", "int64", "bool", "float64", "quantity", "intOrString", "time", "raw"];
        assert.ok(scalar.includes(base) || isStructType(base), `${name}.${f.go}: ${type}`);
      }
    }
  }
});

test("fields in Go declaration order with JSON tags", () => {
  const container = structDef("Container");
  assert.deepEqual(
    container?.fields.slice(0, 4).map((f) => [f.go, f.json, f.type, f.omitempty]),
    [
      ["Name", "name", "string", false],
      ["Image", "image", "string", true],
      ["Command", "command", "[]string", true],
      ["Args", "args", "[]string", true],
    ],
  );
  const pod = structDef("PodSpec");
  assert.equal(pod?.fields.find((f) => f.json === "containers")?.omitempty, false);
  assert.equal(structDef("ObjectMeta")?.fields.find((f) => f.json === "creationTimestamp")?.omitzero, true);
  assert.equal(structDef("Probe")?.fields[0]?.inline, true);
});

test("patch tags, and the Go type behind a field typed marshalling keeps as given", () => {
  const spec = (json: string) => structDef("PodSpec")?.fields.find((f) => f.json === json);
  assert.deepEqual([spec("volumes")?.patchStrategy, spec("volumes")?.patchMergeKey], ["merge,retainKeys", "name"]);
  assert.deepEqual([spec("tolerations")?.patchStrategy, spec("tolerations")?.patchMergeKey], ["", ""]);
  assert.deepEqual(
    [spec("ephemeralContainers")?.type, spec("ephemeralContainers")?.goType],
    ["[]raw", "[]EphemeralContainer"],
  );
  assert.equal(structDef("Affinity")?.opaque, true);
  assert.ok(structDef("Affinity")?.fields.length);
});

test("Go type names", () => {
  assert.equal(goStructName("Container"), "v1.Container");
  assert.equal(goStructName("DeploymentConfigStrategy"), "v1.DeploymentStrategy");
  assert.equal(goTypeString("[]Container"), "[]v1.Container");
  assert.equal(goTypeString("*Probe"), "*v1.Probe");
  assert.equal(goTypeString("map[string]string"), "map[string]string");
  assert.equal(goTypeString("map[string]quantity"), "v1.ResourceList");
  assert.equal(goTypeString("*int64"), "*int64");
});
