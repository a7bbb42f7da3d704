/**
 * The sidecar's traffic-capture rules for the nftables backend (`istio-iptables --native-nftables`):
 * one `inet` transaction that sends the pod's inbound TCP to Envoy's inbound port (by REDIRECT, or by
 * TPROXY through the mangle table), its outbound TCP to Envoy's outbound port, and, when asked, its
 * DNS to the istio-agent. Pure: the configuration in, the transaction's lines out.
 *
 * Rule order matters to nftables and is Istio's: interface exclusions, the redirect chains, inbound
 * capture, then `istio-output` (proxy-owned traffic, owner groups, DNS, loopback, exclusions,
 * inclusions), then the TPROXY marking rules.
 */

import { formatPrefix } from "../netip.js";
import {
  type CaptureConfig,
  INBOUND_PASSTHROUGH_V4,
  INBOUND_PASSTHROUGH_V6,
  IPV6_LOOPBACK,
  OUTBOUND_MARK,
  ownerGroupFilter,
  redirectsDNS,
  splitList,
} from "./config.js";
import { addDnsCapture } from "./nftables-dns.js";
import {
  ISTIO_DIVERT,
  ISTIO_DROP,
  ISTIO_IN_REDIRECT,
  ISTIO_INBOUND,
  ISTIO_OUTPUT,
  ISTIO_REDIRECT,
  ISTIO_TPROXY,
  MANGLE_TABLE,
  NAT_TABLE,
  OUTPUT,
  PREROUTING,
  type TableName,
} from "./nftables-tables.js";
import { COUNTER, NftRuleSet, renderTransaction } from "./nftables-transaction.js";
import { type NetworkRange, outboundRanges } from "./ranges.js";

/**
 * The lines of the nftables transaction `istio-iptables --native-nftables` applies for `config`.
 * Throws `CaptureRangeError` (ranges.ts) for an unparsable CIDR (unlike the iptables backend, which
 * skips it) and for `*` as the outbound exclusion list.
 */
export function nftablesRules(config: CaptureConfig): string[] {
  const { exclude, include } = outboundRanges(config);
  const redirectDNS = redirectsDNS(config);
  const tproxy = config.InboundInterceptionMode === "TPROXY";

  const rules = new NftRuleSet(config.EnableIPv6);
  addInterfaceExclusions(rules, config, tproxy);
  for (const nic of splitList(config.RerouteVirtualInterfaces)) {
    rules.insert(NAT_TABLE, PREROUTING, 0, "iifname", nic, COUNTER, "return");
  }
  if (config.DropInvalid) {
    rules.append(MANGLE_TABLE, PREROUTING, "meta l4proto tcp", "ct state", "invalid", COUNTER, "jump", ISTIO_DROP);
    rules.append(MANGLE_TABLE, ISTIO_DROP, COUNTER, "drop");
  }

  // The HBONE tunnel port is never captured; the two redirect chains lead to Envoy.
  rules.append(NAT_TABLE, ISTIO_INBOUND, "meta l4proto tcp", "tcp dport", config.InboundTunnelPort, COUNTER, "return");
  rules.append(NAT_TABLE, ISTIO_REDIRECT, "meta l4proto tcp", COUNTER, "redirect to", `:${config.ProxyPort}`);
  rules.append(
    NAT_TABLE,
    ISTIO_IN_REDIRECT,
    "meta l4proto tcp",
    COUNTER,
    "redirect to",
    `:${config.InboundCapturePort}`,
  );

  if (config.InboundPortsInclude !== "") {
    if (tproxy) addInboundTproxy(rules, config);
    else addInboundRedirect(rules, config);
  }

  rules.append(NAT_TABLE, OUTPUT, COUNTER, "jump", ISTIO_OUTPUT);
  addOutput(rules, config, redirectDNS, include.v4.hasLoopBackIP || include.v6.hasLoopBackIP);
  if (redirectDNS) {
    addDnsCapture(rules, {
      proxyUID: config.ProxyUID,
      proxyGID: config.ProxyGID,
      serversV4: config.DNSServersV4,
      serversV6: config.DNSServersV6,
      captureAll: config.CaptureAllDNS,
    });
  }

  // Traffic to localhost (Envoy-aware apps, container to container) stays local.
  rules.append(NAT_TABLE, ISTIO_OUTPUT, "ip daddr", config.HostIPv4LoopbackCidr, COUNTER, "return");
  rules.appendV6(NAT_TABLE, ISTIO_OUTPUT, "ip6 daddr", IPV6_LOOPBACK, COUNTER, "return");
  for (const cidr of exclude.v4.cidrs.map(formatPrefix)) {
    rules.append(NAT_TABLE, ISTIO_OUTPUT, "ip daddr", cidr, COUNTER, "return");
  }
  for (const cidr of exclude.v6.cidrs.map(formatPrefix)) {
    rules.appendV6(NAT_TABLE, ISTIO_OUTPUT, "ip6 daddr", cidr, COUNTER, "return");
  }
  for (const port of splitList(config.OutboundPortsInclude)) {
    rules.append(NAT_TABLE, ISTIO_OUTPUT, "tcp dport", port, COUNTER, "jump", ISTIO_REDIRECT);
  }
  addOutboundInclusions(rules, config, include.v4, include.v6);

  if (tproxy) addTproxyMarking(rules, config);

  return renderTransaction(rules, config.CleanupOnly);
}

