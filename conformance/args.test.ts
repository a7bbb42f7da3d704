import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { missingCorpusMessage, parseRunArgs } from "./args.js";

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

describe("missingCorpusMessage", () => {
  it("says where the corpora come from", () => {
    const m = missingCorpusMessage("../shared/conformance/*/");
    assert.match(m, /^\.\.\/shared\/conformance\/\*\/ does not exist\. The corpora are not part of the repository/);
    assert.match(m, /generated from Istio's sources/);
    assert.match(m, /\.\.\/shared\/conformance with one folder per corpus/);
    assert.match(m, /FORMAT\.md/);
  });
});
