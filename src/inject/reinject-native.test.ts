// Re-injection across a change of the native-sidecar setting, as Istio's RunTemplate does it
// (pkg/kube/inject/inject.go): a proxy moves into initContainers when it goes native, never back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readYaml } from "../go/yaml/read.js";
import { injectYaml, loadInjectorConfig } from "../index.js";

const injector = loadInjectorConfig();

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
`;

interface Placement {
  containers: string[];
  initContainers: string[];
}

function placement(yaml: string): Placement {
  const doc = readYaml(yaml.replace(/---\n$/, "")) as {
    spec: { template: { spec: { containers?: { name: string }[]; initContainers?: { name: string }[] } } };
  };
  const spec = doc.spec.template.spec;
  return {
    containers: (spec.containers ?? []).map((c) => c.name),
    initContainers: (spec.initContainers ?? []).map((c) => c.name),
  };
}

const proxies = (p: Placement) => [...p.containers, ...p.initContainers].filter((n) => n === "istio-proxy").length;

describe("re-injection after the native-sidecar setting changed", () => {
  const native = injectYaml(injector, DEPLOYMENT, { nativeSidecars: true });
  const regular = injectYaml(injector, DEPLOYMENT, { nativeSidecars: false });

  it("native, then regular: the old native proxy stays where it was, beside the new one (as Istio)", () => {
    // The status annotation lists istio-proxy under initContainers; the template now writes it under
    // containers, which Istio merges in without touching the init container.
    const again = placement(injectYaml(injector, native, { nativeSidecars: false }));
    assert.equal(proxies(again), 2, JSON.stringify(again));
    assert.ok(again.containers.includes("istio-proxy"));
    assert.ok(again.initContainers.includes("istio-proxy"));
  });

  it("regular, then native: one proxy, in initContainers", () => {
    const again = placement(injectYaml(injector, regular, { nativeSidecars: true }));
    assert.equal(proxies(again), 1, JSON.stringify(again));
    assert.ok(again.initContainers.includes("istio-proxy"));
    assert.deepEqual(again, placement(native));
  });

  it("the same setting twice is a fixed point", () => {
    assert.equal(injectYaml(injector, native, { nativeSidecars: true }), native);
    assert.equal(injectYaml(injector, regular, { nativeSidecars: false }), regular);
  });
});

// Istio pkg/kube/inject/inject.go RunTemplate moves a user's istio-proxy from containers to
// initContainers when the template made the proxy native, never back: its `spire` template (added
// after `sidecar`, as in testdata/inject/spire-template.iop.yaml) writes `containers: [istio-proxy]`,
// and Istio's output (sidecar-spire.yaml.injected) keeps the native proxy and gets a second one.
describe("a template adding containers: [istio-proxy] after the proxy went native", () => {
  const config = `policy: enabled
templates:
  sidecar: |
    spec:
      initContainers:
      - name: istio-proxy
        image: proxyv2
        restartPolicy: Always
  spire: |
    spec:
      containers:
      - name: istio-proxy
        volumeMounts:
        - name: workload-socket
          mountPath: /var/run/secrets/workload-spiffe-uds
`;
  it("keeps the native proxy and adds the container one", () => {
    const spire = loadInjectorConfig({ config });
    // As testdata/inject/sidecar-spire.yaml asks for them (kube-inject reads no defaultTemplates).
    const annotated = DEPLOYMENT.replace(
      "      labels: {app: web}\n",
      '      labels: {app: web}\n      annotations: {"inject.istio.io/templates": "sidecar,spire"}\n',
    );
    const out = placement(injectYaml(spire, annotated, { nativeSidecars: true }));
    assert.deepEqual(out, { containers: ["web", "istio-proxy"], initContainers: ["istio-proxy"] });
  });
});
