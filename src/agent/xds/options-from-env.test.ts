/**
 * The XDS proxy's environment as pilot-agent reads it: the ClusterID header from ISTIO_META_CLUSTER_ID
 * with no default, PCDS only with PROXY_CONFIG_XDS_AGENT true and a trust-bundle sink.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { xdsProxyOptionsFromEnv } from "./options-from-env.js";

test("ClusterID: ISTIO_META_CLUSTER_ID, empty when unset (no Kubernetes default in the agent)", () => {
  const agent = { discoveryAddress: "istiod.istio-system.svc:15012" };
  assert.equal(xdsProxyOptionsFromEnv({}, agent).clusterId, "");
  assert.equal(xdsProxyOptionsFromEnv({ ISTIO_META_CLUSTER_ID: "east" }, agent).clusterId, "east");
});

test("PCDS: only with PROXY_CONFIG_XDS_AGENT=true (Go ParseBool) and a trust-bundle sink", () => {
  const sink = () => {};
  const agent = { discoveryAddress: "istiod:15012", onTrustBundle: sink };
  assert.equal(xdsProxyOptionsFromEnv({}, agent).onProxyConfig, undefined);
  assert.equal(xdsProxyOptionsFromEnv({ PROXY_CONFIG_XDS_AGENT: "false" }, agent).onProxyConfig, undefined);
  assert.equal(xdsProxyOptionsFromEnv({ PROXY_CONFIG_XDS_AGENT: "yes" }, agent).onProxyConfig, undefined);
  assert.equal(xdsProxyOptionsFromEnv({ PROXY_CONFIG_XDS_AGENT: "True" }, agent).onProxyConfig, sink);
  assert.equal(
    xdsProxyOptionsFromEnv({ PROXY_CONFIG_XDS_AGENT: "1" }, { discoveryAddress: "istiod:15012" }).onProxyConfig,
    undefined,
  );
});
