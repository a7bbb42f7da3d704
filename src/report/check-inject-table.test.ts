import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkInjectTable, MULTIPLE_INJECT, NO_ISTIO_HOOKS } from "./check-inject-table.js";

describe("checkInjectTable", () => {
  it("pads each column but the last to its widest cell plus two spaces", () => {
    const lines = checkInjectTable([
      { name: "a", revision: "default", injected: true, reason: "yes" },
      { name: "istio-revision-tag-x", revision: "1-16", injected: false, reason: "no" },
    ]);
    assert.deepEqual(lines, [
      "WEBHOOK               REVISION  INJECTED  REASON",
      "a                     default   ✔         yes",
      "istio-revision-tag-x  1-16      ✘         no",
    ]);
  });
  it("istioctl's error lines: no Istio configuration; more than one that injects", () => {
    assert.deepEqual(checkInjectTable([]), [NO_ISTIO_HOOKS]);
    const two = checkInjectTable([
      { name: "a", revision: "", injected: true, reason: "r" },
      { name: "b", revision: "", injected: true, reason: "r" },
    ]);
    assert.equal(two.at(-1), MULTIPLE_INJECT);
  });
});
