import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { judge, type Vector } from "./gotemplate.js";

const outputVector: Vector = { name: "o", template: "{{1}}", expect: { output: "1" } };
const errorVector: Vector = {
  name: "e",
  template: "{{nope}}",
  expect: { error: true, phase: "parse", message: 'template: main:1: function "nope" not defined' },
};

describe("judge", () => {
  it("passes equal output and fails different output", () => {
    assert.equal(judge(outputVector, { ok: true, value: { kind: "output", output: "1" } }).pass, true);
    const v = judge(outputVector, { ok: true, value: { kind: "output", output: "1\n" } });
    assert.equal(v.pass, false);
    assert.equal(v.reason, "output differs");
    assert.equal(v.got, 'output "1\\n"');
  });

  it("grades errors by phase, then by message", () => {
    const exact = judge(errorVector, {
      ok: true,
      value: { kind: "error", phase: "parse", message: 'template: main:1: function "nope" not defined' },
    });
    assert.deepEqual([exact.pass, exact.exactMessage], [true, true]);
    const loose = judge(errorVector, { ok: true, value: { kind: "error", phase: "parse", message: "other" } });
    assert.deepEqual([loose.pass, loose.exactMessage], [true, false]);
    const phase = judge(errorVector, { ok: true, value: { kind: "error", phase: "exec", message: "x" } });
    assert.equal(phase.pass, false);
    assert.equal(phase.reason, "failed in exec phase, expected parse");
    assert.equal(judge(errorVector, { ok: true, value: { kind: "output", output: "" } }).pass, false);
  });

  it("fails crashes and timeouts whatever the vector expects", () => {
    const crash = judge(errorVector, { ok: true, value: { kind: "crash", message: "TypeError: x" } });
    assert.deepEqual([crash.pass, crash.reason], [false, "engine crashed"]);
    const timeout = judge(outputVector, { ok: false, reason: "timed out after 10 ms" });
    assert.deepEqual([timeout.pass, timeout.reason], [false, "timed out after 10 ms"]);
  });
});
