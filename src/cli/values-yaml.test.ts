import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goYamlNumber, parseValuesYaml } from "./values-yaml.js";

/** Null-prototype maps compare equal to literals after a JSON round trip. */
function read(text: string): unknown {
  return JSON.parse(JSON.stringify(parseValuesYaml(text)));
}

describe("goYamlNumber", () => {
  it("reads numbers as go-yaml v2 does", () => {
    const cases: Array<[string, number | undefined]> = [
      ["12", 12],
      ["-12", -12],
      ["1_000", 1000],
      ["0x1F", 31],
      ["0o17", 15],
      ["0777", 511],
      ["0b101", 5],
      ["-0b101", -5],
      ["09", 9],
      ["1e3", 1000],
      ["1.5", 1.5],
      [".5", 0.5],
      ["+.5", 0.5],
      ["1e400", undefined],
      ["1.2.3", undefined],
      ["2001-12-14", undefined],
      ["190:20:30", undefined],
      ["-", undefined],
      ["abc", undefined],
    ];
    for (const [text, want] of cases) assert.equal(goYamlNumber(text), want, text);
    assert.equal(goYamlNumber(".inf"), Number.POSITIVE_INFINITY);
    assert.ok(Number.isNaN(goYamlNumber(".NaN")));
  });
});

describe("parseValuesYaml", () => {
  it("uses YAML 1.1 booleans, keys included", () => {
    assert.deepEqual(read("a: yes\nb: off\nc: 'yes'\ny: 1\n"), { a: true, b: false, c: "yes", true: 1 });
  });

  it("keeps timestamps and base-60 numbers as strings", () => {
    assert.deepEqual(read("d: 2001-12-14\nt: 1:30\n"), { d: "2001-12-14", t: "1:30" });
  });

  it("makes every number a float64 (JS number)", () => {
    const v = parseValuesYaml("count: 1000000\nratio: 1.5\n");
    assert.equal(v.count, 1000000);
    assert.equal(v.ratio, 1.5);
  });

  it("stringifies number keys, supports anchors and merge keys", () => {
    assert.deepEqual(read("1: a\nbase: &b {x: 1}\nm:\n  <<: *b\n  z: 2\n"), {
      1: "a",
      base: { x: 1 },
      m: { x: 1, z: 2 },
    });
  });

  it("lets a later duplicate key win, as go-yaml v2 does", () => {
    assert.deepEqual(read("a: 1\na: 2\n"), { a: 2 });
  });

  it("treats an empty document as no values", () => {
    assert.deepEqual(read(""), {});
    assert.deepEqual(read("# only a comment\n"), {});
  });

  it("builds maps without a prototype", () => {
    const v = parseValuesYaml("constructor: x\n");
    assert.equal(Object.getPrototypeOf(v), null);
    assert.equal(v.constructor, "x");
  });

  it("rejects what Helm rejects", () => {
    assert.throws(() => parseValuesYaml("- a\n"), /top level must be a map/);
    assert.throws(() => parseValuesYaml("a: .inf\n"), /unsupported value: \+Inf/);
    assert.throws(() => parseValuesYaml("a: [\n"), /at line \d+/);
    assert.throws(() => parseValuesYaml("? [1]\n: x\n"), /unsupported map key/);
  });
});
