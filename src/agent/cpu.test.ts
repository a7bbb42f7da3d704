import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { milliValue, QuantityError } from "../go/quantity.js";
import { downwardCpu } from "./cpu.js";

describe("CPU quantities", () => {
  it("gives milli-values rounded up", () => {
    assert.equal(milliValue("2"), 2000n);
    assert.equal(milliValue("500m"), 500n);
    assert.equal(milliValue("1.5"), 1500n);
    assert.equal(milliValue("100u"), 1n);
    assert.equal(milliValue("1k"), 1_000_000n);
    assert.equal(milliValue("1Ki"), 1_024_000n);
    assert.equal(milliValue("2e-3"), 2n);
  });
  it("rejects what Kubernetes rejects", () => {
    assert.throws(() => milliValue("two"), QuantityError);
    assert.throws(() => milliValue("1x"), QuantityError);
  });
  it("rounds the downward-API value up, divisor 1 by default", () => {
    assert.equal(downwardCpu("2", "1"), 2);
    assert.equal(downwardCpu("500m", undefined), 1);
    assert.equal(downwardCpu("6500m", "1"), 7);
    assert.equal(downwardCpu("1500m", "1m"), 1500);
    assert.equal(downwardCpu("2", "0"), 2);
  });
});
