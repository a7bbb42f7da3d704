import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyProxyConfig } from "./apply.js";
import { proxyConfigJSON } from "./clean.js";
import { defaultMeshConfig, defaultProxyConfig } from "./defaults.js";
import { type Msg, messagesEqual } from "./message.js";
import type { ProxyConfig } from "./types.js";

// Istio pkg/kube/inject/inject_test.go TestCleanProxyConfig: PROXY_CONFIG keeps only what differs
// from DefaultProxyConfig, and reading it back over the default mesh gives the same ProxyConfig.
describe("proxyConfigJSON: Istio's TestCleanProxyConfig table", () => {
  const overrides: ProxyConfig = {
    ...defaultProxyConfig(),
    configPath: "/foo/bar",
    drainDuration: "7s",
    proxyMetadata: { foo: "barr" },
  };
  const explicit: ProxyConfig = { ...defaultProxyConfig(), configPath: "./etc/istio/proxy", drainDuration: "45s" };
  const cases: Array<[string, ProxyConfig, string]> = [
    ["default", defaultProxyConfig(), "{}"],
    ["explicit default", explicit, "{}"],
    ["overrides", overrides, '{"configPath":"/foo/bar","drainDuration":"7s","proxyMetadata":{"foo":"barr"}}'],
  ];
  for (const [name, proxy, expect] of cases) {
    it(name, () => {
      const got = proxyConfigJSON(proxy);
      assert.equal(got, expect);
      const roundTrip = applyProxyConfig(got, defaultMeshConfig().defaultConfig ?? {});
      assert.ok(messagesEqual("ProxyConfig", roundTrip as Msg, proxy as Msg), "round trip is identical");
    });
  }
});
