import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cloneJson, isRecord } from "./json.js";

describe("JSON-shaped data", () => {
  it("tells objects from arrays, null and scalars", () => {
    assert.equal(isRecord({}), true);
    assert.equal(isRecord([]), false);
    assert.equal(isRecord(null), false);
    assert.equal(isRecord("x"), false);
  });

  it("copies deeply with JSON's semantics, a __proto__ key as data", () => {
    const source = JSON.parse('{"a": [1, {"b": 2}], "__proto__": {"polluted": true}}');
    const copy = cloneJson(source);
    assert.deepEqual(Object.keys(copy), ["a", "__proto__"]);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.notEqual(copy.a, source.a);
    assert.deepEqual(cloneJson({ x: undefined, y: [undefined] }), { y: [null] });
  });
});
