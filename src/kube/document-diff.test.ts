import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { colourDiff, documentDiffs } from "./document-diff.js";

describe("documentDiffs", () => {
  it("diffs changed documents only, naming each, and compares workloads as Kubernetes writes them", () => {
    const input =
      "kind: ConfigMap\ndata: {a: 1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n";
    const output =
      "kind: ConfigMap\ndata: {a: 1}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - image: b\n    name: a\n    resources: {}\nstatus: {}\n";
    const diff = documentDiffs("in.yaml", input, output);
    assert.match(diff, /^--- a\/in\.yaml\tdocument 2 \(Pod "p"\)\n\+\+\+ b\/in\.yaml\tdocument 2 \(Pod "p"\)\n@@/);
    assert.match(diff, /^- {2}- image: a\n\+ {2}- image: b$/m);
    assert.equal(diff.split("\n").filter((l) => /^[-+] /.test(l)).length, 2);
    assert.equal(documentDiffs("in.yaml", "kind: ConfigMap\ndata: {a: 1}\n", "kind: ConfigMap\ndata: {a: 1}\n"), "");
  });

  it("colours removed, added and hunk lines for a terminal", () => {
    assert.equal(
      colourDiff("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z"),
      "\u001b[1m--- a\u001b[0m\n\u001b[1m+++ b\u001b[0m\n\u001b[36m@@ -1 +1 @@\u001b[0m\n\u001b[31m-x\u001b[0m\n\u001b[32m+y\u001b[0m\n z",
    );
  });
});
