import assert from "node:assert/strict";
import { test } from "node:test";
import { dnsProxyOptionsFromEnv } from "./options-from-env.js";

test("off unless DNS capture is on for a sidecar, or the DNS server is asked for", () => {
  assert.equal(dnsProxyOptionsFromEnv({}), undefined);
  assert.equal(dnsProxyOptionsFromEnv({ ISTIO_META_DNS_CAPTURE: "yes" }), undefined);
  assert.equal(dnsProxyOptionsFromEnv({ ISTIO_META_DNS_CAPTURE: "true" }, { proxyType: "router" }), undefined);
  assert.ok(dnsProxyOptionsFromEnv({ ISTIO_META_ENABLE_DNS_SERVER: "1" }, { proxyType: "router" }));
});

test("defaults and overrides", () => {
  assert.deepEqual(dnsProxyOptionsFromEnv({ ISTIO_META_DNS_CAPTURE: "True", POD_NAMESPACE: "ns1" }, { root: "/r" }), {
    root: "/r",
    address: "localhost:15053",
    proxyNamespace: "ns1",
    proxyDomain: "ns1.svc.cluster.local",
    forwardParallel: false,
    upstreamTimeoutMs: 5000,
  });
  const o = dnsProxyOptionsFromEnv(
    {
      ISTIO_META_DNS_CAPTURE: "true",
      POD_NAMESPACE: "ns1",
      DNS_PROXY_ADDR: "127.0.0.1:16053",
      DNS_FORWARD_PARALLEL: "t",
      DNS_FORWARD_TIMEOUT: "250ms",
    },
    { dnsDomain: "ns1.svc.corp.example" },
  );
  assert.equal(o?.address, "127.0.0.1:16053");
  assert.equal(o?.proxyDomain, "ns1.svc.corp.example");
  assert.equal(o?.forwardParallel, true);
  assert.equal(o?.upstreamTimeoutMs, 250);
  assert.equal(
    dnsProxyOptionsFromEnv({ ISTIO_META_DNS_CAPTURE: "true", DNS_FORWARD_TIMEOUT: "soon" })?.upstreamTimeoutMs,
    5000,
  );
});
