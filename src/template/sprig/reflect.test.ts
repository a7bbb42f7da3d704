// Expectations captured from the Go oracle (Go 1.19, Sprig 3.2.3).
import assert from "node:assert/strict";
import { test } from "node:test";
import { newMap, TypedNil, TypedNumber, withGoType } from "../../go/value.js";
import { reflectFuncs as R } from "./reflect.js";

test("typeOf / typeIs / typeIsLike", () => {
  assert.equal(R.typeOf.fn(1n), "int");
  assert.equal(R.typeOf.fn(null), "<nil>");
  assert.equal(R.typeIs.fn("float64", 1.5), true);
  assert.equal(R.typeIsLike.fn("int", 1n), true);
});

test("kindOf prints reflect.Kind names", () => {
  assert.equal(R.kindOf.fn(null), "invalid");
  assert.equal(R.kindOf.fn([]), "slice");
  assert.equal(R.kindOf.fn(withGoType([""], "[]string")), "slice");
  assert.equal(R.kindOf.fn(newMap()), "map");
  assert.equal(R.kindOf.fn(1n), "int");
  assert.equal(R.kindOf.fn(1.5), "float64");
  assert.equal(R.kindOf.fn(new TypedNumber("int64", 1n)), "int64");
  assert.equal(R.kindOf.fn("x"), "string");
  assert.equal(R.kindIs.fn("invalid", null), true);
});

test("deepEqual is reflect.DeepEqual", () => {
  assert.equal(R.deepEqual.fn([1n], [1n]), true);
  assert.equal(R.deepEqual.fn(1n, 1.0), false);
  assert.equal(R.deepEqual.fn(new TypedNil("[]interface {}"), []), false);
  assert.equal(R.deepEqual.fn(null, null), true);
  assert.equal(R.deepEqual.fn(NaN, NaN), false);
  const a = Object.assign(newMap(), { x: [1n, "a"] });
  const b = Object.assign(newMap(), { x: [1n, "a"] });
  assert.equal(R.deepEqual.fn(a, b), true);
});
