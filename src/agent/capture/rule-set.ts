/**
 * Collects iptables rules for IPv4 and IPv6 and renders them as `iptables-restore --noflush`
 * input, the way Istio's rule builder does:
 *
 * - rules keep the order they were added in (an insert is recorded where it was made, as `-I CHAIN
 *   POS ...`, and applied by iptables-restore in that order);
 * - IPv6 rules are only kept when the config enables IPv6;
 * - per table, every non-built-in chain that has rules, then every non-built-in chain that a rule
 *   jumps to (`-j X` as the rule's last two words), is declared with `-N` before the rules;
 * - tables are written in name order, each as `* table`, declarations, rules, `COMMIT`; a table
 *   without lines is left out.
 */

/** Stands for the family's own address in a rule given to `appendVersioned`. */
export const IP_VERSION_SPECIFIC = "\u0000ip-version-specific\u0000";

/** Chains (and targets) iptables has already: never declared with `-N`. */
const BUILT_IN = new Set(["INPUT", "OUTPUT", "FORWARD", "PREROUTING", "POSTROUTING", "ACCEPT", "RETURN", "DROP"]);

/** One rule: the chain and table it goes in, and its words from `-A`/`-I` on. */
export interface Rule {
  chain: string;
  table: string;
  words: string[];
}

export class RuleSet {
  readonly v4: Rule[] = [];
  readonly v6: Rule[] = [];

  /** `ipv6`: whether IPv6 rules are kept (the config's EnableIPv6). */
  constructor(private readonly ipv6: boolean) {}

  appendV4(chain: string, table: string, ...params: string[]): void {
    this.v4.push({ chain, table, words: ["-A", chain, ...params] });
  }

  appendV6(chain: string, table: string, ...params: string[]): void {
    if (this.ipv6) this.v6.push({ chain, table, words: ["-A", chain, ...params] });
  }

  /** Appends to both families. */
  append(chain: string, table: string, ...params: string[]): void {
    this.appendV4(chain, table, ...params);
    this.appendV6(chain, table, ...params);
  }

  insertV4(chain: string, table: string, position: number, ...params: string[]): void {
    this.v4.push({ chain, table, words: ["-I", chain, String(position), ...params] });
  }

  insertV6(chain: string, table: string, position: number, ...params: string[]): void {
    if (this.ipv6) this.v6.push({ chain, table, words: ["-I", chain, String(position), ...params] });
  }

  /** Inserts into both families. */
  insert(chain: string, table: string, position: number, ...params: string[]): void {
    this.insertV4(chain, table, position, ...params);
    this.insertV6(chain, table, position, ...params);
  }

  /** Appends to both families, `IP_VERSION_SPECIFIC` replaced by `v4` or `v6`. */
  appendVersioned(v4: string, v6: string, chain: string, table: string, ...params: string[]): void {
    const fill = (value: string) => params.map((p) => (p === IP_VERSION_SPECIFIC ? value : p));
    this.appendV4(chain, table, ...fill(v4));
    this.appendV6(chain, table, ...fill(v6));
  }

  /** The IPv4 `iptables-restore` input, one entry per line. */
  restoreV4(): string[] {
    return restoreLines(this.v4);
  }

  /** The IPv6 `ip6tables-restore` input (empty when IPv6 is off). */
  restoreV6(): string[] {
    return restoreLines(this.v6);
  }
}

/** Renders rules as `iptables-restore` input lines (see the file comment for the layout). */
export function restoreLines(rules: readonly Rule[]): string[] {
  const tables = new Map<string, string[]>([
    ["filter", []],
    ["nat", []],
    ["mangle", []],
  ]);
  const lines = (table: string): string[] => {
    let list = tables.get(table);
    if (list === undefined) {
      list = [];
      tables.set(table, list);
    }
    return list;
  };
  const declared = new Set<string>();
  const declare = (chain: string, table: string) => {
    const key = `${chain}:${table}`;
    if (declared.has(key)) return;
    declared.add(key);
    if (!BUILT_IN.has(chain)) lines(table).push(`-N ${chain}`);
  };
  for (const r of rules) declare(r.chain, r.table);
  for (const r of rules) {
    const n = r.words.length;
    if (n >= 2 && r.words[n - 2] === "-j") declare(r.words[n - 1] as string, r.table);
  }
  for (const r of rules) lines(r.table).push(r.words.join(" "));

  const out: string[] = [];
  for (const table of [...tables.keys()].sort()) {
    const body = tables.get(table) as string[];
    if (body.length === 0) continue;
    out.push(`* ${table}`, ...body, "COMMIT");
  }
  return out;
}
