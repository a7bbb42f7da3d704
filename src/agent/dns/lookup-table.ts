/**
 * The agent's lookup table, built from a name table (pilot-agent's `LookupTable`): every name the
 * proxy answers for, its A and AAAA records, and a CNAME for each name not already ending in the first
 * search domain, followed by it (`productpage.ns1.ns1.svc.cluster.local.` → `productpage.ns1.`), which
 * saves the application's resolver a walk through its search list. Lookups are by lower-case name in
 * miekg/dns's presentation form (escapes kept) ending in a dot.
 */
import { buildAlternateHosts, type DnsScope } from "./alt-hosts.js";
import { splitName } from "./name.js";
import type { NameTable } from "./name-table.js";

/** Clients that honour the TTL come back soon, so they see new addresses quickly. */
export const TABLE_TTL = 30;

export interface TableRecord {
  name: string;
  type: "A" | "AAAA" | "CNAME";
  class: "IN";
  ttl: number;
  /** An address, or the CNAME target (ending in a dot). */
  data: string;
}

export interface LookupTable {
  /** Every known name, including the search-domain CNAME names. */
  allHosts: Set<string>;
  name4: Map<string, TableRecord[]>;
  name6: Map<string, TableRecord[]>;
  cname: Map<string, TableRecord[]>;
}

function records(name: string, type: "A" | "AAAA", ips: string[]): TableRecord[] {
  return ips.map((data) => ({ name, type, class: "IN", ttl: TABLE_TTL, data }));
}

/** Builds the lookup table of a name table for a proxy in `scope` with the resolver's search domains. */
export function buildLookupTable(table: NameTable, scope: DnsScope, searchNamespaces: readonly string[]): LookupTable {
  const out: LookupTable = { allHosts: new Set(), name4: new Map(), name6: new Map(), cname: new Map() };
  const search = searchNamespaces[0];
  for (const { names, v4, v6 } of buildAlternateHosts(table, scope)) {
    for (const raw of names) {
      const h = raw.toLowerCase();
      out.allHosts.add(h);
      if (v4.length > 0) out.name4.set(h, records(h, "A", v4));
      if (v6.length > 0) out.name6.set(h, records(h, "AAAA", v6));
      // Only the first search domain: resolvers walk the list in order, so that is the first query.
      // A name already ending in it gets no second copy of it (`productpage.ns1.svc.cluster.local.`
      // + `ns1.svc.cluster.local` is not in the table, and is forwarded as Istio forwards it).
      if (search === undefined || h.endsWith(`${search}.`)) continue;
      let expanded = (h + search).toLowerCase();
      if (!search.endsWith(".")) expanded += ".";
      // `productpage.` + `ns1.svc.cluster.local` may be one of the host's own names already.
      if (names.has(expanded)) continue;
      out.cname.set(expanded, [{ name: expanded, type: "CNAME", class: "IN", ttl: TABLE_TTL, data: h }]);
      out.allHosts.add(expanded);
    }
  }
  return out;
}

/** What the table says about a name: unknown (forward it), or known with the answers of the asked type. */
export type Lookup = { found: false } | { found: true; answers: TableRecord[] };

/**
 * Looks a lower-case name (ending in a dot) up: the name itself, else the most specific wildcard
 * `*.<suffix>.`; a search-domain name answers with its CNAME and the target's records. Types other
 * than A and AAAA are not answered here.
 */
export function lookupHost(table: LookupTable, qtype: string, hostname: string): Lookup {
  const question = hostname;
  let name = hostname;
  let wildcard = false;
  let found = table.allHosts.has(name);
  if (!found) {
    const labels = splitName(name);
    for (let i = 0; i < labels.length; i++) {
      const candidate = `*.${labels.slice(i + 1).join(".")}.`;
      if (table.allHosts.has(candidate)) {
        found = true;
        wildcard = true;
        name = candidate;
        break;
      }
    }
  }
  if (!found) return { found: false };

  const cnames: TableRecord[] = [];
  for (const cn of table.cname.get(name) ?? []) {
    cnames.push({ ...cn, name: question });
    name = cn.data;
  }
  let ips: TableRecord[];
  if (qtype === "A") ips = table.name4.get(name) ?? [];
  else if (qtype === "AAAA") ips = table.name6.get(name) ?? [];
  else return { found: false };
  if (ips.length === 0) return { found: true, answers: [] };
  // A wildcard's records take the asked name, or after a CNAME the wildcard name it points to.
  const addresses = wildcard ? ips.map((r) => ({ ...r, name: cnames.length > 0 ? name : question })) : ips;
  return { found: true, answers: [...cnames, ...addresses] };
}
