import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRunArgs } from "./args.js";

describe("parseRunArgs", () => {
  it("reads flags and folders", () => {
    assert.deepEqual(parseRunArgs(["--verbose", "--mode", "webhook", "a/", "b"]), {
      dirs: ["a/", "b"],
      verbose: true,
      options: { mode: "webhook", budgetMs: 10_000 },
    });
    assert.equal(parseRunArgs(["--budget-ms", "50", "a"]).options.budgetMs, 50);
  });

  it("rejects bad usage", () => {
    assert.throws(() => parseRunArgs([]), /no corpus folder/);
    assert.throws(() => parseRunArgs(["--mode", "x", "a"]), /--mode must be/);
    assert.throws(() => parseRunArgs(["--budget-ms", "0", "a"]), /--budget-ms/);
    assert.throws(() => parseRunArgs(["--nope", "a"]), /Unknown option/);
  });
});
