import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseInjectionStatus as injectionStatus } from "./pod.js";
import {
  injectionDecision,
  injectRequired,
  isIgnoredNamespace,
  kubeInjectDecision,
  PolicyInputError,
  type PolicyPod,
} from "./policy.js";

function pod(
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
  namespace = "apps",
): PolicyPod {
  return { metadata: { namespace, labels, annotations }, spec: {} };
}

const INJECT = "sidecar.istio.io/inject";

describe("injectRequired", () => {
  it("skips host-network pods and ignored namespaces before anything else", () => {
    const hostNet: PolicyPod = { metadata: { labels: { [INJECT]: "true" } }, spec: { hostNetwork: true } };
    assert.equal(injectRequired(hostNet, { policy: "enabled" }), false);
    assert.equal(injectRequired(pod({ [INJECT]: "true" }, {}, "kube-public"), { policy: "enabled" }), false);
    assert.equal(injectRequired(pod({}, {}, "kube-public"), { policy: "enabled", ignoredNamespaces: [] }), true);
    assert.equal(isIgnoredNamespace("local-path-storage"), true);
    assert.equal(isIgnoredNamespace("default"), false);
  });

  it("the label, when present, wins over the annotation, even with an odd value", () => {
    assert.equal(injectRequired(pod({ [INJECT]: "false" }, { [INJECT]: "true" }), { policy: "disabled" }), false);
    assert.equal(injectRequired(pod({ [INJECT]: "" }, { [INJECT]: "true" }), { policy: "disabled" }), false);
    assert.equal(injectRequired(pod({}, { [INJECT]: "true" }), { policy: "disabled" }), true);
  });

  it("only 'true' and 'false' are opinions; other values fall back with a warning", () => {
    const d = injectionDecision(pod({}, { [INJECT]: "yes" }), { policy: "disabled" });
    assert.equal(d.inject, false);
    assert.match(d.warnings[0] ?? "", /Only 'true' and 'false' are accepted/);
  });

  it("selectors apply only without an opinion, never before always", () => {
    const config = {
      policy: "disabled",
      neverInjectSelector: [{ matchExpressions: [{ key: "tier", operator: "In", values: ["db"] }] }],
      alwaysInjectSelector: [{ matchLabels: { team: "a" } }],
    };
    assert.equal(injectRequired(pod({ team: "a" }), config), true);
    assert.equal(injectRequired(pod({ team: "a", tier: "db" }), config), false);
    assert.equal(injectRequired(pod({ team: "a", tier: "db", [INJECT]: "true" }), config), true);
    assert.equal(injectRequired(pod({ team: "b" }), config), false);
  });

  it("skips empty and invalid selectors (the latter with a warning)", () => {
    const d = injectionDecision(pod({ x: "1" }), {
      policy: "enabled",
      neverInjectSelector: [{}, { matchExpressions: [{ key: "x", operator: "Gt", values: ["0"] }] }],
    });
    assert.equal(d.inject, true);
    assert.match(d.warnings[0] ?? "", /"Gt" is not a valid label selector operator/);
  });

  it("an unknown policy never injects, even when asked to", () => {
    const d = injectionDecision(pod({ [INJECT]: "true" }), { policy: "Enabled" });
    assert.equal(d.inject, false);
    assert.match(d.warnings.at(-1) ?? "", /Illegal value for autoInject:Enabled/);
  });

  it("reports, but does not skip, an already injected pod", () => {
    const status = '{"initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":null,"revision":"canary"}';
    const p = pod({}, { "sidecar.istio.io/status": status });
    const d = injectionDecision(p, { policy: "enabled" });
    assert.equal(d.inject, true);
    assert.equal(d.alreadyInjected, true);
    assert.deepEqual(injectionStatus(p), {
      initContainers: ["istio-init"],
      containers: ["istio-proxy"],
      volumes: null,
      imagePullSecrets: null,
      revision: "canary",
    });
  });
});

describe("kubeInjectDecision", () => {
  it("prints istioctl's skip lines", () => {
    const hostNet: PolicyPod = { metadata: {}, spec: { hostNetwork: true } };
    assert.deepEqual(kubeInjectDecision(hostNet, { kind: "Deployment", fullName: "ns/web" }), {
      inject: false,
      warning: '===> Skipping injection because Deployment "ns/web" has host networking enabled\n',
      logged: [],
    });
    assert.deepEqual(kubeInjectDecision(pod({}, { [INJECT]: "false" }), { fullName: "web" }), {
      inject: false,
      warning: '===> Skipping injection because "web" has sidecar injection disabled\n',
      logged: [],
    });
    assert.deepEqual(kubeInjectDecision(pod(), { kind: "Pod", fullName: "web" }), { inject: true, logged: [] });
  });

  it("passes on what Istio logs for an invalid inject value, which falls back to the default (inject)", () => {
    assert.deepEqual(kubeInjectDecision(pod({}, { [INJECT]: "maybe" }), { kind: "Pod", fullName: "web" }), {
      inject: true,
      logged: [
        "Invalid value for sidecar.istio.io/inject: \"maybe\". Only 'true' and 'false' are accepted. Falling back to default injection policy.",
      ],
    });
  });
});

describe("values of the wrong type (a pod that was not typed first)", () => {
  const raw = (metadata: Record<string, unknown>): PolicyPod => ({ metadata, spec: {} }) as PolicyPod;
  const refused = (pod: PolicyPod, message: string) =>
    assert.throws(
      () => injectionDecision(pod, { policy: "enabled" }),
      (e: unknown) => e instanceof PolicyInputError && e.message === message,
    );

  it("are a PolicyInputError naming the field, never a TypeError", () => {
    refused(
      raw({ annotations: { [INJECT]: { a: 1 } } }),
      `metadata.annotations["${INJECT}"] must be a string, got map`,
    );
    refused(
      raw({ annotations: { [INJECT]: true } }),
      `metadata.annotations["${INJECT}"] must be a string, got boolean`,
    );
    refused(raw({ labels: { [INJECT]: 1 } }), `metadata.labels["${INJECT}"] must be a string, got number`);
    refused(raw({ labels: { app: ["a"] } }), `metadata.labels["app"] must be a string, got list`);
    refused(raw({ labels: "x" }), "metadata.labels must be a map, got string");
    refused(raw({ annotations: [1] }), "metadata.annotations must be a map, got list");
    refused(raw({ namespace: 5 }), "metadata.namespace must be a string, got number");
    assert.throws(
      () => kubeInjectDecision(raw({ annotations: { [INJECT]: false } }), { fullName: "x" }),
      PolicyInputError,
    );
  });

  it("annotations the decision does not read are not its business; null reads as the empty string", () => {
    assert.equal(injectRequired(raw({ annotations: { other: { a: 1 } } }), { policy: "enabled" }), true);
    const d = injectionDecision(raw({ labels: { [INJECT]: null } }), { policy: "disabled" });
    assert.equal(d.inject, false);
    assert.deepEqual(d.warnings, []);
  });
});
