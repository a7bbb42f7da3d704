import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readYaml } from "../go/yaml/read.js";
import { writeYaml } from "../go/yaml/write.js";
import {
  caBundle,
  defaultExcludedNamespaces,
  injectionPath,
  WebhookConfigError,
  webhookConfiguration,
} from "./webhook-config.js";
import { matchingWebhooks } from "./webhook-match.js";

type Json = Record<string, unknown>;
const webhooks = (c: Json) => c.webhooks as Json[];
const names = (c: Json) => webhooks(c).map((w) => w.name);
const firstClient = (c: Json) => (webhooks(c)[0] as Json).clientConfig as Json;
const firstService = (c: Json) => firstClient(c).service as Json;

const PEM = "-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----\n";

describe("webhookConfiguration", () => {
  it("default revision: four webhooks, Istio's webhook names and selectors, a name of our own", () => {
    const c = webhookConfiguration();
    assert.equal((c.metadata as Json).name, "meshinject-sidecar-injector");
    assert.deepEqual((c.metadata as Json).labels, {
      app: "sidecar-injector",
      "istio.io/rev": "default",
      "app.kubernetes.io/part-of": "meshinject",
    });
    assert.deepEqual(names(c), [
      "rev.namespace.sidecar-injector.istio.io",
      "rev.object.sidecar-injector.istio.io",
      "namespace.sidecar-injector.istio.io",
      "object.sidecar-injector.istio.io",
    ]);
    const [revNs, revObj, ns, obj] = webhooks(c) as [Json, Json, Json, Json];
    assert.deepEqual(revNs.namespaceSelector, {
      matchExpressions: [
        { key: "istio.io/rev", operator: "In", values: ["default"] },
        { key: "istio-injection", operator: "DoesNotExist" },
      ],
    });
    assert.deepEqual(revObj.objectSelector, {
      matchExpressions: [
        { key: "sidecar.istio.io/inject", operator: "NotIn", values: ["false"] },
        { key: "istio.io/rev", operator: "In", values: ["default"] },
      ],
    });
    assert.deepEqual(ns.namespaceSelector, {
      matchExpressions: [{ key: "istio-injection", operator: "In", values: ["enabled"] }],
    });
    assert.deepEqual(obj.objectSelector, {
      matchExpressions: [
        { key: "sidecar.istio.io/inject", operator: "In", values: ["true"] },
        { key: "istio.io/rev", operator: "DoesNotExist" },
      ],
    });
    for (const w of webhooks(c)) {
      assert.equal(w.sideEffects, "None");
      assert.deepEqual(w.admissionReviewVersions, ["v1"]);
      assert.equal(w.matchPolicy, "Equivalent");
      assert.equal(w.failurePolicy, "Fail");
      assert.equal(w.reinvocationPolicy, "Never");
      assert.equal(w.timeoutSeconds, 10);
      assert.deepEqual(w.rules, [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
      ]);
      assert.deepEqual(w.clientConfig, {
        service: { name: "istiod", namespace: "istio-system", path: "/inject", port: 443 },
      });
    }
  });

  it("named revision: only the two revision webhooks, Service istiod-REV", () => {
    const c = webhookConfiguration({ revision: "canary" });
    assert.equal((c.metadata as Json).name, "meshinject-sidecar-injector-canary");
    assert.equal(((c.metadata as Json).labels as Json)["istio.io/rev"], "canary");
    assert.deepEqual(names(c), ["rev.namespace.sidecar-injector.istio.io", "rev.object.sidecar-injector.istio.io"]);
    assert.equal(firstService(c).name, "istiod-canary");
    assert.deepEqual(matchingWebhooks(c, { "istio.io/rev": "canary" }, {}), [
      "rev.namespace.sidecar-injector.istio.io",
    ]);
    assert.deepEqual(matchingWebhooks(c, {}, { "istio.io/rev": "canary" }), ["rev.object.sidecar-injector.istio.io"]);
    assert.deepEqual(matchingWebhooks(c, { "istio-injection": "enabled" }, {}), []);
  });

  it("tag: selects the tag, served by the revision; tag default adds the default webhooks", () => {
    const c = webhookConfiguration({ tag: "prod", revision: "canary" });
    assert.equal((c.metadata as Json).name, "meshinject-revision-tag-prod");
    assert.deepEqual((c.metadata as Json).labels, {
      app: "sidecar-injector",
      "istio.io/rev": "canary",
      "app.kubernetes.io/part-of": "meshinject",
      "istio.io/tag": "prod",
    });
    assert.equal(names(c).length, 2);
    assert.deepEqual(matchingWebhooks(c, { "istio.io/rev": "prod" }, {}), ["rev.namespace.sidecar-injector.istio.io"]);
    assert.deepEqual(matchingWebhooks(c, { "istio.io/rev": "canary" }, {}), []);
    assert.equal(firstService(c).name, "istiod-canary");

    const d = webhookConfiguration({ tag: "default", revision: "canary" });
    assert.equal(names(d).length, 4);
    assert.deepEqual(matchingWebhooks(d, { "istio-injection": "enabled" }, {}), [
      "namespace.sidecar-injector.istio.io",
    ]);
  });

  it("a namespace other than istio-system is part of the name, as the chart does", () => {
    const c = webhookConfiguration({ namespace: "mesh", revision: "r1" });
    assert.equal((c.metadata as Json).name, "meshinject-sidecar-injector-r1-mesh");
    assert.equal(firstService(c).namespace, "mesh");
  });

  it("Istio's configuration names only when asked (a deliberate replacement)", () => {
    const name = (o: Parameters<typeof webhookConfiguration>[0]) =>
      (webhookConfiguration({ ...o, istioNames: true }).metadata as Json).name;
    assert.equal(name({}), "istio-sidecar-injector");
    assert.equal(name({ revision: "canary" }), "istio-sidecar-injector-canary");
    assert.equal(name({ tag: "prod" }), "istio-revision-tag-prod");
    assert.equal(name({ namespace: "mesh" }), "istio-sidecar-injector-mesh");
  });

  it("excluded namespaces: no webhook selects them, whatever their labels; others unchanged", () => {
    const excluded = defaultExcludedNamespaces("istio-system");
    assert.deepEqual(excluded, ["kube-system", "kube-node-lease", "kube-public", "istio-system"]);
    assert.deepEqual(defaultExcludedNamespaces("kube-system"), ["kube-system", "kube-node-lease", "kube-public"]);
    const c = webhookConfiguration({ excludeNamespaces: excluded, enableNamespacesByDefault: true });
    const plain = webhookConfiguration({ enableNamespacesByDefault: true });
    for (const w of webhooks(c)) {
      const expressions = (w.namespaceSelector as Json).matchExpressions as Json[];
      assert.deepEqual(expressions.at(-1), { key: "kubernetes.io/metadata.name", operator: "NotIn", values: excluded });
    }
    const labelSets: Record<string, string>[] = [{ "istio-injection": "enabled" }, { "istio.io/rev": "default" }, {}];
    const podSets: Record<string, string>[] = [
      {},
      { "sidecar.istio.io/inject": "true" },
      { "istio.io/rev": "default" },
    ];
    for (const nsLabels of labelSets) {
      for (const pod of podSets) {
        for (const ns of [...excluded, "shop"]) {
          const labels = { ...nsLabels, "kubernetes.io/metadata.name": ns };
          const want = excluded.includes(ns) ? [] : matchingWebhooks(plain, labels, pod);
          assert.deepEqual(
            matchingWebhooks(c, labels, pod),
            want,
            `${ns} ${JSON.stringify(labels)} ${JSON.stringify(pod)}`,
          );
        }
      }
    }
    // An injected namespace still injects.
    assert.deepEqual(matchingWebhooks(c, { "istio-injection": "enabled", "kubernetes.io/metadata.name": "shop" }, {}), [
      "namespace.sidecar-injector.istio.io",
    ]);
    assert.throws(() => webhookConfiguration({ excludeNamespaces: ["Bad"] }), /excluded namespace "Bad"/);
  });

  it("admissionReviewVersions: v1 by default, v1beta1 on request; annotations", () => {
    const both = webhookConfiguration({
      admissionReviewVersions: ["v1", "v1beta1"],
      annotations: { "cert-manager.io/inject-ca-from": "istio-system/x" },
    });
    for (const w of webhooks(both)) assert.deepEqual(w.admissionReviewVersions, ["v1", "v1beta1"]);
    assert.deepEqual((both.metadata as Json).annotations, { "cert-manager.io/inject-ca-from": "istio-system/x" });
    assert.equal((webhookConfiguration().metadata as Json).annotations, undefined);
    assert.throws(() => webhookConfiguration({ admissionReviewVersions: [] }), /admissionReviewVersions/);
    assert.throws(() => webhookConfiguration({ admissionReviewVersions: ["v2" as never] }), /admissionReviewVersions/);
  });

  it("client config: service, port, path with cluster and network, url, caBundle", () => {
    const c = webhookConfiguration({
      service: "istio-sidecar-injector",
      port: 8443,
      cluster: "c1",
      network: "net/a",
      caBundlePem: PEM,
    });
    assert.deepEqual(firstClient(c), {
      service: {
        name: "istio-sidecar-injector",
        namespace: "istio-system",
        path: "/inject/cluster/c1/net/net--slash--a",
        port: 8443,
      },
      caBundle: Buffer.from(PEM).toString("base64"),
    });
    const u = webhookConfiguration({ url: "https://injector.example.com:9443/inject" });
    assert.deepEqual(firstClient(u), { url: "https://injector.example.com:9443/inject" });
    assert.equal(injectionPath(), "/inject");
    assert.equal(injectionPath(undefined, "n1"), "/inject/net/n1");
  });

  it("policies, timeout, enableNamespacesByDefault, deactivated", () => {
    const c = webhookConfiguration({
      failurePolicy: "Ignore",
      reinvocationPolicy: "IfNeeded",
      timeoutSeconds: 30,
      enableNamespacesByDefault: true,
    });
    assert.equal(names(c).at(-1), "auto.sidecar-injector.istio.io");
    for (const w of webhooks(c)) {
      assert.equal(w.failurePolicy, "Ignore");
      assert.equal(w.reinvocationPolicy, "IfNeeded");
      assert.equal(w.timeoutSeconds, 30);
    }
    assert.deepEqual(matchingWebhooks(c, { "kubernetes.io/metadata.name": "apps" }, {}), [
      "auto.sidecar-injector.istio.io",
    ]);
    assert.deepEqual(matchingWebhooks(c, { "kubernetes.io/metadata.name": "kube-system" }, {}), []);

    const off = webhookConfiguration({ deactivated: true });
    for (const w of webhooks(off)) {
      assert.deepEqual(w.namespaceSelector, { matchLabels: { "istio.io/deactivated": "never-match" } });
    }
    assert.deepEqual(
      matchingWebhooks(off, { "istio-injection": "enabled" }, { "sidecar.istio.io/inject": "true" }),
      [],
    );
  });

  it("refuses what Kubernetes would refuse", () => {
    const bad: [string, Parameters<typeof webhookConfiguration>[0]][] = [
      ["revision", { revision: "Canary" }],
      ["tag", { tag: "a_b" }],
      ["timeoutSeconds", { timeoutSeconds: 0 }],
      ["timeoutSeconds", { timeoutSeconds: 31 }],
      ["failurePolicy", { failurePolicy: "fail" as never }],
      ["reinvocationPolicy", { reinvocationPolicy: "Always" as never }],
      ["https", { url: "http://x/inject" }],
      ["path", { url: "https://x/inject", cluster: "c1" }],
      ["port", { port: 70000 }],
      ["path", { path: "inject" }],
      ["PEM", { caBundlePem: "not a certificate" }],
    ];
    for (const [word, options] of bad) {
      assert.throws(
        () => webhookConfiguration(options),
        (e: unknown) => {
          assert.ok(e instanceof WebhookConfigError);
          assert.match(e.message, new RegExp(word));
          return true;
        },
      );
    }
    assert.throws(() => caBundle(""), WebhookConfigError);
  });

  it("round-trips through YAML", () => {
    const c = webhookConfiguration({ caBundlePem: PEM });
    assert.deepEqual(readYaml(writeYaml(c)), c);
    assert.match(writeYaml(c), /values:\n {6}- "false"/);
  });
});
