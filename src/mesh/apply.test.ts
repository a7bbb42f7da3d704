import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyJSON, applyMeshConfig, applyProxyConfig, applyProxyConfigToMesh, MeshConfigError } from "./apply.js";
import { defaultMeshConfig, defaultProxyConfig } from "./defaults.js";
import { readMeshConfig } from "./read.js";

describe("applyProxyConfig", () => {
  it("replaces present fields and merges proxyMetadata key by key", () => {
    const base = { ...defaultProxyConfig(), proxyMetadata: { merged: "original", default: "foo" } };
    const pc = applyProxyConfig('proxyMetadata: {"merged":"override","override":"bar"}\ndrainDuration: 1m', base);
    assert.deepEqual(pc.proxyMetadata, { merged: "override", default: "foo", override: "bar" });
    assert.equal(pc.drainDuration, "60s");
    assert.deepEqual(base.proxyMetadata, { merged: "original", default: "foo" });
  });

  it("replaces nested messages whole and ignores nulls and unknown fields", () => {
    const base = applyProxyConfig("tracing: {zipkin: {address: z:9411}, sampling: 5}", defaultProxyConfig());
    const pc = applyProxyConfig("tracing: {}\ndiscoveryAddress: null\nnotAField: 1", base);
    assert.deepEqual(pc.tracing, {});
    assert.equal(pc.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.throws(() => applyProxyConfig("notAField: 1", base, { strict: true }), /unknown field "notAField"/);
  });

  it("rejects values of the wrong type with the field named", () => {
    assert.throws(
      () => applyProxyConfig("concurrency: two", defaultProxyConfig()),
      (e: Error) =>
        e instanceof MeshConfigError &&
        /could not parse proxy config: concurrency: expected an integer/.test(e.message),
    );
    assert.throws(
      () => applyProxyConfig("interceptionMode: SIDEWAYS", defaultProxyConfig()),
      /unknown value "SIDEWAYS"/,
    );
  });

  it("keeps earlier proxyHeaders parts the overlay does not set", () => {
    let pc = applyProxyConfig(
      "proxyHeaders: {forwardedClientCert: APPEND_FORWARD, server: {value: s}, requestId: {disabled: true}}",
      {},
    );
    pc = applyProxyConfig("proxyHeaders: {requestId: {}, attemptCount: {disabled: true}}", pc);
    assert.deepEqual(pc.proxyHeaders, {
      forwardedClientCert: "APPEND_FORWARD",
      requestId: {},
      server: { value: "s" },
      attemptCount: { disabled: true },
    });
  });

  it("applies to a mesh's defaultConfig without changing the mesh", () => {
    const mesh = defaultMeshConfig();
    const out = applyProxyConfigToMesh("discoveryAddress: foo:123", mesh);
    assert.equal(out.defaultConfig?.discoveryAddress, "foo:123");
    assert.equal(mesh.defaultConfig?.discoveryAddress, "istiod.istio-system.svc:15012");
  });
});

describe("applyMeshConfig", () => {
  it("merges defaultConfig, providers by name and trust domain aliases", () => {
    const base = { ...defaultMeshConfig(), trustDomainAliases: ["default", "both"] };
    const mc = applyMeshConfig(
      "defaultConfig:\n  concurrency: 4\nextensionProviders:\n- name: stackdriver\n  zipkin: {service: z}\n- name: sd\n  stackdriver: {}\ntrustDomainAliases: [added, both]\ndefaultProviders: {tracing: [foo]}\ningressClass: foo",
      base,
    );
    assert.equal(mc.defaultConfig?.concurrency, 4);
    assert.equal(mc.defaultConfig?.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.deepEqual(
      mc.extensionProviders?.map((p) => p.name),
      ["prometheus", "stackdriver", "envoy", "sd"],
    );
    assert.deepEqual(mc.extensionProviders?.[1], { name: "stackdriver", zipkin: { service: "z" } });
    assert.deepEqual(mc.trustDomainAliases, ["added", "both", "default"]);
    assert.deepEqual(mc.defaultProviders, { tracing: ["foo"] });
    assert.equal(mc.ingressClass, "foo");
  });

  it("reads YAML 1.1 booleans and validates the result", () => {
    assert.equal(readMeshConfig("enableTracing: off").enableTracing, false);
    assert.throws(() => readMeshConfig("defaultConfig:\n  discoveryAddress: nohost"), /invalid discovery address/);
    assert.throws(
      () => readMeshConfig("trustDomain: Bad_Domain"),
      /trustDomain: trust domain name "Bad_Domain" invalid/,
    );
  });
});

// Regression (issue 9): mesh had its own deep clone without the __proto__ guard, so a map key
// "__proto__" became the copy's prototype (and the key was lost).
it("applyJSON keeps a __proto__ map key as data", () => {
  const base = { proxyMetadata: JSON.parse('{"__proto__": {"polluted": "yes"}, "A": "1"}') };
  const out = applyJSON("ProxyConfig", base, { concurrency: 2 });
  const metadata = out.proxyMetadata as Record<string, unknown>;
  assert.deepEqual(Object.keys(metadata), ["__proto__", "A"]);
  assert.equal(Object.getPrototypeOf(metadata), Object.prototype);
  assert.equal(metadata.polluted, undefined);
});
