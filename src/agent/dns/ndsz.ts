/**
 * The `/debug/ndsz` view of the agent's name table (pilot-agent's `Agent.GetDNSTable`): the table as
 * istiod sent it, plus one entry for every further name the agent answers to (`name.`,
 * `name.namespace.`, …), carrying the host's addresses (IPv4 first) and registry `Kubernetes`.
 */
import { buildAlternateHosts, type DnsScope } from "./alt-hosts.js";
import type { NameInfo, NameTable } from "./name-table.js";

export function ndszView(table: NameTable, scope: DnsScope): NameTable {
  const original = table.table ?? {};
  const out: Record<string, NameInfo> = {};
  for (const [host, info] of Object.entries(original)) out[host] = structuredClone(info);
  for (const { names, v4, v6 } of buildAlternateHosts(table, scope)) {
    for (const name of names) {
      if (Object.hasOwn(out, name)) continue;
      out[name] = { ips: [...v4, ...v6], registry: "Kubernetes" };
    }
  }
  return { table: out };
}