/** Interfaces whose traffic is left alone: returns at the top of the base chains. */
function addInterfaceExclusions(rules: NftRuleSet, config: CaptureConfig, tproxy: boolean): void {
  const nics = splitList(config.ExcludeInterfaces);
  const tables: TableName[] = tproxy ? [NAT_TABLE, MANGLE_TABLE] : [NAT_TABLE];
  for (const table of tables) {
    for (const nic of nics) {
      rules.append(table, PREROUTING, "iifname", nic, COUNTER, "return");
      rules.append(table, OUTPUT, "oifname", nic, COUNTER, "return");
    }
  }
}

/** REDIRECT mode: inbound TCP on the included ports (or all but the excluded) goes to Envoy. */
function addInboundRedirect(rules: NftRuleSet, config: CaptureConfig): void {
  rules.append(NAT_TABLE, PREROUTING, "meta l4proto tcp", COUNTER, "jump", ISTIO_INBOUND);
  if (config.InboundPortsInclude === "*") {
    for (const port of splitList(config.InboundPortsExclude)) {
      rules.append(NAT_TABLE, ISTIO_INBOUND, "meta l4proto tcp", "tcp dport", port, COUNTER, "return");
    }
    rules.append(NAT_TABLE, ISTIO_INBOUND, "meta l4proto tcp", COUNTER, "jump", ISTIO_IN_REDIRECT);
    return;
  }
  for (const port of splitList(config.InboundPortsInclude)) {
    rules.append(NAT_TABLE, ISTIO_INBOUND, "meta l4proto tcp", "tcp dport", port, COUNTER, "jump", ISTIO_IN_REDIRECT);
  }
}

/**
 * TPROXY mode: new inbound connections are handed to Envoy's inbound port by `tproxy` with the
 * TPROXY mark set; packets of established ones are marked (`istio-divert`) so that policy routing
 * delivers them locally.
 */
function addInboundTproxy(rules: NftRuleSet, config: CaptureConfig): void {
  const mark = config.InboundTProxyMark;
  const port = `:${config.InboundCapturePort}`;
  rules.append(MANGLE_TABLE, ISTIO_DIVERT, COUNTER, "meta mark set", mark);
  rules.append(MANGLE_TABLE, ISTIO_DIVERT, COUNTER, "accept");
  rules.append(
    MANGLE_TABLE,
    ISTIO_TPROXY,
    "meta l4proto tcp",
    "ip daddr",
    "!=",
    config.HostIPv4LoopbackCidr,
    "tproxy ip to",
    port,
    "meta mark set",
    mark,
    COUNTER,
    "accept",
  );
  rules.appendV6(
    MANGLE_TABLE,
    ISTIO_TPROXY,
    "meta l4proto tcp",
    "ip6 daddr",
    "!=",
    IPV6_LOOPBACK,
    "tproxy ip6 to",
    port,
    "meta mark set",
    mark,
    COUNTER,
    "accept",
  );
  rules.append(MANGLE_TABLE, PREROUTING, "meta l4proto tcp", COUNTER, "jump", ISTIO_INBOUND);

  const established = ["ct state", "related,established"];
  if (config.InboundPortsInclude === "*") {
    for (const excluded of splitList(config.InboundPortsExclude)) {
      rules.append(MANGLE_TABLE, ISTIO_INBOUND, "meta l4proto tcp", "tcp dport", excluded, COUNTER, "return");
    }
    rules.append(MANGLE_TABLE, ISTIO_INBOUND, "meta l4proto tcp", ...established, COUNTER, "jump", ISTIO_DIVERT);
    rules.append(MANGLE_TABLE, ISTIO_INBOUND, "meta l4proto tcp", COUNTER, "jump", ISTIO_TPROXY);
    return;
  }
  for (const included of splitList(config.InboundPortsInclude)) {
    rules.append(
      MANGLE_TABLE,
      ISTIO_INBOUND,
      "meta l4proto tcp",
      ...established,
      "tcp dport",
      included,
      COUNTER,
      "jump",
      ISTIO_DIVERT,
    );
    rules.append(MANGLE_TABLE, ISTIO_INBOUND, "meta l4proto tcp", "tcp dport", included, COUNTER, "jump", ISTIO_TPROXY);
  }
}

