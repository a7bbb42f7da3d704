// The library's two entry points take the same decisions: every input here goes through `inject`
// (as an object) and `injectYaml` (as one YAML document), and both must inject it, copy it, or
// refuse it alike, with the same warnings and, when injected, the same object.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readYaml } from "./go/yaml/read.js";
import { writeYaml } from "./go/yaml/write.js";
import { InjectionError, inject, injectYaml, loadInjectorConfig } from "./index.js";

const injector = loadInjectorConfig();

const podSpec = { containers: [{ name: "app", image: "example/app" }] };
const template = (annotations: Record<string, string> = {}) => ({
  metadata: { labels: { app: "web" }, annotations },
  spec: podSpec,
});
const workload = (apiVersion: string, kind: string, spec: Record<string, unknown>) => ({
  apiVersion,
  kind,
  metadata: { name: "web" },
  spec,
});
const deployment = (apiVersion: string, annotations?: Record<string, string>) =>
  workload(apiVersion, "Deployment", { selector: { matchLabels: { app: "web" } }, template: template(annotations) });
const cronJob = (apiVersion: string) =>
  workload(apiVersion, "CronJob", { schedule: "@daily", jobTemplate: { spec: { template: template() } } });

const INPUTS: Record<string, Record<string, unknown>> = {
  "apps/v1 Deployment": deployment("apps/v1"),
  "extensions/v1beta1 Deployment": deployment("extensions/v1beta1"),
  "apps/v1beta2 Deployment": deployment("apps/v1beta2"),
  "extensions/v1beta1 DaemonSet": workload("extensions/v1beta1", "DaemonSet", { template: template() }),
  "apps/v1beta1 StatefulSet": workload("apps/v1beta1", "StatefulSet", { template: template() }),
  "batch/v1 CronJob": cronJob("batch/v1"),
  "batch/v1beta1 CronJob": cronJob("batch/v1beta1"),
  "batch/v2alpha1 CronJob": cronJob("batch/v2alpha1"),
  "v1 Pod": { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: podSpec },
  "custom resource named Deployment": { apiVersion: "example.com/v1", kind: "Deployment", metadata: { name: "cr" } },
  "custom resource named Pod": { apiVersion: "example.com/v1", kind: "Pod", metadata: { name: "cr" }, spec: {} },
  Service: { apiVersion: "v1", kind: "Service", metadata: { name: "s" } },
  "no kind": { apiVersion: "v1", metadata: { name: "nameless" } },
  "invalid inject value": deployment("apps/v1", { "sidecar.istio.io/inject": "maybe" }),
  "inject false": deployment("apps/v1", { "sidecar.istio.io/inject": "false" }),
  "bad annotation": deployment("apps/v1", { "sidecar.istio.io/proxyCPU": "abc" }),
  "Deployment without a template": workload("apps/v1", "Deployment", {}),
  "List with an old CronJob and a custom resource": {
    apiVersion: "v1",
    kind: "List",
    items: [cronJob("batch/v1beta1"), { apiVersion: "example.com/v1", kind: "Deployment", metadata: { name: "cr" } }],
  },
};

type Result =
  | { kind: "error"; cause: string }
  | { kind: "done"; injected: boolean; object: unknown; warnings: string[] };

const proxyCount = (o: unknown): number => (JSON.stringify(o).match(/"name":"istio-proxy"/g) ?? []).length;

/**
 * `document 1 (X): cause` and `X: cause` name the same object: keep `X: cause`. An object without a
 * kind is `document 1` in a stream and `(no kind) "name"` alone: keep the cause.
 */
const sameSubject = (message: string) =>
  message.replace(/^document 1 \(([^)]*)\)/, "$1").replace(/^(document 1|\(no kind\)( "[^"]*")?): /, "");

function viaObject(input: Record<string, unknown>): Result {
  const warnings: string[] = [];
  try {
    const object = inject(injector, input, { onWarning: (w) => warnings.push(w) });
    return { kind: "done", injected: proxyCount(object) > 0, object, warnings: warnings.map(sameSubject) };
  } catch (e) {
    assert.ok(e instanceof InjectionError, String(e));
    return { kind: "error", cause: sameSubject(e.message) };
  }
}

function viaYaml(input: Record<string, unknown>): Result {
  const warnings: string[] = [];
  try {
    const out = injectYaml(injector, writeYaml(input), { onWarning: (w) => warnings.push(w) });
    const object = readYaml(out.replace(/---\n$/, ""));
    return { kind: "done", injected: proxyCount(object) > 0, object, warnings: warnings.map(sameSubject) };
  } catch (e) {
    assert.ok(e instanceof Error, String(e));
    return { kind: "error", cause: sameSubject(e.message) };
  }
}

describe("inject and injectYaml agree", () => {
  for (const [name, input] of Object.entries(INPUTS)) {
    it(name, () => {
      const a = viaObject(structuredClone(input));
      const b = viaYaml(structuredClone(input));
      assert.equal(a.kind, b.kind, `inject: ${JSON.stringify(a)}\ninjectYaml: ${JSON.stringify(b)}`);
      if (a.kind === "error" || b.kind === "error") {
        assert.equal(a.kind === "error" && a.cause, b.kind === "error" && b.cause);
        return;
      }
      assert.equal(a.injected, b.injected);
      assert.deepEqual(a.warnings, b.warnings);
      // Injected objects are the same object; what is not injected comes back as given (inject) and
      // typed or verbatim (injectYaml), and in both without a proxy.
      if (a.injected) assert.deepEqual(a.object, b.object);
      else assert.deepEqual(a.object, input);
    });
  }
});

describe("what a new user's manifests need", () => {
  const warningsOf = (input: Record<string, unknown>) => {
    const warnings: string[] = [];
    const object = inject(injector, input, { onWarning: (w) => warnings.push(w) });
    return { object, warnings };
  };

  it("injects the old apiVersions of the built-in kinds, keeping the apiVersion", () => {
    for (const input of [deployment("extensions/v1beta1"), cronJob("batch/v1beta1")]) {
      const { object, warnings } = warningsOf(input);
      assert.equal(proxyCount(object), 1);
      assert.equal((object as { apiVersion: string }).apiVersion, input.apiVersion);
      assert.deepEqual(warnings, []);
    }
  });

  it("passes a custom resource named like a workload through unchanged, with a warning", () => {
    const cr = INPUTS["custom resource named Deployment"] as Record<string, unknown>;
    const { object, warnings } = warningsOf(cr);
    assert.deepEqual(object, cr);
    assert.deepEqual(warnings, [
      'Deployment "cr": apiVersion "example.com/v1" is not a Kubernetes API of Deployment (apps/*, extensions/*): not injected, copied through unchanged',
    ]);
  });

  it("warns, naming the object, about an invalid sidecar.istio.io/inject value, and injects (the default)", () => {
    const { object, warnings } = warningsOf(INPUTS["invalid inject value"] as Record<string, unknown>);
    assert.equal(proxyCount(object), 1);
    assert.deepEqual(warnings, [
      `Deployment "web": Invalid value for sidecar.istio.io/inject: "maybe". Only 'true' and 'false' are accepted. Falling back to default injection policy.`,
    ]);
  });
});
