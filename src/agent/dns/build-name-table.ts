/**
 * The name table istiod builds for one proxy (`pkg/dns/server.BuildNameTable`), for a fake istiod and
 * for checking what the agent receives: each visible service's addresses for the proxy's cluster
 * (cluster VIPs, else the default address; one IP family unless the proxy is dual stack; CIDRs left
 * out), or for a headless (`Passthrough`) service the addresses of its ready endpoints on the proxy's
 * network (and cluster, unless multicluster headless is on), plus one `<hostname>.<subdomain>.…`
 * entry per pod that has a hostname and subdomain. Kubernetes entries carry short name and namespace;
 * a Kubernetes service replaces a ServiceEntry of the same host, ServiceEntries merge their addresses.
 */

import { isValidIPAddress } from "../../mesh/validate-net.js";
import { is4, parseAddr, parsePrefix } from "../netip.js";
import type { NameInfo, NameTable } from "./name-table.js";

export interface TableProxy {
  ipAddresses: string[];
  network?: string;
  clusterID?: string;
}

export interface TableService {
  hostname: string;
  /** `0.0.0.0` for headless or unallocated; may be a CIDR. */
  defaultAddress?: string;
  clusterVIPs?: { addresses?: Record<string, string[]> };
  ports?: { name?: string; port: number; protocol?: string }[];
  /** `Passthrough` for headless services and ServiceEntries with resolution NONE. */
  resolution?: string;
  attributes: {
    name?: string;
    namespace?: string;
    serviceRegistry?: string;
    publishNotReadyAddresses?: boolean;
  };
}

export interface TableEndpoint {
  addresses?: string[];
  healthStatus?: string;
  hostName?: string;
  subDomain?: string;
  network?: string;
  locality?: { clusterID?: string };
}

export interface NameTableInput {
  proxy: TableProxy;
  /** In the order the registry lists them. */
  services: TableService[];
  /** `<namespace>/<hostname>` → port → endpoints. */
  endpoints?: Record<string, Record<string, TableEndpoint[]>>;
  multiclusterHeadlessEnabled?: boolean;
  features?: { EnableDualStack?: boolean; EnableAmbient?: boolean };
}

const UNSPECIFIED = "0.0.0.0";
const CLUSTERSET_SUFFIX = ".clusterset.local";

/** The family of an address or CIDR, or undefined when it parses as neither. */
function family(s: string): 4 | 6 | undefined {
  try {
    return is4(s.includes("/") ? parsePrefix(s).addr : parseAddr(s)) ? 4 : 6;
  } catch {
    return undefined;
  }
}

function ipMode(proxy: TableProxy): { v4: boolean; v6: boolean } {
  const fams = proxy.ipAddresses.map(family);
  return { v4: fams.includes(4), v6: fams.includes(6) };
}

/** Keeps the addresses of the families the proxy has (the first address's family when it has both). */
function filterAddresses(addresses: string[], v4: boolean, v6: boolean): string[] {
  if (addresses.length === 0) return [];
  const four = addresses.filter((a) => v4 && family(a) === 4);
  const six = addresses.filter((a) => v6 && family(a) === 6);
  if (v4 && v6) {
    const first = family(addresses[0] as string);
    if (first === 4) return four;
    if (first === 6) return six;
  }
  return four.length > 0 ? four : six;
}

/** The service's addresses as the proxy sees them (`Service.GetAllAddressesForProxy`). */
export function addressesForProxy(svc: TableService, input: NameTableInput): string[] {
  const proxy = input.proxy;
  let addresses: string[] = [];
  if (proxy.clusterID) addresses = [...(svc.clusterVIPs?.addresses?.[proxy.clusterID] ?? [])];
  const mode = ipMode(proxy);
  const dual = mode.v4 && mode.v6;
  if ((!input.features?.EnableDualStack && !input.features?.EnableAmbient) || !dual)
    addresses = filterAddresses(addresses, mode.v4, mode.v6);
  if (addresses.length > 0) return addresses;
  return svc.defaultAddress ? [svc.defaultAddress] : [];
}

/** Empty on either side counts as the same (Go's `identifier.IsSameOrEmpty`). */
const sameOrEmpty = (a: string | undefined, b: string | undefined) => !a || !b || a === b;

