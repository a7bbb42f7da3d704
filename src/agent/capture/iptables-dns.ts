/**
 * DNS capture rules: port-53 traffic to pilot-agent's DNS proxy (all of it with CaptureAllDNS,
 * otherwise only to the name servers of /etc/resolv.conf, so that a local forwarder such as
 * dnsmasq cannot loop back into the proxy), and conntrack zones that keep the proxy's upstream
 * queries (zone 1) apart from the application's queries to the proxy (zone 2).
 */
import { type CaptureConfig, DNS_PROXY_PORT, splitList } from "./config.js";
import type { RuleSet } from "./rule-set.js";

/** Adds the DNS rules to the nat and raw tables (called only when DNS is redirected). */
export function addDnsRules(rules: RuleSet, c: CaptureConfig): void {
  const all = c.CaptureAllDNS;
  const v4 = c.DNSServersV4;
  const v6 = c.DNSServersV6;

  // raw has no shared rules, so OUTPUT jumps straight to the DNS chain.
  rules.append("OUTPUT", "raw", "-j", "ISTIO_OUTPUT_DNS");
  // Only jump from nat's ISTIO_OUTPUT in a family that has something to redirect.
  if (all || v4.length > 0) rules.appendV4("ISTIO_OUTPUT", "nat", "-j", "ISTIO_OUTPUT_DNS");
  if (all || v6.length > 0) rules.appendV6("ISTIO_OUTPUT", "nat", "-j", "ISTIO_OUTPUT_DNS");

  const redirect = (protocol: "tcp" | "udp", toPortsFlag: string) => {
    if (all) {
      rules.append(
        "ISTIO_OUTPUT_DNS",
        "nat",
        "-p",
        protocol,
        "--dport",
        "53",
        "-j",
        "REDIRECT",
        toPortsFlag,
        DNS_PROXY_PORT,
      );
      return;
    }
    for (const server of v4) {
      rules.appendV4(
        "ISTIO_OUTPUT_DNS",
        "nat",
        "-p",
        protocol,
        "--dport",
        "53",
        "-d",
        `${server}/32`,
        "-j",
        "REDIRECT",
        toPortsFlag,
        DNS_PROXY_PORT,
      );
    }
    for (const server of v6) {
      rules.appendV6(
        "ISTIO_OUTPUT_DNS",
        "nat",
        "-p",
        protocol,
        "--dport",
        "53",
        "-d",
        `${server}/128`,
        "-j",
        "REDIRECT",
        toPortsFlag,
        DNS_PROXY_PORT,
      );
    }
  };
  // Istio spells the flag differently for the two protocols (iptables accepts both).
  redirect("tcp", "--to-ports");
  redirect("udp", "--to-port");

  addConntrackZones(rules, c);
}

function addConntrackZones(rules: RuleSet, c: CaptureConfig): void {
  const all = c.CaptureAllDNS;
  for (const [match, owners] of [
    ["--uid-owner", splitList(c.ProxyUID)],
    ["--gid-owner", splitList(c.ProxyGID)],
  ] as const) {
    for (const owner of owners) {
      // The proxy's queries to upstream resolvers: zone 1; its answers to applications: zone 2.
      rules.append(
        "ISTIO_OUTPUT_DNS",
        "raw",
        "-p",
        "udp",
        "--dport",
        "53",
        "-m",
        "owner",
        match,
        owner,
        "-j",
        "CT",
        "--zone",
        "1",
      );
      rules.append(
        "ISTIO_OUTPUT_DNS",
        "raw",
        "-p",
        "udp",
        "--sport",
        DNS_PROXY_PORT,
        "-m",
        "owner",
        match,
        owner,
        "-j",
        "CT",
        "--zone",
        "2",
      );
    }
  }

  if (all) {
    rules.append("PREROUTING", "raw", "-j", "ISTIO_INBOUND");
    // Applications' queries: zone 2; resolvers' answers: zone 1.
    rules.append("ISTIO_OUTPUT_DNS", "raw", "-p", "udp", "--dport", "53", "-j", "CT", "--zone", "2");
    rules.append("ISTIO_INBOUND", "raw", "-p", "udp", "--sport", "53", "-j", "CT", "--zone", "1");
    return;
  }
  // The jump from PREROUTING only where a family has servers, so no jump leads to an empty chain.
  if (c.DNSServersV4.length > 0) rules.appendV4("PREROUTING", "raw", "-j", "ISTIO_INBOUND");
  for (const server of c.DNSServersV4) {
    rules.appendV4(
      "ISTIO_OUTPUT_DNS",
      "raw",
      "-p",
      "udp",
      "--dport",
      "53",
      "-d",
      `${server}/32`,
      "-j",
      "CT",
      "--zone",
      "2",
    );
    rules.appendV4(
      "ISTIO_INBOUND",
      "raw",
      "-p",
      "udp",
      "--sport",
      "53",
      "-s",
      `${server}/32`,
      "-j",
      "CT",
      "--zone",
      "1",
    );
  }
  if (c.DNSServersV6.length > 0) rules.appendV6("PREROUTING", "raw", "-j", "ISTIO_INBOUND");
  for (const server of c.DNSServersV6) {
    rules.appendV6(
      "ISTIO_OUTPUT_DNS",
      "raw",
      "-p",
      "udp",
      "--dport",
      "53",
      "-d",
      `${server}/128`,
      "-j",
      "CT",
      "--zone",
      "2",
    );
    rules.appendV6(
      "ISTIO_INBOUND",
      "raw",
      "-p",
      "udp",
      "--sport",
      "53",
      "-s",
      `${server}/128`,
      "-j",
      "CT",
      "--zone",
      "1",
    );
  }
}
