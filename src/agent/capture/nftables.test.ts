import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CaptureConfig, captureConfig } from "./config.js";
import { nftablesRules } from "./nftables.js";
import { CaptureRangeError } from "./ranges.js";

/** The settings istio-iptables runs with by default, plus the case's own. */
function config(fields: Partial<CaptureConfig> = {}): CaptureConfig {
  return captureConfig({
    ProxyPort: "15001",
    InboundCapturePort: "15006",
    InboundTunnelPort: "15008",
    ProxyUID: "1337",
    ProxyGID: "1337",
    InboundTProxyMark: "1337",
    InboundTProxyRouteTable: "133",
    OwnerGroupsInclude: "*",
    HostIPv4LoopbackCidr: "127.0.0.1/32",
    ...fields,
  });
}

const NAT = "inet istio-proxy-nat";
const MANGLE = "inet istio-proxy-mangle";
const RAW = "inet istio-proxy-raw";

/** The rule texts (after `add rule`/`insert rule <table>`) of one chain, in transaction order. */
function chainRules(lines: string[], table: string, chain: string): string[] {
  const out: string[] = [];
  for (const line of lines) {
    for (const verb of ["add rule", "insert rule"]) {
      const head = `${verb} ${table} ${chain} `;
      if (line.startsWith(head)) out.push(`${verb === "insert rule" ? "insert " : ""}${line.slice(head.length)}`);
    }
  }
  return out;
}

