import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { webhookConfiguration } from "./webhook-config.js";
import { checkInject, matchingWebhooks, selectorMatches } from "./webhook-match.js";

describe("selectorMatches", () => {
  it("a missing selector matches everything; an invalid one nothing", () => {
    assert.equal(selectorMatches(undefined, {}), true);
    assert.equal(selectorMatches(null, { a: "b" }), true);
    assert.equal(selectorMatches({}, { a: "b" }), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: "a", operator: "Bogus" }] }, { a: "b" }), false);
    assert.equal(selectorMatches({ matchLabels: { a: "b" } }, { a: "b" }), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: "a", operator: "NotIn", values: ["x"] }] }, {}), true);
  });
});

describe("matchingWebhooks", () => {
  const def = webhookConfiguration();
  it("at most one webhook of the default revision matches any label combination", () => {
    const nsSets: Record<string, string>[] = [
      {},
      { "istio-injection": "enabled" },
      { "istio-injection": "disabled" },
      { "istio.io/rev": "default" },
    ];
    const podSets: Record<string, string>[] = [
      {},
      { "sidecar.istio.io/inject": "true" },
      { "sidecar.istio.io/inject": "false" },
      { "istio.io/rev": "default" },
    ];
    for (const ns of nsSets) for (const pod of podSets) assert.ok(matchingWebhooks(def, ns, pod).length <= 1);
  });
  it("istio-injection=enabled wins over a pod's revision label", () => {
    assert.deepEqual(matchingWebhooks(def, { "istio-injection": "enabled" }, { "istio.io/rev": "canary" }), [
      "namespace.sidecar-injector.istio.io",
    ]);
  });
});

describe("checkInject", () => {
  const def = webhookConfiguration();
  const canary = webhookConfiguration({ revision: "canary" });
  it("explains a match, a block and no match, sorted by configuration name", () => {
    const results = checkInject([canary, def], {}, { "istio-injection": "enabled" });
    assert.deepEqual(results, [
      {
        name: "meshinject-sidecar-injector",
        revision: "default",
        injected: true,
        reason: "Namespace label istio-injection=enabled matches",
      },
      {
        name: "meshinject-sidecar-injector-canary",
        revision: "canary",
        injected: false,
        reason: "No matching namespace labels (istio.io/rev=canary) or pod labels (istio.io/rev=canary)",
      },
    ]);
    const blocked = checkInject([def], { "sidecar.istio.io/inject": "false" }, { "istio-injection": "enabled" });
    assert.equal(blocked[0]?.reason, "Pod has sidecar.istio.io/inject=false label, preventing injection");
    const off = checkInject([webhookConfiguration({ deactivated: true })], {}, {});
    assert.equal(off[0]?.reason, "The injection webhook is deactivated, and will never match labels.");
  });
  it("skips configurations without an Istio webhook", () => {
    assert.deepEqual(checkInject([{ metadata: { name: "x" }, webhooks: [{ name: "a.example.com" }] }], {}, {}), []);
  });
});
