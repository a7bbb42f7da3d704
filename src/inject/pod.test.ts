import assert from "node:assert/strict";
import { test } from "node:test";
import { clone, goJSON, placeContainer } from "./pod.js";

test("clone copies JSON deeply and keeps a __proto__ key as data", () => {
  const original = JSON.parse('{"a":[1,{"b":null,"__proto__":{"x":1}}],"c":"s"}');
  const copy = clone(original);
  assert.deepEqual(copy, original);
  assert.notEqual(copy.a, original.a);
  assert.equal(Object.getPrototypeOf(copy.a[1]), Object.prototype);
  assert.deepEqual(Object.keys(copy.a[1]), ["b", "__proto__"]);
});

test("goJSON escapes HTML characters as Go's json.Marshal does", () => {
  assert.equal(goJSON({ a: "<b>&" }), '{"a":"\\u003cb\\u003e\\u0026"}');
});

test("placeContainer moves or removes by name and leaves a list without it alone", () => {
  const list = [{ name: "a" }, { name: "b" }, { name: "c" }];
  assert.deepEqual(
    placeContainer(list, "b", "first")?.map((c) => c.name),
    ["b", "a", "c"],
  );
  assert.deepEqual(
    placeContainer(list, "a", "last")?.map((c) => c.name),
    ["b", "c", "a"],
  );
  assert.deepEqual(
    placeContainer(list, "c", "remove")?.map((c) => c.name),
    ["a", "b"],
  );
  assert.equal(placeContainer(list, "z", "first"), list);
  assert.equal(placeContainer(null, "a", "first"), undefined);
});
