// Re-injection across a change of the native-sidecar setting: the pod keeps exactly one istio-proxy,
// in the place the current setting asks for (an init container with restartPolicy Always, or a
// regular container).
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

  it("native, then regular: one proxy, in containers", () => {
    const again = placement(injectYaml(injector, native, { nativeSidecars: false }));
    assert.equal(proxies(again), 1, JSON.stringify(again));
    assert.ok(again.containers.includes("istio-proxy"));
    assert.deepEqual(again, placement(regular));
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

  it("native, regular, native again gives the first output back", () => {
    const back = injectYaml(injector, injectYaml(injector, native, { nativeSidecars: false }), {
      nativeSidecars: true,
    });
    assert.equal(back, native);
  });
});
