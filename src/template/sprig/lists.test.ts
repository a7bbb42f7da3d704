// Expectations captured from the Go oracle (Go 1.19, Sprig 3.2.3).
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatValue } from "../../go/fmt.js";
import { type GoValue, newMap, typeName, withGoType } from "../../go/value.js";
import { listsFuncs as L } from "./lists.js";

const show = (v: GoValue) => `${typeName(v)} ${formatValue(v)}`;
const run = (name: string, ...args: GoValue[]) => show(L[name].fn(...args));
const strings = (...s: string[]) => withGoType(s, "[]string");
const NIL_DEREF = { message: "runtime error: invalid memory address or nil pointer dereference" };

test("building lists", () => {
  assert.equal(run("list", 1n, "a"), "[]interface {} [1 a]");
  assert.equal(run("tuple", 1n, 2n), "[]interface {} [1 2]");
  assert.equal(run("append", strings("a"), 1n), "[]interface {} [a 1]");
  assert.equal(run("prepend", [2n], 1n), "[]interface {} [1 2]");
  assert.equal(run("concat", [1n], strings("a", "b")), "[]interface {} [1 a b]");
  assert.equal(run("concat"), "[]interface {} []");
  assert.throws(() => L.concat.fn(1n), { message: "Cannot concat type int as list" });
  assert.throws(() => L.push.fn("a", 1n), { message: "Cannot push on type string" });
  assert.throws(() => L.mustPush.fn("a", 1n), { message: "Cannot push on type string" });
  assert.throws(() => L.push.fn(null, 1n), NIL_DEREF);
  assert.throws(() => L.first.fn(null), NIL_DEREF);
});

test("taking lists apart", () => {
  assert.equal(L.first.fn([]), null);
  assert.equal(L.first.fn([3n, 4n]), 3n);
  assert.equal(L.last.fn([1n, 2n]), 2n);
  assert.equal(run("rest", []), "[]interface {} []");
  assert.equal(typeName(L.rest.fn([])), "[]interface {}");
  assert.equal(run("initial", [1n, 2n, 3n]), "[]interface {} [1 2]");
  assert.equal(run("reverse", strings("a", "b")), "[]interface {} [b a]");
  assert.throws(() => L.reverse.fn("x"), { message: "Cannot find reverse on type string" });
  assert.throws(() => L.mustFirst.fn(1n), { message: "Cannot find first on type int" });
});

test("slice keeps the list type and checks bounds", () => {
  assert.equal(run("slice", [1n, 2n, 3n], 1n), "[]interface {} [2 3]");
  assert.equal(run("slice", [1n, 2n, 3n], "1", 2.9), "[]interface {} [2]");
  assert.equal(typeName(L.slice.fn(strings("a", "b"), 1n)), "[]string");
  assert.equal(L.slice.fn([], 0n, 0n), null);
  assert.throws(() => L.slice.fn([1n, 2n, 3n], 1n, 5n), { message: "reflect.Value.Slice: slice index out of bounds" });
  assert.throws(() => L.mustSlice.fn([1n, 2n, 3n], 2n, 1n), {
    message: "reflect.Value.Slice: slice index out of bounds",
  });
  assert.throws(() => L.slice.fn("abc", 1n), { message: "list should be type of slice or array but string" });
});

test("chunk", () => {
  assert.equal(run("chunk", 2n, [1n, 2n, 3n, 4n, 5n]), "[][]interface {} [[1 2] [3 4] [5]]");
  assert.equal(run("chunk", 2n, []), "[][]interface {} []");
  assert.throws(() => L.chunk.fn(0n, [1n]), { message: "runtime error: makeslice: len out of range" });
});

test("searching and filtering use reflect.DeepEqual and Sprig's empty", () => {
  assert.equal(L.has.fn(1n, null), false);
  assert.equal(L.has.fn(1n, [1n]), true);
  assert.equal(L.has.fn(1n, [1.0]), false);
  assert.throws(() => L.has.fn(1n, "abc"), { message: "Cannot find has on type string" });
  assert.equal(run("uniq", [1n, 1n, "a", "a", 1.0]), "[]interface {} [1 a 1]");
  assert.equal(run("without", [1n, 2n, 3n, 1n], 1n, 3n), "[]interface {} [2]");
  assert.equal(run("compact", [0n, 1n, "", null, "a", false, [], newMap()]), "[]interface {} [1 a]");
});
