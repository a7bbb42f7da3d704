// The primary's supervision is tested as a real process in src/cli/serve-workers.test.ts; here its back-off.
import assert from "node:assert/strict";
import { test } from "node:test";
import { restartDelay } from "./cluster-primary.js";

test("a worker is replaced after 200 ms, doubling while replacements keep dying young, at most 10 s", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 50].map(restartDelay), [200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]);
});
