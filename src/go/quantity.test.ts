import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  canonicalQuantity,
  milliValue,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_SUFFIX_ERROR,
  QuantityError,
  quantityError,
} from "./quantity.js";

describe("resource.Quantity", () => {
  it("accepts and refuses what resource.ParseQuantity does", () => {
    for (const ok of ["1", "0.5", "1.5Gi", "100m", "1e3", "-2", "1E-2", ".5", "1.", "0", "1.G"]) {
      assert.equal(quantityError(ok), undefined, ok);
    }
    assert.equal(quantityError(""), QUANTITY_FORMAT_ERROR);
    assert.equal(quantityError("1Gb"), QUANTITY_FORMAT_ERROR);
    assert.equal(quantityError("1K"), QUANTITY_SUFFIX_ERROR);
    assert.equal(quantityError("1 "), QUANTITY_FORMAT_ERROR);
  });

  it("prints the canonical form", () => {
    const cases: Array<[string, string]> = [
      ["100m", "100m"],
      ["1024Mi", "1Gi"],
      ["2000m", "2"],
      ["0.5", "500m"],
      ["1000", "1k"],
      ["1.5Gi", "1536Mi"],
      ["1e3", "1e3"],
      ["0.1m", "100u"],
      ["-1", "-1"],
      ["1000Ki", "1000Ki"],
    ];
    for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, input);
    assert.throws(() => canonicalQuantity("abc"), QuantityError);
  });

  // Regression (issue 9): three copies (typed marshalling, annotation validation, the agent's
  // MilliValue) disagreed: "." and "+" passed validation and MilliValue but made marshalling throw.
  // ParseQuantity reads a numerator without digits as 0, so each is a valid zero.
  it("agrees across validation, canonical form and MilliValue on edge cases", () => {
    for (const zero of [".", "+", "-", "+.", "0.", "-0"]) {
      assert.equal(quantityError(zero), undefined, zero);
      assert.equal(canonicalQuantity(zero), "0", zero);
      assert.equal(milliValue(zero), 0n, zero);
    }
    assert.equal(canonicalQuantity("1.G"), "1G");
    assert.equal(milliValue("1.G"), 1_000_000_000_000n);
  });
});
