import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { webhookConfiguration } from "../webhook/webhook-config.js";
import { calledWebhooks, checkInjectReport } from "./check-inject-report.js";

const enabled = { "istio-injection": "enabled" };

describe("calledWebhooks", () => {
  it("only webhooks of Istio configurations whose rules cover pod CREATE", () => {
    const config = webhookConfiguration();
    assert.deepEqual(calledWebhooks([config], enabled, {}), [
      { webhook: "namespace.sidecar-injector.istio.io", configuration: "meshinject-sidecar-injector" },
    ]);
    const updateOnly = structuredClone(config) as { webhooks: { rules: { operations: string[] }[] }[] };
    for (const w of updateOnly.webhooks) for (const r of w.rules) r.operations = ["UPDATE"];
    assert.deepEqual(calledWebhooks([updateOnly], enabled, {}), []);
    const other = {
      metadata: { name: "x" },
      webhooks: [
        {
          name: "x.example.com",
          rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
        },
      ],
    };
    assert.deepEqual(calledWebhooks([other], enabled, {}), []);
  });
});

describe("checkInjectReport", () => {
  it("notes first, then a section per workload; no istio configuration: istioctl's error line", () => {
    const report = checkInjectReport("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n", {
      source: "in.yaml",
      namespace: "ns",
      namespaces: { extra: enabled },
      webhookConfigs: [],
      policy: { policy: "enabled" },
      notes: ["assumed X"],
    });
    assert.equal(
      report.text,
      [
        "# assumed X",
        "",
        "# Pod ns/p",
        "namespace labels: istio-injection=enabled, kubernetes.io/metadata.name=ns",
        "pod labels: (none)",
        "ERROR: no Istio injection hooks present.",
        "webhooks called: none",
        'injector: injected: the injection policy is "enabled" (if it were called)',
        "verdict: not injected: no injection webhook is called for the pod, so the injector never sees it",
        "",
      ].join("\n"),
    );
  });
});
