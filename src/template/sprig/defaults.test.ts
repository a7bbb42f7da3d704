// Expectations captured from the Go oracle (Go 1.19, Sprig 3.2.3, encoding/json).
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatValue } from "../../go/fmt.js";
import { type GoValue, newMap, TypedNil, TypedNumber, typeName } from "../../go/value.js";
import { defaultsFuncs as F } from "./defaults.js";

const m = (o: Record<string, GoValue>) => Object.assign(newMap(), o);

test("empty, default, coalesce, all, any, ternary", () => {
  for (const v of [null, 0n, 0, "", [], newMap(), false, new TypedNil("[]string"), new TypedNumber("int64", 0n)]) {
    assert.equal(F.empty.fn(v), true, formatValue(v));
  }
  for (const v of [1n, "a", [null], true, 0.5]) assert.equal(F.empty.fn(v), false, formatValue(v));
  assert.equal(F.default.fn("d"), "d");
  assert.equal(F.default.fn("d", ""), "d");
  assert.equal(F.default.fn("d", "x"), "x");
  assert.equal(F.coalesce.fn(null, "", 0n, "a"), "a");
  assert.equal(F.coalesce.fn(null, ""), null);
  assert.equal(F.all.fn(), true);
  assert.equal(F.all.fn(1n, ""), false);
  assert.equal(F.any.fn(), false);
  assert.equal(F.any.fn(0n, "x"), true);
  assert.equal(F.ternary.fn("yes", "no", false), "no");
});

test("toJson matches encoding/json", () => {
  const v = m({ b: 1n, a: "<&>", c: [1.5, 1e21, 1e-7, 0.000001, null, true], d: 100000000 });
  assert.equal(
    F.toJson.fn(v),
    '{"a":"\\u003c\\u0026\\u003e","b":1,"c":[1.5,1e+21,1e-7,0.000001,null,true],"d":100000000}',
  );
  assert.equal(F.toRawJson.fn(m({ a: "<&>\u2028" })), '{"a":"<&>\\u2028"}');
  assert.equal(F.toJson.fn('\b\f\n\r\t"\\/'), '"\\u0008\\u000c\\n\\r\\t\\"\\\\/"');
  assert.equal(F.toJson.fn("\x00\x1f\x7f"), '"\\u0000\\u001f\x7f"');
  assert.equal(F.toJson.fn(new TypedNil("[]interface {}")), "null");
  assert.equal(F.toJson.fn(new TypedNumber("int64", 5n)), "5");
  assert.equal(F.toJson.fn(1e20), "100000000000000000000");
  assert.equal(F.toJson.fn(-0), "-0");
  assert.equal(F.toJson.fn(0.0000001234), "1.234e-7");
  assert.equal(F.toJson.fn(new Uint8Array([120])), '"eA=="');
  assert.equal(
    F.toPrettyJson.fn(m({ a: [1n, 2n], b: newMap(), c: [] })),
    '{\n  "a": [\n    1,\n    2\n  ],\n  "b": {},\n  "c": []\n}',
  );
  assert.equal(F.toPrettyJson.fn([]), "[]");
});

test("JSON encoding errors", () => {
  assert.equal(F.toJson.fn(NaN), "");
  assert.throws(() => F.mustToJson.fn(NaN), { message: "json: unsupported value: NaN" });
  assert.throws(() => F.mustToRawJson.fn(Infinity), { message: "json: unsupported value: +Inf" });
  assert.throws(() => F.toRawJson.fn(Infinity), { message: "json: unsupported value: +Inf" });
  const loop = newMap();
  loop.self = loop;
  assert.throws(() => F.mustToJson.fn(loop), /encountered a cycle via map\[string\]interface \{\}/);
});

test("fromJson decodes to float64 and maps", () => {
  const v = F.fromJson.fn('{"a":1e2,"b":[1,{}]}');
  assert.equal(formatValue(v), "map[a:100 b:[1 map[]]]");
  assert.equal(typeName((v as Record<string, GoValue>).a), "float64");
  assert.equal(F.fromJson.fn("{bad"), null);
  assert.equal(F.mustFromJson.fn('"\\ud800"'), "\ufffd");
  assert.equal(F.mustFromJson.fn('"\\ud83d\\ude00"'), "😀");
});

test("fromJson errors carry Go's scanner messages", () => {
  const cases: Array<[string, string]> = [
    ["{bad", "invalid character 'b' looking for beginning of object key string"],
    ["", "unexpected end of JSON input"],
    ["  ", "unexpected end of JSON input"],
    ["[1,", "unexpected end of JSON input"],
    ["1 2", "invalid character '2' after top-level value"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ["nul", "invalid character ' ' in literal null (expecting 'l')"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["-", "invalid character ' ' in numeric literal"],
    ["é", "invalid character 'Ã' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["01", "invalid character '1' after top-level value"],
    ['{"a":1 "b"}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["[1e400]", "json: cannot unmarshal number 1e400 into Go value of type float64"],
  ];
  for (const [text, message] of cases) assert.throws(() => F.mustFromJson.fn(text), { message }, text);
});