function headlessAddresses(svc: TableService, input: NameTableInput, out: Record<string, NameInfo>): string[] {
  const list: string[] = [];
  const local = new Map<string, string[]>();
  const remote = new Map<string, string[]>();
  const meta = new Map<string, { shortname: string; namespace: string }>();
  const seen = new Set<string>();
  const ns = svc.attributes.namespace ?? "";
  const byPort = input.endpoints?.[`${ns}/${svc.hostname}`] ?? {};
  for (const endpoints of Object.values(byPort)) {
    for (const ep of endpoints) {
      const addrs = ep.addresses ?? [];
      if (addrs.length === 0 || !addrs.every(isValidIPAddress)) continue;
      if (!svc.attributes.publishNotReadyAddresses && (ep.healthStatus ?? "Healthy") !== "Healthy") continue;
      // Every port lists the same pod; pod IPs are unique, so the first address identifies it.
      const first = addrs[0] as string;
      if (seen.has(first)) continue;
      seen.add(first);
      const sameNetwork = sameOrEmpty(ep.network, input.proxy.network);
      const sameCluster = sameOrEmpty(ep.locality?.clusterID, input.proxy.clusterID);
      if (ep.subDomain && sameNetwork) {
        const dot = svc.hostname.indexOf(".");
        if (dot >= 0) {
          const shortname = `${ep.hostName ?? ""}.${ep.subDomain}`;
          const host = `${shortname}.${svc.hostname.slice(dot + 1)}`;
          meta.set(host, { shortname, namespace: ns });
          const into = sameCluster ? local : remote;
          into.set(host, [...(into.get(host) ?? []), ...addrs]);
        }
      }
      if ((!input.multiclusterHeadlessEnabled && !sameCluster) || !sameNetwork) continue;
      list.push(...addrs);
    }
  }
  const registry = svc.attributes.serviceRegistry ?? "";
  const entry = (host: string, ips: string[]): NameInfo => {
    const m = meta.get(host);
    return { ips, registry, shortname: m?.shortname, namespace: m?.namespace };
  };
  // A pod in the proxy's own cluster wins over a namesake elsewhere.
  for (const [host, ips] of local) out[host] = entry(host, ips);
  for (const [host, ips] of remote) if (!local.has(host)) out[host] = entry(host, ips);
  return list;
}

function addService(out: Record<string, NameInfo>, svc: TableService, input: NameTableInput): void {
  let addresses: string[] = [];
  let headless = false;
  for (const a of addressesForProxy(svc, input)) {
    if (a === UNSPECIFIED) {
      headless = true;
      break;
    }
    if (isValidIPAddress(a)) addresses.push(a); // CIDRs cannot be DNS answers
  }
  if (headless && svc.resolution === "Passthrough" && (svc.ports ?? []).length > 0)
    addresses = headlessAddresses(svc, input, out);
  if (addresses.length === 0) return;

  const registry = svc.attributes.serviceRegistry ?? "";
  const kube = registry === "Kubernetes" && !svc.hostname.endsWith(CLUSTERSET_SUFFIX);
  const existing = Object.hasOwn(out, svc.hostname) ? out[svc.hostname] : undefined;
  if (!existing) {
    const info: NameInfo = { ips: addresses, registry };
    if (kube) {
      info.namespace = svc.attributes.namespace;
      info.shortname = svc.attributes.name;
    }
    out[svc.hostname] = info;
  } else if (existing.registry !== "Kubernetes") {
    if (registry === "Kubernetes") {
      // The ServiceEntry decorated a Kubernetes service: the service's own addresses win.
      existing.ips = addresses;
      existing.registry = "Kubernetes";
      if (kube) {
        existing.namespace = svc.attributes.namespace;
        existing.shortname = svc.attributes.name;
      }
    } else {
      existing.ips = [...(existing.ips ?? []), ...addresses];
    }
  }
}

/** Drops empty fields, as proto-JSON leaves them out. */
function compact(info: NameInfo): NameInfo {
  const out: NameInfo = {};
  if (info.ips && info.ips.length > 0) out.ips = info.ips;
  if (info.registry) out.registry = info.registry;
  if (info.shortname) out.shortname = info.shortname;
  if (info.namespace) out.namespace = info.namespace;
  if (info.altHosts && info.altHosts.length > 0) out.altHosts = info.altHosts;
  return out;
}

export function buildNameTable(input: NameTableInput): NameTable {
  const out: Record<string, NameInfo> = {};
  for (const svc of input.services) addService(out, svc, input);
  const table: Record<string, NameInfo> = {};
  for (const [host, info] of Object.entries(out)) table[host] = compact(info);
  return { table };
}
