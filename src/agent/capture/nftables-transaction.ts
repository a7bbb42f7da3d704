/**
 * Collecting rules per table and printing them as one nftables transaction, in the text form
 * knftables gives `nft -f`: per table that has any rule, `add table`, `flush table`, the chains that
 * have rules (in declaration order), then the rules in the order they were made.
 */

import { type ChainDeclaration, TABLE_CHAINS, TABLE_ORDER, type TableName } from "./nftables-tables.js";

/** The statement that counts matching packets; every capture rule carries one before its action. */
export const COUNTER = "counter";

interface PendingRule {
  chain: string;
  /** The rule's words joined by single spaces, empty words included (as knftables' `Concat` does). */
  text: string;
  /** Asked-for position in the chain (an insert); absent for an append. */
  index?: number;
}

/** The rules of one capture setup, per table, in the order they were made. */
export class NftRuleSet {
  private readonly rules = new Map<TableName, PendingRule[]>();

  /** @param ipv6 whether the IPv6-only rules (`appendV6`, `insertV6`) are kept. */
  constructor(readonly ipv6: boolean) {}

  append(table: TableName, chain: string, ...words: string[]): void {
    this.add(table, { chain, text: words.join(" ") });
  }

  appendV6(table: TableName, chain: string, ...words: string[]): void {
    if (this.ipv6) this.append(table, chain, ...words);
  }

  insert(table: TableName, chain: string, index: number, ...words: string[]): void {
    this.add(table, { chain, text: words.join(" "), index });
  }

  insertV6(table: TableName, chain: string, index: number, ...words: string[]): void {
    if (this.ipv6) this.insert(table, chain, index, ...words);
  }

  rulesOf(table: TableName): readonly PendingRule[] {
    return this.rules.get(table) ?? [];
  }

  private add(table: TableName, rule: PendingRule): void {
    const list = this.rules.get(table);
    if (list) list.push(rule);
    else this.rules.set(table, [rule]);
  }
}

/**
 * The transaction lines for the rule set. With `cleanupOnly`, each table is instead created (so
 * that deleting cannot fail) and deleted.
 */
export function renderTransaction(ruleSet: NftRuleSet, cleanupOnly = false): string[] {
  const lines: string[] = [];
  for (const table of TABLE_ORDER) {
    if (cleanupOnly) {
      lines.push(`add table inet ${table}`, `delete table inet ${table}`);
      continue;
    }
    const rules = ruleSet.rulesOf(table);
    const used = new Set(rules.map((rule) => rule.chain));
    const chains = TABLE_CHAINS[table].filter((chain) => used.has(chain.name));
    if (chains.length === 0) continue;
    lines.push(`add table inet ${table}`, `flush table inet ${table}`);
    for (const chain of chains) lines.push(chainLine(table, chain));
    // nft refuses an insert at a position the chain does not have yet (including 0 in an empty
    // chain); such an insert would land at the end anyway, so it becomes an append.
    const counts = new Map<string, number>();
    for (const rule of rules) {
      const count = counts.get(rule.chain) ?? 0;
      if (rule.index !== undefined && rule.index < count) {
        lines.push(`insert rule inet ${table} ${rule.chain} index ${rule.index} ${rule.text}`);
      } else {
        lines.push(`add rule inet ${table} ${rule.chain} ${rule.text}`);
      }
      counts.set(rule.chain, count + 1);
    }
  }
  return lines;
}

function chainLine(table: TableName, chain: ChainDeclaration): string {
  const head = `add chain inet ${table} ${chain.name}`;
  if (!chain.hook) return head;
  const { type, hook, priority } = chain.hook;
  return `${head} { type ${type} hook ${hook} priority ${priority} ; }`;
}
