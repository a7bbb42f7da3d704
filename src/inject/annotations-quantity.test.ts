import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { QUANTITY_FORMAT_ERROR, QUANTITY_SUFFIX_ERROR, quantityError } from "./annotations-quantity.js";

describe("quantityError", () => {
  it("resource.ParseQuantity", () => {
    for (const ok of ["1", "0.5", "1.5Gi", "100m", "1e3", "-2", "1E-2", ".5", "1.", "0"]) {
      assert.equal(quantityError(ok), undefined, ok);
    }
    assert.equal(quantityError(""), QUANTITY_FORMAT_ERROR);
    assert.equal(quantityError("1Gb"), QUANTITY_FORMAT_ERROR);
    assert.equal(quantityError("1K"), QUANTITY_SUFFIX_ERROR);
    assert.equal(quantityError("1 "), QUANTITY_FORMAT_ERROR);
  });
});
