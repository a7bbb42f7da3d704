/**
 * The host a command gives templates (src/template/host.ts): the run's environment, the clock, and
 * names resolved through Node's resolver (dns.lookup: /etc/hosts, then DNS, much as Go's resolver
 * does). Resolution is asynchronous, for `Template.executeAsync`; IP literals need none.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { type TemplateHost, templateHost } from "../template/index.js";
import type { CliIo } from "./io.js";

/** A lookup that takes longer than this counts as a failure (the name resolves to nothing). */
const LOOKUP_TIMEOUT_MS = 10_000;

export function processTemplateHost(env: CliIo["env"]): TemplateHost {
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