describe("nftablesRules", () => {
  it("by default captures outbound only through the nat table", () => {
    const lines = nftablesRules(config());
    assert.deepEqual(lines.slice(0, 7), [
      `add table ${NAT}`,
      `flush table ${NAT}`,
      `add chain ${NAT} output { type nat hook output priority -100 ; }`,
      `add chain ${NAT} istio-inbound`,
      `add chain ${NAT} istio-redirect`,
      `add chain ${NAT} istio-in-redirect`,
      `add chain ${NAT} istio-output`,
    ]);
    assert.ok(!lines.some((l) => l.includes("mangle") || l.includes("raw")));
    assert.deepEqual(chainRules(lines, NAT, "istio-output"), [
      "oifname lo ip saddr 127.0.0.6/32 counter return",
      "oifname lo meta l4proto tcp ip daddr != 127.0.0.1/32 tcp dport != 15008 skuid 1337 counter jump istio-in-redirect",
      "oifname lo skuid != 1337 counter return",
      "skuid 1337 counter return",
      "oifname lo meta l4proto tcp ip daddr != 127.0.0.1/32 tcp dport != 15008 skgid 1337 counter jump istio-in-redirect",
      "oifname lo skgid != 1337 counter return",
      "skgid 1337 counter return",
      "ip daddr 127.0.0.1/32 counter return",
    ]);
  });

  it("redirects all inbound ports but the excluded ones", () => {
    const lines = nftablesRules(config({ InboundPortsInclude: "*", InboundPortsExclude: "80,,443" }));
    assert.deepEqual(chainRules(lines, NAT, "prerouting"), ["meta l4proto tcp counter jump istio-inbound"]);
    assert.deepEqual(chainRules(lines, NAT, "istio-inbound"), [
      "meta l4proto tcp tcp dport 15008 counter return",
      "meta l4proto tcp tcp dport 80 counter return",
      "meta l4proto tcp tcp dport 443 counter return",
      "meta l4proto tcp counter jump istio-in-redirect",
    ]);
  });

  it("turns inserts into an empty or too short chain into appends", () => {
    const lines = nftablesRules(config({ RerouteVirtualInterfaces: "a,b", OutboundIPRangesInclude: "*" }));
    assert.deepEqual(chainRules(lines, NAT, "prerouting"), [
      "iifname a counter return",
      "insert index 0 iifname b counter return",
      "insert index 0 iifname a counter jump istio-redirect",
      "insert index 0 iifname b counter jump istio-redirect",
    ]);
    assert.equal(chainRules(lines, NAT, "istio-output").at(-1), "counter jump istio-redirect");
  });

  it("builds the TPROXY mangle table, with IPv6 rules when enabled", () => {
    const lines = nftablesRules(
      config({ InboundInterceptionMode: "TPROXY", InboundPortsInclude: "8080", EnableIPv6: true }),
    );
    assert.ok(lines.includes(`add chain ${MANGLE} output { type route hook output priority -150 ; }`));
    assert.deepEqual(chainRules(lines, MANGLE, "istio-tproxy"), [
      "meta l4proto tcp ip daddr != 127.0.0.1/32 tproxy ip to :15006 meta mark set 1337 counter accept",
      "meta l4proto tcp ip6 daddr != ::1/128 tproxy ip6 to :15006 meta mark set 1337 counter accept",
    ]);
    assert.deepEqual(chainRules(lines, MANGLE, "istio-inbound"), [
      "meta l4proto tcp ct state related,established tcp dport 8080 counter jump istio-divert",
      "meta l4proto tcp tcp dport 8080 counter jump istio-tproxy",
      "insert index 0 meta l4proto tcp mark 1337 counter return",
      "insert index 1 iifname lo meta l4proto tcp ip saddr 127.0.0.6/32 counter return",
      "insert index 1 iifname lo meta l4proto tcp ip6 saddr ::6/128 counter return",
      "insert index 2 iifname lo meta l4proto tcp mark != 1338 counter return",
    ]);
    // No inbound rules in nat: TPROXY captures in mangle.
    assert.deepEqual(chainRules(lines, NAT, "prerouting"), []);
  });

  it("marks TPROXY traffic even with no inbound ports, appending into the empty inbound chain", () => {
    const lines = nftablesRules(config({ InboundInterceptionMode: "TPROXY" }));
    assert.deepEqual(chainRules(lines, MANGLE, "istio-inbound"), [
      "meta l4proto tcp mark 1337 counter return",
      "iifname lo meta l4proto tcp ip saddr 127.0.0.6/32 counter return",
      "iifname lo meta l4proto tcp mark != 1338 counter return",
    ]);
    assert.ok(!lines.includes(`add chain ${MANGLE} istio-divert`));
  });

  it("redirects DNS to the listed servers and splits conntrack zones", () => {
    const lines = nftablesRules(
      config({ RedirectDNS: true, DNSServersV4: ["10.0.0.10"], DNSServersV6: ["fd00::a"], ProxyGID: "" }),
    );
    // IPv6 is off, so the v6 server gets no rules.
    assert.deepEqual(chainRules(lines, NAT, "istio-output-dns"), [
      "ip daddr 10.0.0.10/32 tcp dport 53 counter redirect to :15053",
      "ip daddr 10.0.0.10/32 udp dport 53 counter redirect to :15053",
    ]);
    assert.ok(
      chainRules(lines, NAT, "istio-output").includes(
        "oifname lo meta l4proto tcp tcp dport != 53 skuid != 1337 counter return",
      ),
    );
    assert.deepEqual(chainRules(lines, RAW, "istio-output-dns"), [
      "udp dport 53 meta skuid 1337 counter ct zone set 1",
      "udp sport 15053 meta skuid 1337 counter ct zone set 2",
      "udp dport 53 ip daddr 10.0.0.10/32 counter ct zone set 2",
    ]);
    assert.deepEqual(chainRules(lines, RAW, "istio-inbound"), [
      "udp sport 53 ip saddr 10.0.0.10/32 counter ct zone set 1",
    ]);
  });

  it("captures all DNS without addresses when asked", () => {
    const lines = nftablesRules(config({ RedirectDNS: true, CaptureAllDNS: true, ProxyUID: "", ProxyGID: "" }));
    assert.deepEqual(chainRules(lines, NAT, "istio-output-dns"), [
      "meta l4proto tcp tcp dport 53 counter redirect to :15053",
      "udp dport 53 counter redirect to :15053",
    ]);
    assert.deepEqual(chainRules(lines, RAW, "istio-inbound"), ["udp sport 53 counter ct zone set 1"]);
  });

  it("drops DNS capture when there is nothing to capture", () => {
    const lines = nftablesRules(config({ RedirectDNS: true }));
    assert.ok(!lines.some((l) => l.includes("istio-output-dns") || l.includes("53")));
  });

  it("keeps looping back to the app when a loopback range is captured", () => {
    const lines = nftablesRules(config({ OutboundIPRangesInclude: "127.1.2.3/32", ProxyGID: "" }));
    assert.deepEqual(chainRules(lines, NAT, "istio-output").slice(1, 3), [
      "oifname lo meta l4proto tcp ip daddr != 127.0.0.1/32 tcp dport != 15008 skuid 1337 counter jump istio-in-redirect",
      "skuid 1337 counter return",
    ]);
    assert.equal(chainRules(lines, NAT, "istio-output").at(-1), "ip daddr 127.1.2.3/32 counter jump istio-redirect");
  });

  it("filters by owner group, inclusively or exclusively", () => {
    const only = chainRules(nftablesRules(config({ OwnerGroupsInclude: "a,7" })), NAT, "istio-output");
    assert.ok(only.includes("skgid != a skgid != 7 counter return"));
    const except = chainRules(nftablesRules(config({ OwnerGroupsExclude: "b" })), NAT, "istio-output");
    assert.ok(except.includes("skgid b counter return"));
  });

  it("excludes interfaces, outbound ports and ranges, canonicalising CIDRs", () => {
    const lines = nftablesRules(
      config({
        ExcludeInterfaces: "eth9",
        OutboundPortsExclude: "9000",
        OutboundIPRangesExclude: "2001:DB8:0:0:0::/48,10.1.0.0/16",
        OutboundPortsInclude: "7000",
        EnableIPv6: true,
      }),
    );
    assert.deepEqual(chainRules(lines, NAT, "prerouting"), ["iifname eth9 counter return"]);
    assert.deepEqual(chainRules(lines, NAT, "output"), ["oifname eth9 counter return", "counter jump istio-output"]);
    const output = chainRules(lines, NAT, "istio-output");
    assert.deepEqual(output.slice(0, 2), ["tcp dport 9000 counter return", "udp dport 9000 counter return"]);
    assert.deepEqual(output.slice(-3), [
      "ip daddr 10.1.0.0/16 counter return",
      "ip6 daddr 2001:db8::/48 counter return",
      "tcp dport 7000 counter jump istio-redirect",
    ]);
  });

  it("drops invalid packets when asked", () => {
    const lines = nftablesRules(config({ DropInvalid: true }));
    assert.deepEqual(chainRules(lines, MANGLE, "prerouting"), [
      "meta l4proto tcp ct state invalid counter jump istio-drop",
    ]);
    assert.deepEqual(chainRules(lines, MANGLE, "istio-drop"), ["counter drop"]);
  });

  it("keeps empty settings as empty words, as knftables does", () => {
    const lines = nftablesRules(config({ HostIPv4LoopbackCidr: "" }));
    assert.ok(lines.includes(`add rule ${NAT} istio-output ip daddr  counter return`));
  });

  it("deletes the tables in cleanup mode", () => {
    assert.deepEqual(nftablesRules(config({ CleanupOnly: true })), [
      `add table ${NAT}`,
      `delete table ${NAT}`,
      `add table ${MANGLE}`,
      `delete table ${MANGLE}`,
      `add table ${RAW}`,
      `delete table ${RAW}`,
    ]);
  });

  it("rejects a wildcard exclusion and bad CIDRs", () => {
    assert.throws(() => nftablesRules(config({ OutboundIPRangesExclude: "*" })), CaptureRangeError);
    assert.throws(
      () => nftablesRules(config({ OutboundIPRangesInclude: "10.0.0.0" })),
      (e) => e instanceof CaptureRangeError && /OutboundIPRangesInclude: "10\.0\.0\.0" is not a CIDR/.test(e.message),
    );
  });
});
