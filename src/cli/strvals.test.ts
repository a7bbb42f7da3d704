import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type GoValue, newMap, TypedNumber } from "../go/value.js";
import { parseSetInto, typedValue } from "./strvals.js";

/** Plain JSON-like view of Go values for deepEqual: int64 values become "int64:N". */
function plain(v: GoValue): unknown {
  if (v instanceof TypedNumber) return `${v.type}:${v.value}`;
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

function set(line: string, forceString = false, into: Record<string, GoValue> = newMap()): unknown {
  parseSetInto(line, into, forceString);
  return plain(into);
}

describe("typedValue", () => {
  it("types values as Helm does", () => {
    assert.equal(typedValue("TRUE", false), true);
    assert.equal(typedValue("False", false), false);
    assert.equal(typedValue("null", false), null);
    assert.deepEqual(plain(typedValue("0", false)), "int64:0");
    assert.deepEqual(plain(typedValue("-12", false)), "int64:-12");
    assert.equal(typedValue("012", false), "012");
    assert.equal(typedValue("1.5", false), "1.5");
    assert.equal(typedValue("9223372036854775808", false), "9223372036854775808");
    assert.equal(typedValue("true", true), "true");
  });
});

describe("parseSetInto", () => {
  it("sets nested keys and several pairs", () => {
    assert.deepEqual(set("a.b.c=x,d=1"), { a: { b: { c: "x" } }, d: "int64:1" });
  });

  it("parses lists in braces", () => {
    assert.deepEqual(set("l={a,b,3},m=x"), { l: ["a", "b", "int64:3"], m: "x" });
    assert.deepEqual(set("l={}"), { l: [""] });
  });

  it("sets list elements, padding with nil", () => {
    assert.deepEqual(set("l[2]=x"), { l: [null, null, "x"] });
    assert.deepEqual(set("l[0].name=a,l[0].port=80"), { l: [{ name: "a", port: "int64:80" }] });
    assert.deepEqual(set("l[0][1]=x"), { l: [[null, "x"]] });
  });

  it("keeps strings with --set-string", () => {
    assert.deepEqual(set("a=1,b=true,c=null", true), { a: "1", b: "true", c: "null" });
  });

  it("honours backslash escapes", () => {
    assert.deepEqual(set("a\\.b=c\\,d"), { "a.b": "c,d" });
  });

  it("overrides existing values and keeps siblings", () => {
    const into = newMap();
    parseSetInto("a.b=1,a.c=2", into);
    assert.deepEqual(set("a.b=x", false, into), { a: { b: "x", c: "int64:2" } });
  });

  it("gives empty strings for empty values", () => {
    assert.deepEqual(set("a="), { a: "" });
    assert.deepEqual(set("a=,b=x"), { a: "", b: "x" });
  });

  it("rejects malformed input with Helm's messages", () => {
    assert.throws(() => set("a"), /key "a" has no value/);
    assert.throws(() => set("a,b=c"), /key "a" has no value \(cannot end with ,\)/);
    assert.throws(() => set("a={x,y"), /list must terminate with '}'/);
    assert.throws(() => set("a[x]=1"), { message: 'error parsing index: strconv.Atoi: parsing "x": invalid syntax' });
    assert.throws(() => set("a[9223372036854775808]=1"), {
      message: 'error parsing index: strconv.Atoi: parsing "9223372036854775808": value out of range',
    });
    assert.throws(() => set("a[-1]=1"), /negative -1 index not allowed/);
    assert.throws(() => set("a[70000]=1"), /greater than maximum supported index/);
    assert.throws(() => set("a[0]x=1"), /unexpected data at end of array index/);
    assert.throws(() => set(`${"a.".repeat(31)}b=1`), /nested level/);
  });

  it("refuses to index into a value of another kind", () => {
    const into = newMap();
    parseSetInto("a=x", into);
    assert.throws(() => parseSetInto("a.b=1", into), /"a" is not a map/);
    assert.throws(() => parseSetInto("a[0]=1", into), /"a" is not a list/);
  });
});
