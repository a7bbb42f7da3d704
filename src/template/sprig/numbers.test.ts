// Expectations captured from the Go oracle (Go 1.19, Sprig 3.2.3): `{{printf "%T %v" (f ...)}}`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatValue } from "../../go/fmt.js";
import { type GoValue, typeName } from "../../go/value.js";
import { numbersFuncs as N } from "./numbers.js";

const show = (v: GoValue) => `${typeName(v)} ${formatValue(v)}`;
const run = (name: string, ...args: GoValue[]) => show(N[name].fn(...args));

test("integer arithmetic returns int64 and panics on zero divisors", () => {
  assert.equal(run("add", 1n, 2n), "int64 3");
  assert.equal(run("add"), "int64 0");
  assert.equal(run("add1", "41"), "int64 42");
  assert.equal(run("sub", 1n, 2.9), "int64 -1");
  assert.equal(run("mul", 2n, 3n, "4"), "int64 24");
  assert.equal(run("mul", 2n), "int64 2");
  assert.equal(run("div", 7n, -2n), "int64 -3");
  assert.equal(run("mod", -7n, 2n), "int64 -1");
  assert.throws(() => N.div.fn(1n, 0n), { message: "runtime error: integer divide by zero" });
  assert.throws(() => N.mod.fn(1n, 0n), { message: "runtime error: integer divide by zero" });
  assert.equal(run("max", 1n, "5", 3.5), "int64 5");
  assert.equal(run("biggest", 1n, 2n), "int64 2");
  assert.equal(run("min", 1n, -2n), "int64 -2");
});

test("conversions", () => {
  assert.equal(run("int", "010"), "int 8");
  assert.equal(run("int64", "0x1F"), "int64 31");
  assert.equal(run("float64", "1e3"), "float64 1000");
  assert.equal(run("atoi", "+12"), "int 12");
  assert.equal(run("atoi", "0x10"), "int 0");
  assert.equal(run("atoi", " 12"), "int 0");
  assert.equal(run("atoi", "99999999999999999999"), "int 9223372036854775807");
  assert.equal(run("toDecimal", "0777"), "int64 511");
  assert.equal(run("toDecimal", 777n), "int64 511");
  assert.equal(run("toDecimal", "8"), "int64 0");
  assert.equal(run("toString", 1.5), "string 1.5");
  assert.equal(run("toString", 100000000), "string 1e+08");
  assert.equal(run("toString", [1n, 2.5, "a", null]), "string [1 2.5 a <nil>]");
  assert.equal(run("toString", null), "string <nil>");
  assert.equal(run("toStrings", [1n, null, "a", 2.5]), "[]string [1 a 2.5]");
  assert.equal(run("toStrings", 1n), "[]string [1]");
  assert.equal(run("toStrings", null), "[]string []");
});

test("decimal float arithmetic", () => {
  assert.equal(run("addf", 0.1, 0.2), "float64 0.3");
  assert.equal(run("addf"), "float64 0");
  assert.equal(run("subf", 1n, 0.9), "float64 0.1");
  assert.equal(run("mulf", 0.1, 0.2), "float64 0.02");
  assert.equal(run("divf", 1n, 3n), "float64 0.3333333333333333");
  assert.equal(run("divf", 2n, 3n), "float64 0.6666666666666667");
  assert.equal(run("divf", -2n, 3n), "float64 -0.6666666666666667");
  assert.equal(run("add1f", 1.5), "float64 2.5");
  assert.throws(() => N.divf.fn(1n, 0n), { message: "decimal division by 0" });
  assert.throws(() => N.addf.fn(1n, Infinity), { message: "Cannot create a Decimal from +Inf" });
  assert.equal(run("maxf", 1n, "5.5", 3n), "float64 5.5");
  assert.equal(run("minf", 1n, "nan"), "float64 NaN");
});

test("ceil, floor and Sprig's round", () => {
  assert.equal(run("ceil", "1.2"), "float64 2");
  assert.equal(run("floor", -1.5), "float64 -2");
  assert.equal(run("round", 2.5, 0n), "float64 3");
  assert.equal(run("round", -2.5, 0n), "float64 -3");
  assert.equal(run("round", -2.1, 0n), "float64 -3"); // Sprig floors negative fractions
  assert.equal(run("round", 2.1, 0n), "float64 2");
  assert.equal(run("round", 1.2345, 2n), "float64 1.23");
  assert.equal(run("round", 1.235, 2n, 0.3), "float64 1.24");
  assert.equal(run("round", -1.235, 2n), "float64 -1.24");
});

test("seq, until, untilStep", () => {
  assert.equal(N.seq.fn(5n), "1 2 3 4 5");
  assert.equal(N.seq.fn(-3n), "1 0 -1 -2 -3");
  assert.equal(N.seq.fn(0n), "1 0");
  assert.equal(N.seq.fn(2n, 5n), "2 3 4 5");
  assert.equal(N.seq.fn(5n, 2n), "5 4 3 2");
  assert.equal(N.seq.fn(0n, 2n, 10n), "0 2 4 6 8 10");
  assert.equal(N.seq.fn(10n, -3n, 0n), "10 7 4 1");
  assert.equal(N.seq.fn(10n, 3n, 0n), "");
  assert.equal(N.seq.fn(1n, 2n, 3n, 4n), "");
  assert.equal(N.seq.fn(), "");
  assert.equal(run("until", 5n), "[]int [0 1 2 3 4]");
  assert.equal(run("until", -3n), "[]int [0 -1 -2]");
  assert.equal(run("untilStep", 0n, 10n, 3n), "[]int [0 3 6 9]");
  assert.equal(run("untilStep", 10n, 0n, -3n), "[]int [10 7 4 1]");
  assert.equal(run("untilStep", 0n, 10n, -1n), "[]int []");
});

test("randInt", () => {
  assert.equal(N.randInt.fn(5n, 6n), 5n);
  assert.throws(() => N.randInt.fn(5n, 5n), { message: "invalid argument to Intn" });
});
