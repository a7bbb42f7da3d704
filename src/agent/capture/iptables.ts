/**
 * The sidecar's traffic capture with iptables: from a CaptureConfig, the rules `istio-iptables`
 * (the `istio-init` container, or the istio-cni plugin in sidecar mode) programs, as
 * `iptables-restore` input for IPv4 and, when EnableIPv6, IPv6. Pure: nothing is run.
 *
 * The chains: ISTIO_INBOUND (inbound traffic, from PREROUTING), ISTIO_IN_REDIRECT (to the inbound
 * capture port), ISTIO_OUTPUT (outbound, from OUTPUT), ISTIO_REDIRECT (to the outbound listener),
 * with TPROXY mode's ISTIO_DIVERT / ISTIO_TPROXY in mangle, DNS capture's ISTIO_OUTPUT_DNS (nat
 * and raw) and DropInvalid's ISTIO_DROP.
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
import { addDnsRules } from "./iptables-dns.js";
import { type NetworkRange, outboundRanges } from "./ranges.js";
import { IP_VERSION_SPECIFIC, RuleSet } from "./rule-set.js";

/** The restore inputs, one entry per line; `v6` is empty unless EnableIPv6. */
export interface IptablesRestore {
  v4: string[];
  v6: string[];
}

/** The `iptables-restore` / `ip6tables-restore` inputs for a config. */
export function iptablesRestore(config: CaptureConfig): IptablesRestore {
  const rules = iptablesRuleSet(config);
  return { v4: rules.restoreV4(), v6: rules.restoreV6() };
}

/**
 * What one `istio-iptables` run hands to the iptables tools, in order, as Istio's recording test
 * stub sees it: the state probe (`iptables-save`, `ip6tables-save`), the IPv4 restore input, the
 * IPv6 restore input (empty without IPv6), then the final state dump (`iptables-save`, and
 * `ip6tables-save` with IPv6). Assumes no earlier Istio rules are in place, so the rules are applied.
 */
export function iptablesRun(config: CaptureConfig): string[] {
  const { v4, v6 } = iptablesRestore(config);
  const finalDump = config.EnableIPv6 ? ["iptables-save", "ip6tables-save"] : ["iptables-save"];
  return ["iptables-save", "ip6tables-save", ...v4, ...v6, ...finalDump];
}

