/**
 * DNS capture for the nftables backend: sending the pod's DNS queries to the istio-agent's DNS proxy
 * (port 15053), and splitting UDP DNS traffic into two conntrack zones so that the proxy's own
 * upstream queries and the application's queries to the proxy never share a conntrack entry.
 */

import { DNS_PROXY_PORT, splitList } from "./config.js";
import {
  ISTIO_INBOUND,
  ISTIO_OUTPUT,
  ISTIO_OUTPUT_DNS,
  NAT_TABLE,
  OUTPUT,
  PREROUTING,
  RAW_TABLE,
} from "./nftables-tables.js";
import { COUNTER, type NftRuleSet } from "./nftables-transaction.js";

/** What DNS capture depends on. */
export interface DnsCaptureSettings {
  proxyUID: string;
  proxyGID: string;
  /** Name servers (plain addresses) whose traffic is captured when not all DNS is. */
  serversV4: readonly string[];
  serversV6: readonly string[];
  /** Capture DNS to any address, not only to the listed servers. */
  captureAll: boolean;
}

/** Adds the DNS redirection and conntrack-zone rules (only called when DNS capture is on). */
export function addDnsCapture(rules: NftRuleSet, dns: DnsCaptureSettings): void {
  const { serversV4, serversV6, captureAll } = dns;
  const redirect = [COUNTER, "redirect", "to", `:${DNS_PROXY_PORT}`];

  rules.append(RAW_TABLE, OUTPUT, COUNTER, "jump", ISTIO_OUTPUT_DNS);
  if (captureAll || serversV4.length > 0 || serversV6.length > 0) {
    rules.append(NAT_TABLE, ISTIO_OUTPUT, COUNTER, "jump", ISTIO_OUTPUT_DNS);
  }

  // TCP first, then UDP, each for every server (or for any address).
  for (const protocol of ["tcp", "udp"]) {
    if (captureAll) {
      const match = protocol === "tcp" ? ["meta l4proto tcp", "tcp dport", "53"] : ["udp dport", "53"];
      rules.append(NAT_TABLE, ISTIO_OUTPUT_DNS, ...match, ...redirect);
      continue;
    }
    for (const server of serversV4) {
      rules.append(NAT_TABLE, ISTIO_OUTPUT_DNS, "ip daddr", `${server}/32`, `${protocol} dport`, "53", ...redirect);
    }
    for (const server of serversV6) {
      rules.appendV6(NAT_TABLE, ISTIO_OUTPUT_DNS, "ip6 daddr", `${server}/128`, `${protocol} dport`, "53", ...redirect);
    }
  }

  addConntrackZones(rules, dns);
}

/**
 * Zone 1: the proxy's queries to upstream resolvers and their answers. Zone 2: the application's
 * queries (to the proxy, after redirection) and the proxy's answers to them.
 */
function addConntrackZones(rules: NftRuleSet, dns: DnsCaptureSettings): void {
  const { serversV4, serversV6, captureAll } = dns;
  const owners = [
    ...splitList(dns.proxyUID).map((uid) => ["skuid", uid]),
    ...splitList(dns.proxyGID).map((gid) => ["skgid", gid]),
  ];
  for (const owner of owners) {
    rules.append(RAW_TABLE, ISTIO_OUTPUT_DNS, "udp dport", "53", "meta", ...owner, COUNTER, "ct zone set 1");
    rules.append(RAW_TABLE, ISTIO_OUTPUT_DNS, "udp sport", DNS_PROXY_PORT, "meta", ...owner, COUNTER, "ct zone set 2");
  }

  if (captureAll) {
    rules.append(RAW_TABLE, PREROUTING, COUNTER, "jump", ISTIO_INBOUND);
    rules.append(RAW_TABLE, ISTIO_OUTPUT_DNS, "udp dport", "53", COUNTER, "ct zone set 2");
    rules.append(RAW_TABLE, ISTIO_INBOUND, "udp sport", "53", COUNTER, "ct zone set 1");
    return;
  }
  if (serversV4.length > 0 || serversV6.length > 0) {
    rules.append(RAW_TABLE, PREROUTING, COUNTER, "jump", ISTIO_INBOUND);
  }
  for (const server of serversV4) {
    rules.append(RAW_TABLE, ISTIO_OUTPUT_DNS, "udp dport", "53", "ip daddr", `${server}/32`, COUNTER, "ct zone set 2");
    rules.append(RAW_TABLE, ISTIO_INBOUND, "udp sport", "53", "ip saddr", `${server}/32`, COUNTER, "ct zone set 1");
  }
  for (const server of serversV6) {
    rules.appendV6(
      RAW_TABLE,
      ISTIO_OUTPUT_DNS,
      "udp dport",
      "53",
      "ip6 daddr",
      `${server}/128`,
      COUNTER,
      "ct zone set 2",
    );
    rules.appendV6(RAW_TABLE, ISTIO_INBOUND, "udp sport", "53", "ip6 saddr", `${server}/128`, COUNTER, "ct zone set 1");
  }
}
