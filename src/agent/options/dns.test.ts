import assert from "node:assert/strict";
import { test } from "node:test";
import { dnsProxyOptionsFromEnv } from "./dns.js";

test("off unless DNS capture is on for a sidecar, or the DNS server is asked for", () => {
  assert.equal(dnsProxyOptionsFromEnv({}), undefined);
  const warnings: string[] = [];
  assert.equal(dnsProxyOptionsFromEnv({ ISTIO_META_DNS_CAPTURE: "yes" }, { warn: (w) => warnings.push(w) }), undefined);
  assert.deepEqual(warnings, [
    'env ISTIO_META_DNS_CAPTURE: invalid environment variable value "yes", expecting true/false, defaulting to false',
  ]);
  assert.equal(dnsProxyOptionsFromEnv({ ISTIO_META_DNS_CAPTURE: "true" }, { proxyType: "router" }), undefined);
  assert.ok(dnsProxyOptionsFromEnv({ ISTIO_META_ENABLE_DNS_SERVER: "1" }, { proxyType: "router" }));
});

test("defaults and overrides", () => {
  assert.deepEqual(dnsProxyOptionsFromEnv({ ISTIO_META_DNS_CAPTURE: "True" }, { root: "/r", namespace: "ns1" }), {
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
      DNS_PROXY_ADDR: "127.0.0.1:16053",
      DNS_FORWARD_PARALLEL: "t",
      DNS_FORWARD_TIMEOUT: "250ms",
    },
    { dnsDomain: "ns1.svc.corp.example", namespace: "ns1" },
  );
  assert.equal(o?.address, "127.0.0.1:16053");
  assert.equal(o?.proxyDomain, "ns1.svc.corp.example");
  assert.equal(o?.forwardParallel, true);
  assert.equal(o?.upstreamTimeoutMs, 250);
  const warnings: string[] = [];
  assert.equal(
    dnsProxyOptionsFromEnv(
      { ISTIO_META_DNS_CAPTURE: "true", DNS_FORWARD_TIMEOUT: "soon" },
      { warn: (w) => warnings.push(w) },
    )?.upstreamTimeoutMs,
    5000,
  );
  assert.match(warnings.join("\n"), /^env DNS_FORWARD_TIMEOUT: .*"soon", expecting a duration, defaulting to 5s$/);
});