/** Builds every rule of a run (both families) in the order istio-iptables adds them. */
export function iptablesRuleSet(config: CaptureConfig): RuleSet {
  const c = config;
  const tproxy = c.InboundInterceptionMode === "TPROXY";
  const loopbackV4 = c.HostIPv4LoopbackCidr;
  const rules = new RuleSet(c.EnableIPv6);

  // As in istio-iptables, CIDRs that do not parse are skipped (Istio keeps this for compatibility
  // and only logs them); `*` as the exclusion list throws CaptureRangeError.
  const { exclude, include } = outboundRanges(c, { skipInvalid: true });
  const redirectDNS = redirectsDNS(c);

  // Interfaces left alone entirely.
  for (const iface of splitList(c.ExcludeInterfaces)) {
    rules.append("PREROUTING", "nat", "-i", iface, "-j", "RETURN");
    rules.append("OUTPUT", "nat", "-o", iface, "-j", "RETURN");
  }
  if (tproxy) {
    for (const iface of splitList(c.ExcludeInterfaces)) {
      rules.append("PREROUTING", "mangle", "-i", iface, "-j", "RETURN");
      rules.append("OUTPUT", "mangle", "-o", iface, "-j", "RETURN");
    }
  }
  // Virtual-machine interfaces (KubeVirt): not captured as inbound traffic.
  for (const iface of splitList(c.RerouteVirtualInterfaces)) {
    rules.insert("PREROUTING", "nat", 1, "-i", iface, "-j", "RETURN");
  }

  // Drop out-of-window packets instead of letting them reset the connection.
  if (c.DropInvalid) {
    rules.append("PREROUTING", "mangle", "-m", "conntrack", "--ctstate", "INVALID", "-j", "ISTIO_DROP");
    rules.append("ISTIO_DROP", "mangle", "-j", "DROP");
  }

  // The HBONE tunnel port reaches Envoy directly.
  rules.append("ISTIO_INBOUND", "nat", "-p", "tcp", "--dport", c.InboundTunnelPort, "-j", "RETURN");
  rules.append("ISTIO_REDIRECT", "nat", "-p", "tcp", "-j", "REDIRECT", "--to-ports", c.ProxyPort);
  rules.append("ISTIO_IN_REDIRECT", "nat", "-p", "tcp", "-j", "REDIRECT", "--to-ports", c.InboundCapturePort);

  addInboundRules(rules, c);

  // Outbound.
  rules.append("OUTPUT", "nat", "-j", "ISTIO_OUTPUT");
  for (const port of splitList(c.OutboundPortsExclude)) {
    rules.append("ISTIO_OUTPUT", "nat", "-p", "tcp", "--dport", port, "-j", "RETURN");
    rules.append("ISTIO_OUTPUT", "nat", "-p", "udp", "--dport", port, "-j", "RETURN");
  }
  // Envoy's inbound passthrough connects from 127.0.0.6 / ::6: never capture it.
  rules.appendVersioned(
    INBOUND_PASSTHROUGH_V4,
    INBOUND_PASSTHROUGH_V6,
    "ISTIO_OUTPUT",
    "nat",
    "-o",
    "lo",
    "-s",
    IP_VERSION_SPECIFIC,
    "-j",
    "RETURN",
  );
  const loopbackIncluded = include.v4.hasLoopBackIP || include.v6.hasLoopBackIP;
  addProxyOwnerRules(rules, c, "--uid-owner", splitList(c.ProxyUID), redirectDNS, redirectDNS, loopbackIncluded);
  addProxyOwnerRules(rules, c, "--gid-owner", splitList(c.ProxyGID), false, redirectDNS, loopbackIncluded);

  const groups = ownerGroupFilter(c.OwnerGroupsInclude, c.OwnerGroupsExclude);
  if (groups.except) {
    for (const group of groups.values) {
      rules.append("ISTIO_OUTPUT", "nat", "-m", "owner", "--gid-owner", group, "-j", "RETURN");
    }
  } else {
    // Everything not owned by one of the groups returns, in one rule (hence the 64-group limit).
    const noneOf = groups.values.flatMap((group) => ["-m", "owner", "!", "--gid-owner", group]);
    rules.append("ISTIO_OUTPUT", "nat", ...noneOf, "-j", "RETURN");
  }

  if (redirectDNS) addDnsRules(rules, c);

  // Applications talking to localhost (and Envoy-aware ones) are not redirected.
  rules.appendVersioned(loopbackV4, IPV6_LOOPBACK, "ISTIO_OUTPUT", "nat", "-d", IP_VERSION_SPECIFIC, "-j", "RETURN");
  for (const cidr of exclude.v4.cidrs) rules.appendV4("ISTIO_OUTPUT", "nat", "-d", formatPrefix(cidr), "-j", "RETURN");
  for (const cidr of exclude.v6.cidrs) rules.appendV6("ISTIO_OUTPUT", "nat", "-d", formatPrefix(cidr), "-j", "RETURN");

  for (const port of splitList(c.OutboundPortsInclude)) {
    rules.append("ISTIO_OUTPUT", "nat", "-p", "tcp", "--dport", port, "-j", "ISTIO_REDIRECT");
  }
  addOutboundIncludeRules(rules, c, include.v4, "v4");
  addOutboundIncludeRules(rules, c, include.v6, "v6");

  if (tproxy) addTproxyOutputRules(rules, c);
  return rules;
}

