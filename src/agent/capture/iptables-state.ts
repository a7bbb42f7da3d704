/**
 * What istio-iptables needs to reconcile with rules already in place (Istio's
 * tools/istio-iptables/pkg/builder `GetStateFromSave`, `CheckRules`, `UndoRules`,
 * `buildCleanupRules`, the guardrails, and capture/helper.go `VerifyIptablesState`'s comparison):
 * an `iptables-save` dump read into tables and chains, the `iptables -C` commands that check each
 * planned rule, the commands that undo them, and whether a dump differs from the plan. Pure: the
 * caller runs the commands.
 */
import type { Rule } from "./rule-set.js";

/** table → chain → the dump's rule lines (`-A CHAIN ...`); only ISTIO_* chains are kept without rules. */
export type IptablesState = Map<string, Map<string, string[]>>;

/** Chains (and targets) iptables has already: never created, flushed or deleted. */
const BUILT_IN = new Set(["INPUT", "OUTPUT", "FORWARD", "PREROUTING", "POSTROUTING", "ACCEPT", "RETURN", "DROP"]);

const stripQuotes = (s: string) => s.replace(/^['"]+|['"]+$/g, "");

/** GetStateFromSave: the rules and ISTIO_* chains of an `iptables-save` dump (or restore input). */
export function stateFromSave(data: string): IptablesState {
  const state: IptablesState = new Map(["filter", "nat", "mangle", "raw"].map((t) => [t, new Map()]));
  let table = "";
  for (const line of data.split("\n")) {
    if (line.trim() === "" || line.startsWith("#") || line === "COMMIT") continue;
    if (line.startsWith("*")) {
      table = line.slice(1).trim();
      continue;
    }
    const chains = state.get(table);
    if (chains === undefined) continue;
    if (line.startsWith(":")) {
      if (!line.startsWith(":ISTIO")) continue;
      const chain = (line.split(" ")[0] as string).slice(1);
      if (!chains.has(chain)) chains.set(chain, []);
      continue;
    }
    const words = line.split(" ");
    let chain = "";
    let add = false;
    words.forEach((word, i) => {
      const next = words[i + 1];
      if (next === undefined) return;
      if (word === "--append" || word === "-A" || word === "--insert" || word === "-I") {
        add = true;
        chain = stripQuotes(next);
      } else if ((word === "--new" || word === "-N") && stripQuotes(next).startsWith("ISTIO")) {
        chain = stripQuotes(next);
      }
    });
    if (chain === "") continue;
    const rules = chains.get(chain) ?? [];
    chains.set(chain, rules);
    if (add) rules.push(line);
  }
  return state;
}

export function isEmptyState(state: IptablesState): boolean {
  for (const chains of state.values()) if (chains.size > 0) return false;
  return true;
}

/**
 * VerifyIptablesState's comparison of one family's dump with the plan: `delta` true when an
 * expected table or chain is missing, an ISTIO_* chain has a different number of rules, or the dump
 * has an ISTIO_* chain the plan lacks; undefined when they agree so far (then the `-C` checks decide).
 */
export function compareStates(expected: IptablesState, current: IptablesState): { residue: boolean; delta?: boolean } {
  const residue = !isEmptyState(current);
  if (!residue) return { residue, delta: !isEmptyState(expected) };
  for (const [table, chains] of expected) {
    const currentChains = current.get(table);
    if (currentChains === undefined) return { residue, delta: true };
    for (const [chain, rules] of chains) {
      const currentRules = currentChains.get(chain);
      if (currentRules === undefined || (chain.startsWith("ISTIO_") && rules.length !== currentRules.length)) {
        return { residue, delta: true };
      }
    }
  }
  for (const [table, chains] of current) {
    for (const chain of chains.keys()) {
      if (chain.startsWith("ISTIO_") && expected.get(table)?.get(chain) === undefined) return { residue, delta: true };
    }
  }
  return { residue };
}

/** A rule's words with its `-A CHAIN` / `-I CHAIN POS` turned into `op CHAIN` (the position dropped). */
function withOperation(words: readonly string[], op: string): string[] {
  const out: string[] = [];
  let insertAt = -1;
  words.forEach((word, i) => {
    if (insertAt >= 0 && i === insertAt + 2) return;
    if (word === "-A" || word === "--append") out.push(op);
    else if (word === "-I" || word === "--insert") {
      insertAt = i;
      out.push(op);
    } else out.push(word);
  });
  return out;
}

/** CheckRules: `-t TABLE -C CHAIN ...` for each rule. */
export function checkCommands(rules: readonly Rule[]): string[][] {
  return rules.map((r) => ["-t", r.table, ...withOperation(r.words, "-C")]);
}

/**
 * UndoRules: `-D` for each rule, except the rules added to an ISTIO_* chain that do not jump to
 * one (flushing and deleting the chain removes those).
 */
function undoRules(rules: readonly Rule[]): Rule[] {
  const out: Rule[] = [];
  for (const r of rules) {
    let skip = false;
    r.words.forEach((word, i) => {
      const next = r.words[i + 1];
      if (next === undefined) return;
      if ((word === "-A" || word === "--append" || word === "-I" || word === "--insert") && next.startsWith("ISTIO_")) {
        skip = true;
      } else if ((word === "-j" || word === "--jump") && next.startsWith("ISTIO_")) {
        skip = false;
      }
    });
    if (!skip) out.push({ ...r, words: withOperation(r.words, "-D") });
  }
  return out;
}

/** buildCleanupRules: the rules undone in reverse order, then each non-built-in chain flushed and deleted. */
export function cleanupCommands(rules: readonly Rule[]): string[][] {
  const reversed = [...rules].reverse();
  const out = undoRules(reversed).map((r) => ["-t", r.table, ...r.words]);
  const seen = new Set<string>();
  for (const r of reversed) {
    const key = `${r.chain}:${r.table}`;
    if (seen.has(key) || BUILT_IN.has(r.chain)) continue;
    seen.add(key);
    out.push(["-t", r.table, "-F", r.chain], ["-t", r.table, "-X", r.chain]);
  }
  return out;
}

/** buildGuardrails: TCP and UDP dropped in filter's INPUT, FORWARD and OUTPUT while the rules are rebuilt. */
function guardrailRules(): Rule[] {
  const rules: Rule[] = [];
  for (const chain of ["INPUT", "FORWARD", "OUTPUT"]) {
    for (const proto of ["tcp", "udp"]) {
      rules.push({ chain, table: "filter", words: ["-I", chain, "1", "-p", proto, "-j", "DROP"] });
    }
  }
  return rules;
}

export function guardrailCommands(): string[][] {
  return guardrailRules().map((r) => ["-t", r.table, ...r.words]);
}

export function guardrailCleanupCommands(): string[][] {
  return undoRules(guardrailRules()).map((r) => ["-t", r.table, ...r.words]);
}