/**
 * The head of `istio-output`: excluded ports, the inbound passthrough source, the proxy's own
 * traffic (by uid, then gid), and the owner-group filter.
 */
function addOutput(rules: NftRuleSet, config: CaptureConfig, redirectDNS: boolean, includesLoopback: boolean): void {
  for (const port of splitList(config.OutboundPortsExclude)) {
    rules.append(NAT_TABLE, ISTIO_OUTPUT, "tcp dport", port, COUNTER, "return");
    rules.append(NAT_TABLE, ISTIO_OUTPUT, "udp dport", port, COUNTER, "return");
  }
  // Envoy's inbound passthrough cluster connects to the app from 127.0.0.6 / ::6.
  rules.append(NAT_TABLE, ISTIO_OUTPUT, "oifname", "lo", "ip saddr", INBOUND_PASSTHROUGH_V4, COUNTER, "return");
  rules.appendV6(NAT_TABLE, ISTIO_OUTPUT, "oifname", "lo", "ip6 saddr", INBOUND_PASSTHROUGH_V6, COUNTER, "return");

  const owners: [string, string][] = [
    ...splitList(config.ProxyUID).map((uid): [string, string] => ["skuid", uid]),
    ...splitList(config.ProxyGID).map((gid): [string, string] => ["skgid", gid]),
  ];
  for (const [key, id] of owners) {
    // Only the uid rules leave port 53 to the DNS capture; the gid rules never did.
    const skipPorts = redirectDNS && key === "skuid" ? `{ 53, ${config.InboundTunnelPort} }` : config.InboundTunnelPort;
    // The proxy calling the app's own service address over lo: back through Envoy's inbound side.
    for (const [family, loopback] of [
      ["ip", config.HostIPv4LoopbackCidr],
      ["ip6", IPV6_LOOPBACK],
    ] as const) {
      const words = [
        "oifname",
        "lo",
        "meta l4proto tcp",
        `${family} daddr`,
        "!=",
        loopback,
        "tcp dport",
        "!=",
        skipPorts,
        key,
        id,
        COUNTER,
        "jump",
        ISTIO_IN_REDIRECT,
      ];
      if (family === "ip") rules.append(NAT_TABLE, ISTIO_OUTPUT, ...words);
      else rules.appendV6(NAT_TABLE, ISTIO_OUTPUT, ...words);
    }
    // The app calling itself over lo stays local, unless a loopback range is explicitly captured.
    if (!includesLoopback) {
      const dnsKept = redirectDNS ? ["meta l4proto tcp", "tcp dport", "!=", "53"] : [];
      rules.append(NAT_TABLE, ISTIO_OUTPUT, "oifname", "lo", ...dnsKept, key, "!=", id, COUNTER, "return");
    }
    // Anything else the proxy sends is never captured (no loops).
    rules.append(NAT_TABLE, ISTIO_OUTPUT, key, id, COUNTER, "return");
  }

  const groups = ownerGroupFilter(config.OwnerGroupsInclude, config.OwnerGroupsExclude);
  if (groups.except) {
    for (const group of groups.values) {
      rules.append(NAT_TABLE, ISTIO_OUTPUT, "skgid", group, COUNTER, "return");
    }
  } else {
    const notListed = groups.values.flatMap((group) => ["skgid", "!=", group]);
    rules.append(NAT_TABLE, ISTIO_OUTPUT, ...notListed, COUNTER, "return");
  }
}