/** Inbound capture: which ports go to Envoy, by REDIRECT (nat) or TPROXY (mangle). */
function addInboundRules(rules: RuleSet, c: CaptureConfig): void {
  if (c.InboundPortsInclude === "") return;
  const tproxy = c.InboundInterceptionMode === "TPROXY";
  const table = tproxy ? "mangle" : "nat";
  if (tproxy) {
    // Marked packets are routed to loopback, where the TPROXY rule hands them to Envoy.
    rules.append("ISTIO_DIVERT", "mangle", "-j", "MARK", "--set-mark", c.InboundTProxyMark);
    rules.append("ISTIO_DIVERT", "mangle", "-j", "ACCEPT");
    rules.appendVersioned(
      c.HostIPv4LoopbackCidr,
      IPV6_LOOPBACK,
      "ISTIO_TPROXY",
      "mangle",
      "!",
      "-d",
      IP_VERSION_SPECIFIC,
      "-p",
      "tcp",
      "-j",
      "TPROXY",
      "--tproxy-mark",
      `${c.InboundTProxyMark}/0xffffffff`,
      "--on-port",
      c.InboundCapturePort,
    );
  }
  rules.append("PREROUTING", table, "-p", "tcp", "-j", "ISTIO_INBOUND");

  if (c.InboundPortsInclude === "*") {
    for (const port of splitList(c.InboundPortsExclude)) {
      rules.append("ISTIO_INBOUND", table, "-p", "tcp", "--dport", port, "-j", "RETURN");
    }
    if (tproxy) {
      // Packets of established connections go straight to the socket; new ones through TPROXY.
      rules.append(
        "ISTIO_INBOUND",
        "mangle",
        "-p",
        "tcp",
        "-m",
        "conntrack",
        "--ctstate",
        "RELATED,ESTABLISHED",
        "-j",
        "ISTIO_DIVERT",
      );
      rules.append("ISTIO_INBOUND", "mangle", "-p", "tcp", "-j", "ISTIO_TPROXY");
    } else {
      rules.append("ISTIO_INBOUND", "nat", "-p", "tcp", "-j", "ISTIO_IN_REDIRECT");
    }
    return;
  }
  for (const port of splitList(c.InboundPortsInclude)) {
    if (tproxy) {
      rules.append(
        "ISTIO_INBOUND",
        "mangle",
        "-p",
        "tcp",
        "--dport",
        port,
        "-m",
        "conntrack",
        "--ctstate",
        "RELATED,ESTABLISHED",
        "-j",
        "ISTIO_DIVERT",
      );
      rules.append("ISTIO_INBOUND", "mangle", "-p", "tcp", "--dport", port, "-j", "ISTIO_TPROXY");
    } else {
      rules.append("ISTIO_INBOUND", "nat", "-p", "tcp", "--dport", port, "-j", "ISTIO_IN_REDIRECT");
    }
  }
}

/**
 * The proxy's own traffic, per uid or gid: calls it makes back to the pod over a service VIP on
 * loopback go to the inbound listener (app → Envoy → Envoy → app); other loopback traffic of
 * other owners returns (unless a loopback range is explicitly captured); everything else the
 * proxy sends is never captured. With DNS capture, port 53 is kept out of the first two rules
 * (`skipDnsOnRedirect` applies to uids only, as in Istio).
 */
function addProxyOwnerRules(
  rules: RuleSet,
  c: CaptureConfig,
  match: "--uid-owner" | "--gid-owner",
  owners: string[],
  skipDnsOnRedirect: boolean,
  redirectDNS: boolean,
  loopbackIncluded: boolean,
): void {
  for (const owner of owners) {
    const ports = skipDnsOnRedirect
      ? ["-m", "multiport", "!", "--dports", `53,${c.InboundTunnelPort}`]
      : ["!", "--dport", c.InboundTunnelPort];
    rules.appendVersioned(
      c.HostIPv4LoopbackCidr,
      IPV6_LOOPBACK,
      "ISTIO_OUTPUT",
      "nat",
      "-o",
      "lo",
      "!",
      "-d",
      IP_VERSION_SPECIFIC,
      "-p",
      "tcp",
      ...ports,
      "-m",
      "owner",
      match,
      owner,
      "-j",
      "ISTIO_IN_REDIRECT",
    );
    if (!loopbackIncluded) {
      // A DNS server on localhost may be reached over TCP; that traffic should still be captured.
      const dns = redirectDNS ? ["-p", "tcp", "!", "--dport", "53"] : [];
      rules.append("ISTIO_OUTPUT", "nat", "-o", "lo", ...dns, "-m", "owner", "!", match, owner, "-j", "RETURN");
    }
    rules.append("ISTIO_OUTPUT", "nat", "-m", "owner", match, owner, "-j", "RETURN");
  }
}

