import assert from "node:assert/strict";
import { test } from "node:test";
import { type CaptureConfig, captureConfig, defaultCaptureConfig } from "./config.js";
import { iptablesRestore, iptablesRun } from "./iptables.js";
import { CaptureRangeError } from "./ranges.js";

const config = (fields: Partial<CaptureConfig>): CaptureConfig => ({ ...defaultCaptureConfig(), ...fields });

test("the default config captures nothing inbound and only the proxy/loopback rules outbound", () => {
  const { v4, v6 } = iptablesRestore(config({ ProxyUID: "1337", ProxyGID: "1337" }));
  assert.deepEqual(v6, []);
  assert.equal(v4[0], "* nat");
  assert.equal(v4.at(-1), "COMMIT");
  assert.ok(v4.includes("-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001"));
  assert.ok(v4.includes("-A ISTIO_OUTPUT -o lo -s 127.0.0.6/32 -j RETURN"));
  assert.ok(v4.includes("-A ISTIO_OUTPUT -m owner --uid-owner 1337 -j RETURN"));
  assert.ok(!v4.some((l) => l.startsWith("-A PREROUTING")), "no inbound capture without InboundPortsInclude");
  assert.equal(v4.filter((l) => l === "-A ISTIO_OUTPUT -j ISTIO_REDIRECT").length, 0);
});

test("inbound ports: all but the excluded, or only the listed", () => {
  const all = iptablesRestore(config({ InboundPortsInclude: "*", InboundPortsExclude: "15020,,15090" })).v4;
  assert.ok(all.includes("-A PREROUTING -p tcp -j ISTIO_INBOUND"));
  assert.ok(all.includes("-A ISTIO_INBOUND -p tcp --dport 15090 -j RETURN"));
  assert.ok(all.includes("-A ISTIO_INBOUND -p tcp -j ISTIO_IN_REDIRECT"));
  assert.equal(all.filter((l) => l.includes("--dport 15020 -j RETURN")).length, 1);
  const some = iptablesRestore(config({ InboundPortsInclude: "80" })).v4;
  assert.ok(some.includes("-A ISTIO_INBOUND -p tcp --dport 80 -j ISTIO_IN_REDIRECT"));
});

test("outbound CIDRs are split by family; invalid entries are skipped", () => {
  const { v4, v6 } = iptablesRestore(
    config({
      EnableIPv6: true,
      OutboundIPRangesInclude: "10.0.0.0/8,fd00::/8,bogus",
      OutboundIPRangesExclude: "10.1.0.0/16",
    }),
  );
  assert.ok(v4.includes("-A ISTIO_OUTPUT -d 10.0.0.0/8 -j ISTIO_REDIRECT"));
  assert.ok(v4.includes("-A ISTIO_OUTPUT -d 10.1.0.0/16 -j RETURN"));
  assert.ok(!v4.some((l) => l.includes("fd00::/8")));
  assert.ok(v6.includes("-A ISTIO_OUTPUT -d fd00::/8 -j ISTIO_REDIRECT"));
  assert.ok(!v6.some((l) => l.includes("10.1.0.0/16")));
  const skipped = iptablesRestore(config({ ProxyUID: "1", OutboundIPRangesInclude: "bogus,127.0.0.1/32" })).v4;
  assert.ok(skipped.includes("-A ISTIO_OUTPUT -d 127.0.0.1/32 -j ISTIO_REDIRECT"));
  assert.ok(!skipped.some((l) => l.includes("bogus")));
  // The loopback range still counts as captured, so the proxy's loopback traffic is kept.
  assert.ok(!skipped.includes("-A ISTIO_OUTPUT -o lo -m owner ! --uid-owner 1 -j RETURN"));
});

test("an explicitly captured loopback range keeps the proxy's loopback traffic", () => {
  const v4 = iptablesRestore(config({ ProxyUID: "1", OutboundIPRangesInclude: "127.0.0.0/8" })).v4;
  assert.ok(!v4.includes("-A ISTIO_OUTPUT -o lo -m owner ! --uid-owner 1 -j RETURN"));
});

test("excluding every outbound destination is rejected", () => {
  assert.throws(() => iptablesRestore(config({ OutboundIPRangesExclude: "*" })), CaptureRangeError);
});

test("DNS redirection without name servers or capture-all is dropped", () => {
  const off = iptablesRestore(config({ RedirectDNS: true, ProxyUID: "1" })).v4;
  assert.ok(!off.some((l) => l.includes("ISTIO_OUTPUT_DNS")));
  const all = iptablesRestore(config({ RedirectDNS: true, CaptureAllDNS: true, ProxyUID: "1" })).v4;
  assert.ok(all.includes("-A ISTIO_OUTPUT_DNS -p udp --dport 53 -j REDIRECT --to-port 15053"));
  assert.ok(all.includes("* raw"));
  assert.ok(all.includes("-A ISTIO_OUTPUT -o lo -p tcp ! --dport 53 -m owner ! --uid-owner 1 -j RETURN"));
});

test("owner groups: one combined rule for an include list, one rule per excluded group", () => {
  const only = iptablesRestore(config({ OwnerGroupsInclude: "a,b" })).v4;
  assert.ok(only.includes("-A ISTIO_OUTPUT -m owner ! --gid-owner a -m owner ! --gid-owner b -j RETURN"));
  const except = iptablesRestore(config({ OwnerGroupsExclude: "c" })).v4;
  assert.ok(except.includes("-A ISTIO_OUTPUT -m owner --gid-owner c -j RETURN"));
  // Go's zero value (include "") captures no group at all.
  const none = iptablesRestore(captureConfig({ ProxyPort: "1", HostIPv4LoopbackCidr: "127.0.0.1/32" })).v4;
  assert.ok(none.includes("-A ISTIO_OUTPUT -j RETURN"));
});

test("a run: probes, v4 input, v6 input, final dumps", () => {
  const v4only = iptablesRun(config({}));
  assert.deepEqual(v4only.slice(0, 3), ["iptables-save", "ip6tables-save", "* nat"]);
  assert.deepEqual(v4only.slice(-2), ["COMMIT", "iptables-save"]);
  const dual = iptablesRun(config({ EnableIPv6: true }));
  assert.deepEqual(dual.slice(-3), ["COMMIT", "iptables-save", "ip6tables-save"]);
  assert.equal(dual.filter((l) => l === "* nat").length, 2);
});
