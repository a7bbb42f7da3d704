import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandVars, referencedVars } from "./expand.js";

describe("expandVars", () => {
  const vars: Record<string, string> = { POD_NAMESPACE: "shop", A: "x" };
  const lookup = (n: string) => vars[n];
  it("replaces known references and keeps unknown ones as written", () => {
    assert.equal(expandVars("$(POD_NAMESPACE).svc.cluster.local", lookup), "shop.svc.cluster.local");
    assert.equal(expandVars("$(NOPE)-$(A)", lookup), "$(NOPE)-x");
  });
  it("treats $$ as an escaped $, other $ and unterminated references literally", () => {
    assert.equal(expandVars("$$(A)", lookup), "$(A)");
    assert.equal(expandVars("a$b$", lookup), "a$b$");
    assert.equal(expandVars("$(A", lookup), "$(A");
    assert.equal(expandVars("$()", lookup), "$()");
  });
  it("lists references", () => {
    assert.deepEqual(referencedVars("$(A) $$(B) $(C)"), ["A", "C"]);
  });
});
