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
      /^ValuesInputError: failed to parse v0\.yaml: [^\n]* at line 2, column 1$/,
    );
    assert.throws(() => buildValues({ files: [], set: ["a"], setString: [] }), /failed parsing --set "a": key "a"/);
  });
});
