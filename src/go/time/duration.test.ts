import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DurationError, durationString, parseDuration } from "./duration.js";

describe("time.Duration", () => {
  it("parses as time.ParseDuration", () => {
    assert.equal(parseDuration("45s"), 45_000_000_000n);
    assert.equal(parseDuration("1m30s"), 90_000_000_000n);
    assert.equal(parseDuration("0.000010s"), 10_000n);
    assert.equal(parseDuration("-1s"), -1_000_000_000n);
    assert.equal(parseDuration("0"), 0n);
    assert.throws(() => parseDuration("1x"), /time: unknown unit "x" in duration "1x"/);
    assert.throws(() => parseDuration("5"), /time: missing unit in duration "5"/);
    assert.throws(() => parseDuration(""), /time: invalid duration ""/);
  });

  // Regression (issue 9): mesh/duration.ts had its own ParseDuration that quoted with JSON.stringify.
  it("quotes bad input as Go's time package does (bytes outside ASCII as \\x escapes)", () => {
    assert.throws(
      () => parseDuration("1és"),
      (e) => e instanceof DurationError && e.message === 'time: unknown unit "\\xc3\\xa9s" in duration "1\\xc3\\xa9s"',
    );
  });

  it("prints as Go's Duration.String", () => {
    assert.equal(durationString(45_000_000_000n), "45s");
    assert.equal(durationString(3_600_000_000_000n), "1h0m0s");
    assert.equal(durationString(1_500_000_000n), "1.5s");
    assert.equal(durationString(1_000_000n), "1ms");
    assert.equal(durationString(10_000n), "10µs");
    assert.equal(durationString(0n), "0s");
  });
});
