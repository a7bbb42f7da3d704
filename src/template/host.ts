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
