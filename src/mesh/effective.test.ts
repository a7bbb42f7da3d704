import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultMeshConfig } from "./defaults.js";
import { agentMeshConfig, effectiveProxyConfig, mergeWithPrecedence, podProxyConfig } from "./effective.js";

describe("effective proxy config", () => {
  it("merges with precedence by presence", () => {
    assert.deepEqual(mergeWithPrecedence({ concurrency: 0 }, { concurrency: 2 }), { concurrency: 0 });
    assert.deepEqual(mergeWithPrecedence(null, { proxyMetadata: { a: "z" } }), { proxyMetadata: { a: "z" } });
    assert.deepEqual(mergeWithPrecedence({ proxyMetadata: { a: "x" } }, { proxyMetadata: { a: "z", c: "d" } }), {
      proxyMetadata: { a: "x", c: "d" },
    });
  });

  it("orders resources, annotation and workload selector", () => {
    const mesh = { rootNamespace: "istio-system", defaultConfig: { concurrency: 2 } };
    const pc = effectiveProxyConfig(
      mesh,
      { namespace: "ns", labels: { app: "a" }, annotations: { "proxy.istio.io/config": "concurrency: 5" } },
      [
        { name: "root", namespace: "istio-system", spec: { concurrency: 3 } },
        {
          name: "wl",
          namespace: "ns",
          spec: { selector: { matchLabels: { app: "a" } }, environmentVariables: { A: "1" } },
        },
      ],
    );
    assert.equal(pc.concurrency, 5);
    assert.deepEqual(pc.proxyMetadata, { A: "1" });
    assert.equal(pc.discoveryAddress, "istiod.istio-system.svc:15012");
  });

  it("applies the pod annotation over the mesh default, and the agent's layers", () => {
    const pc = podProxyConfig(defaultMeshConfig(), { "proxy.istio.io/config": "discoveryAddress: foo:123" });
    assert.equal(pc.discoveryAddress, "foo:123");
    const mc = agentMeshConfig({
      meshConfigFile: "defaultConfig:\n  proxyMetadata: {SOME: setting}",
      proxyConfigEnv: "discoveryAddress: env:123\nproxyMetadata:\nOTHER: option",
      proxyConfigAnnotation: "drainDuration: 5s",
    });
    assert.equal(mc.defaultConfig?.discoveryAddress, "env:123");
    assert.deepEqual(mc.defaultConfig?.proxyMetadata, { SOME: "setting" });
    assert.equal(mc.defaultConfig?.drainDuration, "5s");
  });
});