/** Outbound destinations captured: all (`*`) or the listed CIDRs, with the virtual interfaces' traffic. */
function addOutboundIncludeRules(rules: RuleSet, c: CaptureConfig, ranges: NetworkRange, family: "v4" | "v6"): void {
  const append = (...params: string[]) =>
    family === "v4"
      ? rules.appendV4("ISTIO_OUTPUT", "nat", ...params)
      : rules.appendV6("ISTIO_OUTPUT", "nat", ...params);
  const insertPrerouting = (...params: string[]) =>
    family === "v4"
      ? rules.insertV4("PREROUTING", "nat", 1, ...params)
      : rules.insertV6("PREROUTING", "nat", 1, ...params);
  const interfaces = splitList(c.RerouteVirtualInterfaces);
  if (ranges.isWildcard) {
    append("-j", "ISTIO_REDIRECT");
    for (const iface of interfaces) insertPrerouting("-i", iface, "-j", "ISTIO_REDIRECT");
    return;
  }
  for (const cidr of ranges.cidrs) {
    const text = formatPrefix(cidr);
    for (const iface of interfaces) insertPrerouting("-i", iface, "-d", text, "-j", "ISTIO_REDIRECT");
    append("-d", text, "-j", "ISTIO_REDIRECT");
  }
}

/** TPROXY mode's marks, so that Envoy's own connections to the app are not captured again. */
function addTproxyOutputRules(rules: RuleSet, c: CaptureConfig): void {
  const mark = c.InboundTProxyMark;
  // Keep the mark original_src set as the connection's mark.
  rules.append("PREROUTING", "mangle", "-p", "tcp", "-m", "mark", "--mark", mark, "-j", "CONNMARK", "--save-mark");
  // Already marked (Envoy → app): leave it.
  rules.append("OUTPUT", "mangle", "-p", "tcp", "-o", "lo", "-m", "mark", "--mark", mark, "-j", "RETURN");
  // Envoy's outbound calls to the app over the pod IP get the outbound mark.
  for (const [match, owners] of [
    ["--uid-owner", splitList(c.ProxyUID)],
    ["--gid-owner", splitList(c.ProxyGID)],
  ] as const) {
    for (const owner of owners) {
      rules.appendVersioned(
        c.HostIPv4LoopbackCidr,
        IPV6_LOOPBACK,
        "OUTPUT",
        "mangle",
        "!",
        "-d",
        IP_VERSION_SPECIFIC,
        "-p",
        "tcp",
        "-o",
        "lo",
        "-m",
        "owner",
        match,
        owner,
        "-j",
        "MARK",
        "--set-mark",
        OUTBOUND_MARK,
      );
    }
  }
  // The workload's packets take the policy route set up for TPROXY.
  rules.append("OUTPUT", "mangle", "-p", "tcp", "-m", "connmark", "--mark", mark, "-j", "CONNMARK", "--restore-mark");
  // At the head of ISTIO_INBOUND: no redirect loops, no capture of Envoy → app over 127.0.0.6 / ::6,
  // nor of app → app over the pod IP.
  rules.insert("ISTIO_INBOUND", "mangle", 1, "-p", "tcp", "-m", "mark", "--mark", mark, "-j", "RETURN");
  rules.insertV4("ISTIO_INBOUND", "mangle", 2, "-p", "tcp", "-s", INBOUND_PASSTHROUGH_V4, "-i", "lo", "-j", "RETURN");
  rules.insertV6("ISTIO_INBOUND", "mangle", 2, "-p", "tcp", "-s", INBOUND_PASSTHROUGH_V6, "-i", "lo", "-j", "RETURN");
  rules.insert(
    "ISTIO_INBOUND",
    "mangle",
    3,
    "-p",
    "tcp",
    "-i",
    "lo",
    "-m",
    "mark",
    "!",
    "--mark",
    OUTBOUND_MARK,
    "-j",
    "RETURN",
  );
}
