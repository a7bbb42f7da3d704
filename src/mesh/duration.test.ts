import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatProtoDuration, goDurationString, parseGoDuration } from "./duration.js";

describe("durations", () => {
  it("parses as time.ParseDuration", () => {
    assert.equal(parseGoDuration("45s"), 45_000_000_000n);
    assert.equal(parseGoDuration("1m30s"), 90_000_000_000n);
    assert.equal(parseGoDuration("0.000010s"), 10_000n);
    assert.equal(parseGoDuration("-1s"), -1_000_000_000n);
    assert.equal(parseGoDuration("0"), 0n);
    assert.throws(() => parseGoDuration("1x"), /time: unknown unit "x" in duration "1x"/);
    assert.throws(() => parseGoDuration("5"), /time: missing unit in duration "5"/);
    assert.throws(() => parseGoDuration(""), /time: invalid duration ""/);
  });

  it("writes jsonpb's 0/3/6/9 fraction digits", () => {
    assert.equal(formatProtoDuration(45_000_000_000n), "45s");
    assert.equal(formatProtoDuration(500_000_000n), "0.500s");
    assert.equal(formatProtoDuration(10_000n), "0.000010s");
    assert.equal(formatProtoDuration(1n), "0.000000001s");
    assert.equal(formatProtoDuration(-1_000_000_000n), "-1s");
    assert.equal(formatProtoDuration(0n), "0s");
  });

  it("prints as Go's Duration.String", () => {
    assert.equal(goDurationString(45_000_000_000n), "45s");
    assert.equal(goDurationString(3_600_000_000_000n), "1h0m0s");
    assert.equal(goDurationString(1_500_000_000n), "1.5s");
    assert.equal(goDurationString(1_000_000n), "1ms");
    assert.equal(goDurationString(10_000n), "10µs");
    assert.equal(goDurationString(0n), "0s");
  });
});
