/**
 * The host the webhook and the commands give templates (src/template/host.ts): the process
 * environment, the clock, and names resolved through Node's resolver (dns.lookup: /etc/hosts, then
 * DNS, much as Go's resolver does). Resolution is asynchronous, for `Template.executeAsync` and
 * withResolvedNames, src/template/host.ts; IP literals need none. Make one per render or review: resolved names
 * are kept for the host's life.
 */
import type { lookup as dnsLookup } from "node:dns/promises";
import type { isIP as netIsIP } from "node:net";
import { type TemplateHost, templateHost } from "../template/index.js";

// node:net and node:dns/promises are fetched when a name is first looked up, not at import: a
// one-shot command (kube-inject of a pod that resolves no names) would otherwise load both (and the
// stream and socket modules behind them) at its start.
const isIP: typeof netIsIP = (name) => process.getBuiltinModule("node:net").isIP(name);
const lookup = ((name: string, options: { all: true }) =>
  process.getBuiltinModule("node:dns/promises").lookup(name, options)) as typeof dnsLookup;

/** A lookup that takes longer than this counts as a failure (the name resolves to nothing). */
const LOOKUP_TIMEOUT_MS = 10_000;

/** `env` is the environment templates see (`env`, `expandenv`): the process's, or a CLI run's. */
export function processTemplateHost(env: Readonly<Record<string, string | undefined>>): TemplateHost {
  const known = new Map<string, readonly string[]>();
  return templateHost({
    env: (name) => env[name],
    lookupHost: (name) => (isIP(name) !== 0 ? [name] : (known.get(name) ?? [])),
    resolveHost: async (name) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), LOOKUP_TIMEOUT_MS);
      });
      try {
        const found = await Promise.race([lookup(name, { all: true }), timeout]);
        known.set(
          name,
          found.map((a) => a.address),
        );
      } catch {
        known.set(name, []);
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
