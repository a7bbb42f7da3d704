// Expectations captured from the Go oracle (Go 1.19, Sprig 3.2.3, mergo 0.3.12).
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatValue } from "../../go/fmt.js";
import { type GoValue, newMap, typeName } from "../../go/value.js";
import { dictsFuncs as D } from "./dicts.js";

const m = (o: Record<string, GoValue>) => Object.assign(newMap(), o);
const show = (v: GoValue) => formatValue(v);

test("dict stringifies keys and pads a missing last value", () => {
  assert.equal(show(D.dict.fn("a", 1n, "b")), "map[a:1 b:]");
  assert.equal(show(D.dict.fn(1n, 2n, null, 3n, 1.5, 4n, true, 5n)), "map[1:2 1.5:4 <nil>:3 true:5]");
  assert.equal(typeName(D.dict.fn()), "map[string]interface {}");
});

test("get, set, unset, hasKey", () => {
  assert.equal(D.get.fn(m({ a: 1n }), "b"), "");
  assert.equal(D.get.fn(m({ a: 1n }), "a"), 1n);
  const d = m({ a: 1n });
  assert.equal(D.set.fn(d, "b", 2n), d);
  assert.equal(show(d), "map[a:1 b:2]");
  assert.equal(show(D.unset.fn(d, "a")), "map[b:2]");
  assert.equal(D.hasKey.fn(m({ a: null }), "a"), true);
  assert.equal(D.hasKey.fn(m({}), "a"), false);
});

test("pluck, keys, values, pick, omit", () => {
  assert.equal(show(D.pluck.fn("a", m({ a: 1n }), m({ b: 2n }), m({ a: 3n }))), "[1 3]");
  const ks = D.keys.fn(m({ b: 1n, a: 2n }), m({ c: 3n, a: 4n })) as string[];
  assert.deepEqual([...ks].sort(), ["a", "a", "b", "c"]);
  assert.equal(typeName(ks), "[]string");
  assert.equal(show(D.values.fn(m({ a: 1n, b: 2n }))), "[1 2]");
  assert.equal(show(D.pick.fn(m({ a: 1n, b: 2n }), "a", "c")), "map[a:1]");
  assert.equal(show(D.omit.fn(m({ a: 1n, b: 2n }), "a", "c")), "map[b:2]");
});

test("merge keeps destination values; mergeOverwrite replaces them", () => {
  const dst = m({ a: 1n, n: m({ x: 1n }) });
  assert.equal(D.merge.fn(dst, m({ a: 2n, b: 3n, n: m({ x: 2n, y: 3n }) })), dst);
  assert.equal(show(dst), "map[a:1 b:3 n:map[x:1 y:3]]");
  const cases: Array<[string, GoValue, GoValue, string]> = [
    [
      "mergeOverwrite",
      m({ a: 1n, n: m({ x: 1n }) }),
      m({ a: 0n, b: 3n, n: m({ x: 2n, y: 3n }) }),
      "map[a:0 b:3 n:map[x:2 y:3]]",
    ],
    ["mergeOverwrite", m({ a: 1n }), m({ a: null }), "map[a:<nil>]"],
    ["mergeOverwrite", m({ a: 1n }), m({ a: "" }), "map[a:]"],
    ["merge", m({ a: "", b: 0n }), m({ a: "x", b: 5n }), "map[a:x b:5]"],
    ["merge", m({ a: "x" }), m({ a: [1n] }), "map[a:x]"],
    ["merge", m({ a: [] }), m({ a: [1n] }), "map[a:[1]]"],
    ["mergeOverwrite", m({ a: [1n, 2n] }), m({ a: [] }), "map[a:[]]"],
    ["merge", m({ a: "x" }), m({ a: m({ b: 1n }) }), "map[a:x]"],
    ["mergeOverwrite", m({ a: "x" }), m({ a: m({ b: 1n }) }), "map[a:x]"],
    ["mergeOverwrite", m({ a: m({ b: 1n }) }), m({ a: "x" }), "map[a:x]"],
    ["merge", m({ a: null }), m({ a: 1n }), "map[a:1]"],
    ["merge", m({}), m({ a: [1n] }), "map[a:[1]]"],
  ];
  for (const [fn, dst, src, want] of cases) assert.equal(show(D[fn].fn(dst, src)), want, `${fn} ${want}`);
});

test("dig walks nested dicts with Go's type-assertion panics", () => {
  const data = m({ a: m({ b: 1n }) });
  assert.equal(D.dig.fn("a", "b", "d", data), 1n);
  assert.equal(D.dig.fn("a", "x", "d", data), "d");
  assert.throws(() => D.dig.fn("a", "b", "c", "d", data), {
    message: "interface conversion: interface {} is int, not map[string]interface {}",
  });
  assert.throws(() => D.dig.fn("a", m({})), { message: "dig needs at least three arguments" });
  assert.throws(() => D.dig.fn(1n, "d", m({})), { message: "interface conversion: interface {} is int, not string" });
  assert.throws(() => D.dig.fn("a", "d", 1n), {
    message: "interface conversion: interface {} is int, not map[string]interface {}",
  });
});

test("deepCopy copies maps and slices", () => {
  const src = m({ a: [1n] });
  const copy = D.deepCopy.fn(src) as Record<string, GoValue[]>;
  assert.equal(show(copy), "map[a:[1]]");
  assert.notEqual(copy.a, src.a);
  assert.throws(() => D.deepCopy.fn(null), { message: "reflect: call of reflect.Value.Type on zero Value" });
});
