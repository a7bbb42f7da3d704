// Expectations captured from the Go oracle (Go 1.19, Sprig 3.2.3, spf13/cast as Debian packages it).
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatValue } from "../../go/fmt.js";
import { formatFloat, parseFloat64, parseInt64 } from "../../go/strconv.js";
import { TypedNumber } from "../../go/value.js";
import { castToString, toBool, toFloat64, toInt, toInt64 } from "./cast.js";
import { strval } from "./strings.js";

const formatFloatG = (f: number) => formatFloat(f, "g", -1, 64);

test("toInt64 reads strings with ParseInt base 0 after trimming a zero fraction", () => {
  const cases: Array<[unknown, bigint]> = [
    ["010", 8n],
    ["0x1F", 31n],
    ["0b101", 5n],
    ["0o17", 15n],
    ["1_000", 1000n],
    ["0_10", 8n],
    ["0x_1", 1n],
    ["+5", 5n],
    ["-0x10", -16n],
    ["1.0", 1n],
    ["1.00", 1n],
    ["1.5", 0n],
    [" 1", 0n],
    ["1e3", 0n],
    ["", 0n],
    ["9223372036854775808", 0n],
    ["-9223372036854775808", -(1n << 63n)],
  ];
  for (const [input, want] of cases) assert.equal(toInt64(input), want, String(input));
});

test("toInt64 converts other kinds like cast does", () => {
  assert.equal(toInt64(1.9), 1n);
  assert.equal(toInt64(-1.9), -1n);
  assert.equal(toInt64(1e20), -(1n << 63n)); // amd64's out-of-range conversion
  assert.equal(toInt64(true), 1n);
  assert.equal(toInt64(null), 0n);
  assert.equal(toInt64([1n]), 0n);
  assert.equal(toInt64(new TypedNumber("uint8", 7n)), 7n);
  assert.equal(toInt(new TypedNumber("float32", 2.5)), 2n);
});

test("toFloat64 follows ParseFloat syntax", () => {
  assert.equal(toFloat64("1e3"), 1000);
  assert.equal(toFloat64("0x1p-2"), 0.25);
  assert.equal(toFloat64("0x1.8p1"), 3);
  assert.equal(toFloat64("0x1"), 0);
  assert.equal(toFloat64("1_0.5"), 10.5);
  assert.equal(toFloat64("1__0"), 0);
  assert.equal(toFloat64("_1"), 0);
  assert.equal(toFloat64("inf"), Infinity);
  assert.equal(toFloat64("-Infinity"), -Infinity);
  assert.ok(Number.isNaN(toFloat64("nan")));
  assert.equal(toFloat64("+nan"), 0);
  assert.equal(toFloat64("1e400"), 0); // range error → 0
  assert.equal(toFloat64(true), 1);
  assert.equal(toFloat64(3n), 3);
  assert.deepEqual(parseFloat64("1e-400"), { value: 0, err: undefined });
  assert.deepEqual(parseInt64("0777", 8), { value: 511n, err: undefined });
  assert.equal(parseInt64("0o777", 8).err, "syntax");
});

test("toBool and castToString", () => {
  assert.equal(toBool("T"), true);
  assert.equal(toBool("yes"), false);
  assert.equal(toBool(2n), true);
  assert.equal(castToString(1e21), "1000000000000000000000");
  assert.equal(castToString(null), "");
});

test("fmt's %v, as strval and toDecimal use it", () => {
  assert.equal(formatValue([1n, 2.5, "a", null]), "[1 2.5 a <nil>]");
  assert.equal(formatValue(null), "<nil>");
  const m = Object.assign(Object.create(null), { b: 1n, a: [true] });
  assert.equal(formatValue(m), "map[a:[true] b:1]");
  assert.equal(formatFloatG(100000000), "1e+08");
  assert.equal(formatFloatG(123456), "123456");
  assert.equal(formatFloatG(1234567), "1.234567e+06");
  assert.equal(formatFloatG(0.0001), "0.0001");
  assert.equal(formatFloatG(0.00001), "1e-05");
  assert.equal(formatFloatG(1e21), "1e+21");
  assert.equal(formatFloatG(-0), "-0");
  assert.equal(strval(new Uint8Array([104, 105])), "hi");
});
