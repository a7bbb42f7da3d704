/**
 * What a template execution may learn from outside: environment variables (`env`, `expandenv`), the
 * clock (`now`, `ago`, `date` without a time) and host-name resolution (`getHostByName`). The engine
 * reaches the host only through this object, never through `process` or the network itself: the
 * library passes what its caller gives (nothing set, no names resolve, by default); the webhook and
 * `kube-inject` pass the process environment, as Istio does.
 */
export interface TemplateHost {
  /** An environment variable, or undefined when unset. */
  env(name: string): string | undefined;
  /** The current time, in nanoseconds since the Unix epoch. */
  now(): bigint;
  /**
   * The addresses of a host name that are known now (synchronously; [] when none are). An
   * execution must not wait on the network: a host that can resolve names asynchronously offers
   * {@link resolveHost}, which `Template.executeAsync` uses before it executes again.
   */
  lookupHost(name: string): readonly string[];
  /** Resolves a name for a later {@link lookupHost} (the caller's resolver, e.g. DNS). */
  resolveHost?(name: string): Promise<void>;
}

/** The wall clock through Date and performance (no Node API), in nanoseconds. */
export function wallClockNanos(): bigint {
  const ms = typeof performance === "undefined" ? Date.now() : performance.timeOrigin + performance.now();
  return BigInt(Math.round(ms * 1e6));
}

/** A host built from what the caller gives: unset parts mean no variables and no resolvable names. */
export function templateHost(parts: Partial<TemplateHost> = {}): TemplateHost {
  return {
    env: parts.env ?? (() => undefined),
    now: parts.now ?? wallClockNanos,
    lookupHost: parts.lookupHost ?? (() => []),
    resolveHost: parts.resolveHost,
  };
}

// Resolving names for synchronous runs: a template execution (`Template.executeAsync`) or a whole
// injection made of several executions (a review, a kube-inject document, src/inject) is run with
// name lookups going to the host; when it asked for names the host did not know, the host resolves
// them (never blocking the event loop) and it runs again, until no new name is asked for.

/** The addresses of a host name known now ([] when none are): what `getHostByName` picks from. */
export type HostLookup = (name: string) => readonly string[];

/** How many times the names asked for are resolved and the run made again. */
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