/** Outbound destinations to capture: everything (`*`) or the listed CIDRs, also from virtual NICs. */
function addOutboundInclusions(rules: NftRuleSet, config: CaptureConfig, v4: NetworkRange, v6: NetworkRange): void {
  const nics = splitList(config.RerouteVirtualInterfaces);
  if (v4.isWildcard || v6.isWildcard) {
    rules.append(NAT_TABLE, ISTIO_OUTPUT, COUNTER, "jump", ISTIO_REDIRECT);
    for (const nic of nics) rules.insert(NAT_TABLE, PREROUTING, 0, "iifname", nic, COUNTER, "jump", ISTIO_REDIRECT);
    return;
  }
  for (const cidr of v4.cidrs.map(formatPrefix)) {
    for (const nic of nics) {
      rules.insert(NAT_TABLE, PREROUTING, 0, "iifname", nic, "ip daddr", cidr, COUNTER, "jump", ISTIO_REDIRECT);
    }
    rules.append(NAT_TABLE, ISTIO_OUTPUT, "ip daddr", cidr, COUNTER, "jump", ISTIO_REDIRECT);
  }
  for (const cidr of v6.cidrs.map(formatPrefix)) {
    for (const nic of nics) {
      rules.insertV6(NAT_TABLE, PREROUTING, 0, "iifname", nic, "ip6 daddr", cidr, COUNTER, "jump", ISTIO_REDIRECT);
    }
    rules.appendV6(NAT_TABLE, ISTIO_OUTPUT, "ip6 daddr", cidr, COUNTER, "jump", ISTIO_REDIRECT);
  }
}

/**
 * TPROXY mode's marking: the TPROXY mark is kept on the connection, Envoy's connections to the
 * workload's pod address get the outbound mark, and the head of `istio-inbound` lets marked and
 * local traffic through instead of diverting it again.
 */
function addTproxyMarking(rules: NftRuleSet, config: CaptureConfig): void {
  const mark = config.InboundTProxyMark;
  rules.append(MANGLE_TABLE, PREROUTING, "meta l4proto tcp", "mark", mark, COUNTER, "ct mark set mark");
  rules.append(MANGLE_TABLE, OUTPUT, "oifname", "lo", "meta l4proto tcp", "mark", mark, COUNTER, "return");
  const owners = [
    ...splitList(config.ProxyUID).map((uid) => ["skuid", uid]),
    ...splitList(config.ProxyGID).map((gid) => ["skgid", gid]),
  ];
  for (const owner of owners) {
    const lo = ["oifname", "lo", "meta l4proto tcp"];
    const setMark = [COUNTER, "meta mark set", OUTBOUND_MARK];
    rules.append(MANGLE_TABLE, OUTPUT, ...lo, "ip daddr", "!=", config.HostIPv4LoopbackCidr, ...owner, ...setMark);
    rules.appendV6(MANGLE_TABLE, OUTPUT, ...lo, "ip6 daddr", "!=", IPV6_LOOPBACK, ...owner, ...setMark);
  }
  rules.append(MANGLE_TABLE, OUTPUT, "meta l4proto tcp", "ct", "mark", mark, COUNTER, "meta mark set", "ct", "mark");
  rules.insert(MANGLE_TABLE, ISTIO_INBOUND, 0, "meta l4proto tcp", "mark", mark, COUNTER, "return");
  rules.insert(
    MANGLE_TABLE,
    ISTIO_INBOUND,
    1,
    "iifname",
    "lo",
    "meta l4proto tcp",
    "ip saddr",
    INBOUND_PASSTHROUGH_V4,
    COUNTER,
    "return",
  );
  rules.insertV6(
    MANGLE_TABLE,
    ISTIO_INBOUND,
    1,
    "iifname",
    "lo",
    "meta l4proto tcp",
    "ip6 saddr",
    INBOUND_PASSTHROUGH_V6,
    COUNTER,
    "return",
  );
  rules.insert(
    MANGLE_TABLE,
    ISTIO_INBOUND,
    2,
    "iifname",
    "lo",
    "meta l4proto tcp",
    "mark",
    "!=",
    OUTBOUND_MARK,
    COUNTER,
    "return",
  );
}
