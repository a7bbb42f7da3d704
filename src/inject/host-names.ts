/**
 * Host names for the injection templates' `getHostByName`. Templates run synchronously and must not
 * wait on the network (src/template/host.ts), so an injection run with a host that resolves names
 * asynchronously (the webhook's, kube-inject's) goes as `Template.executeAsync` goes for one
 * template, for the whole injection (a review, a YAML stream): run it, with name lookups going to
 * the host; when its templates asked for names the host did not know, have the host resolve them
 * (never blocking the event loop) and run it again, until no new name is asked for.
 */
import type { TemplateHost } from "../template/index.js";

/** The addresses of a host name known now ([] when none are): what `getHostByName` picks from. */
export type HostLookup = (name: string) => readonly string[];

/** How many times the names asked for are resolved and the injection run again. */
const MAX_RESOLVE_ROUNDS = 8;

/**
 * Runs `attempt` (synchronous) with lookups going to `host`; resolves the names it asked for and did
 * not find, and runs it again, until it asks for no name not tried yet. Returns (or throws) what the
 * last run returned (threw). A host without `resolveHost` gets one run.
 */
export async function withResolvedNames<T>(host: TemplateHost, attempt: (lookupHost: HostLookup) => T): Promise<T> {
  const tried = new Set<string>();
  for (let round = 0; ; round++) {
    const missing = new Set<string>();
    const lookupHost: HostLookup = (name) => {
      const found = host.lookupHost(name);
      if (found.length === 0) missing.add(name);
      return found;
    };
    let result: { value: T } | { error: unknown };
    try {
      result = { value: attempt(lookupHost) };
    } catch (error) {
      result = { error };
    }
    const pending = [...missing].filter((name) => !tried.has(name));
    const resolve = host.resolveHost?.bind(host);
    if (pending.length === 0 || resolve === undefined || round >= MAX_RESOLVE_ROUNDS) {
      if ("error" in result) throw result.error;
      return result.value;
    }
    for (const name of pending) tried.add(name);
    await Promise.all(pending.map((name) => resolve(name)));
  }
}

/** `base` with its name lookups replaced by `lookupHost`. */
export function hostWithLookup(base: TemplateHost, lookupHost: HostLookup): TemplateHost {
  return { env: (name) => base.env(name), now: () => base.now(), lookupHost };
}
