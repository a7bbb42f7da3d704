/**
 * The names the agent answers for each host of the name table (pilot-agent's `BuildAlternateHosts`):
 * a Kubernetes service in the proxy's own cluster domain also answers as `name.namespace.`,
 * `name.namespace.svc.` (the first label of the domain), its alt hosts, and `name.` when it is in the
 * proxy's namespace; every other host answers only as itself (with a trailing dot).
 */
import { formatAddr, is4, parseAddr } from "../netip.js";
import type { NameInfo, NameTable } from "./name-table.js";

/** Where the proxy lives: its namespace and cluster domain without the namespace (`svc.cluster.local`). */
export interface DnsScope {
  proxyNamespace: string;
  /** `svc.cluster.local` (the proxy domain minus a leading `<namespace>.`). */
  proxyDomain: string;
  proxyDomainParts: string[];
}

/** The scope from `POD_NAMESPACE` and the proxy's DNS domain (`ns1.svc.cluster.local`). */
export function dnsScope(proxyNamespace: string, proxyDomain: string): DnsScope {
  let parts = proxyDomain.split(".");
  if (parts[0] === proxyNamespace) parts = parts.slice(1);
  return { proxyNamespace, proxyDomain: parts.join("."), proxyDomainParts: parts };
}

/** The names (each ending in a dot) a Kubernetes entry answers to. */
export function kubernetesAltHosts(hostname: string, info: NameInfo, scope: DnsScope): Set<string> {
  // A Kubernetes hostname written as a FQDN answers to nothing (Istio's generateAltHosts).
  if (hostname.endsWith(".")) return new Set();
  const out = new Set<string>([`${hostname}.`]);
  // A service of another cluster domain answers only by its full name: `name.namespace` would be ambiguous.
  if (scope.proxyDomain === "" || !hostname.endsWith(scope.proxyDomain)) return out;
  const short = info.shortname ?? "";
  const ns = info.namespace ?? "";
  out.add(`${short}.${ns}.`);
  if (scope.proxyNamespace === ns) out.add(`${short}.`);
  // Only the first label of the domain (usually `svc`): longer variants are rarely asked for.
  out.add(`${short}.${ns}.${scope.proxyDomainParts[0] ?? ""}.`);
  for (const alt of info.altHosts ?? []) out.add(`${alt}.`);
  return out;
}

/** The addresses of an entry split by family, unparsable ones dropped (as netip would). */
export function splitAddresses(ips: readonly string[]): { v4: string[]; v6: string[] } {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const ip of ips) {
    let addr: ReturnType<typeof parseAddr>;
    try {
      addr = parseAddr(ip);
    } catch {
      continue;
    }
    const text = formatAddr({ bytes: addr.bytes });
    if (is4(addr)) v4.push(text);
    else v6.push(text);
  }
  return { v4, v6 };
}

/** One host of the table with every name it answers to. */
export interface HostNames {
  names: Set<string>;
  v4: string[];
  v6: string[];
}

/**
 * Every host with its names and addresses, in table order; hosts without a usable address are left
 * out (the agent skips them as malformed).
 */
export function buildAlternateHosts(table: NameTable, scope: DnsScope): HostNames[] {
  const out: HostNames[] = [];
  for (const [hostname, info] of Object.entries(table.table ?? {})) {
    const names =
      info.registry === "Kubernetes"
        ? kubernetesAltHosts(hostname, info, scope)
        : new Set([hostname.endsWith(".") ? hostname : `${hostname}.`]);
    const { v4, v6 } = splitAddresses(info.ips ?? []);
    if (v4.length === 0 && v6.length === 0) continue;
    out.push({ names, v4, v6 });
  }
  return out;
}
