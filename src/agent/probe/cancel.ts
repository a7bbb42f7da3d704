/**
 * The end of whoever asked for a probe — the kubelet's request to the probe proxy closing — so that the
 * probe of the application stops too. A list of callbacks rather than an AbortSignal: one is made per
 * probe, and an AbortController with its EventTarget cost more than the rest of the proxy's own work
 * (bench:agent's profile of the agent's process).
 */
export interface Cancellation {
  readonly cancelled: boolean;
  /** Runs `fn` when cancelled, at once if that has happened. */
  onCancel(fn: () => void): void;
}

export class CancelList implements Cancellation {
  cancelled = false;
  private fns: (() => void)[] = [];

  onCancel(fn: () => void): void {
    if (this.cancelled) fn();
    else this.fns.push(fn);
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    const fns = this.fns;
    this.fns = [];
    for (const f of fns) f();
  }
}
