import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type GoValue, TypedNumber } from "../go/value.js";
import { buildValues, mergeValues } from "./values.js";

function plain(v: GoValue): unknown {
  if (v instanceof TypedNumber) return `${v.type}:${v.value}`;
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

function files(...texts: string[]) {
  return texts.map((text, i) => ({ name: `v${i}.yaml`, text }));
}

describe("mergeValues", () => {
  it("merges maps deeply, replaces everything else", () => {
    const base = { a: { b: 1, c: [1, 2] }, d: "x" };
    const merged = mergeValues(base, { a: { c: [3] }, d: { e: 1 } });
    assert.deepEqual(plain(merged), { a: { b: 1, c: [3] }, d: { e: 1 } });
    assert.deepEqual(base, { a: { b: 1, c: [1, 2] }, d: "x" }, "inputs are not modified");
  });
});

describe("buildValues", () => {
  it("applies files in order, then --set, then --set-string", () => {
    const values = buildValues({
      files: files("a: 1\nm: {p: 1, q: 2}\n", "m: {q: 3}\n"),
      set: ["n=5,m.z=true"],
      setString: ["s=5"],
    });
    assert.deepEqual(plain(values), { a: 1, m: { p: 1, q: 3, z: true }, n: "int64:5", s: "5" });
  });

  it("applies every --set before any --set-string, as Helm does", () => {
    const values = buildValues({ files: [], set: ["a=1"], setString: ["a=2"] });
    assert.equal(values.a, "2");
  });

  it("names the file or flag in errors", () => {
    assert.throws(
      () => buildValues({ files: files("a: [\n"), set: [], setString: [] }),
      /^ValuesInputError: failed to parse v0\.yaml: yaml: line 2, column 1: [^\n]*$/,
    );
    assert.throws(() => buildValues({ files: [], set: ["a"], setString: [] }), /failed parsing --set "a": key "a"/);
  });

  // Regression (issue 9): cli/values-yaml.ts was a second go-yaml reader, which kept a float key's
  // digits; Helm's reader (sigs.k8s.io/yaml) formats it at float32 precision.
  it("reads values files with the one go-yaml reader: keys, YAML 1.1 scalars, fresh maps", () => {
    const values = buildValues({
      files: files("3.14159265: pi\non: yes\nd: 2001-12-14\nconstructor: x\n"),
      set: [],
      setString: [],
    });
    assert.deepEqual(Object.keys(values).sort(), ["3.1415927", "constructor", "d", "true"]);
    assert.equal(values.true, true);
    assert.equal(values.d, "2001-12-14");
    assert.equal(Object.getPrototypeOf(values), null);
    assert.throws(() => buildValues({ files: files("- a\n"), set: [], setString: [] }), /top level must be a map/);
  });
});
