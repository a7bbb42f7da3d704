import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatProtoDuration, parseProtoDuration } from "./duration.js";

describe("durations", () => {
  it("reads durations with Go's ParseDuration and its error texts", () => {
    assert.equal(parseProtoDuration("1m30s"), 90_000_000_000n);
    assert.throws(() => parseProtoDuration("1és"), /time: unknown unit "\\xc3\\xa9s" in duration "1\\xc3\\xa9s"/);
  });

  it("writes jsonpb's 0/3/6/9 fraction digits", () => {
    assert.equal(formatProtoDuration(45_000_000_000n), "45s");
    assert.equal(formatProtoDuration(500_000_000n), "0.500s");
    assert.equal(formatProtoDuration(10_000n), "0.000010s");
    assert.equal(formatProtoDuration(1n), "0.000000001s");
    assert.equal(formatProtoDuration(-1_000_000_000n), "-1s");
    assert.equal(formatProtoDuration(0n), "0s");
  });
});
