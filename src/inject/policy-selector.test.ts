import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileSelector, LabelSelectorError } from "./policy-selector.js";

describe("label selectors", () => {
  it("implement In, NotIn, Exists, DoesNotExist and matchLabels", () => {
    const s = compileSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "env", operator: "NotIn", values: ["prod"] },
        { key: "canary", operator: "DoesNotExist" },
        { key: "team", operator: "Exists" },
      ],
    });
    assert.equal(s.matches({ app: "web", team: "" }), true);
    assert.equal(s.matches({ app: "web", team: "", env: "prod" }), false);
    assert.equal(s.matches({ app: "web", team: "", canary: "x" }), false);
    assert.equal(s.matches({ app: "web" }), false);
    assert.equal(compileSelector(null).matches({}), false);
    assert.equal(compileSelector({ matchLabels: {} }).empty, true);
  });

  it("validate keys, values and value counts", () => {
    assert.throws(() => compileSelector({ matchLabels: { "bad key": "x" } }), LabelSelectorError);
    assert.throws(() => compileSelector({ matchLabels: { k: "-x" } }), LabelSelectorError);
    assert.throws(
      () => compileSelector({ matchExpressions: [{ key: "k", operator: "In", values: [] }] }),
      LabelSelectorError,
    );
    assert.throws(
      () => compileSelector({ matchExpressions: [{ key: "k", operator: "Exists", values: ["v"] }] }),
      LabelSelectorError,
    );
    compileSelector({ matchLabels: { "example.com/k": "" } });
  });
});
