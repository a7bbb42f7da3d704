import assert from "node:assert/strict";
import { test } from "node:test";
import { multiErrorText } from "./multierror.js";

test("go-multierror's default format", () => {
  assert.equal(multiErrorText(["boom"]), "1 error occurred:\n\t* boom\n\n");
  assert.equal(multiErrorText(["a", "b"]), "2 errors occurred:\n\t* a\n\t* b\n\n");
});
