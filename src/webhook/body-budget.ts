/**
 * A budget for request bodies held in memory at once. Each review's body is read whole before it is
 * parsed, so N clients sending bodies near the size limit at the same moment would hold N × 6 MiB
 * (plus what parsing makes of them) and could push the pod past its memory limit: an OOM-killed
 * webhook blocks pod creation cluster-wide. A request reserves its body's size (declared, or the
 * limit when it is streamed) before reading; when the budget is spent it waits, unread, in arrival
 * order, while ordinary pods (a few KiB each) go on being served. One request larger than the whole
 * budget is still let through when nothing else is held, so the budget never deadlocks.
 */

/** Gives the reserved bytes back (idempotent: safe to call from several clean-up paths). */
export type Release = () => void;

interface Waiter {
  bytes: number;
  grant: (release: Release) => void;
}

export class BodyBudget {
  #held = 0;
  readonly #waiting: Waiter[] = [];

  constructor(readonly capacityBytes: number) {}

  /** Bytes reserved now. */
  get heldBytes(): number {
    return this.#held;
  }

  /** Requests waiting for room. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Reserves `bytes` now if they fit and nobody waits before; else undefined (nothing reserved). */
  tryReserve(bytes: number): Release | undefined {
    if (this.#waiting.length > 0 || (this.#held > 0 && this.#held + bytes > this.capacityBytes)) return undefined;
    return this.#grant(bytes);
  }

  /** Reserves `bytes`; resolves when they fit (at once, if they do now and nobody waits before). */
  reserve(bytes: number): Promise<Release> {
    return new Promise((grant) => {
      this.#waiting.push({ bytes, grant });
      this.#admit();
    });
  }

  /** Grants waiters in order while the first one fits (or nothing at all is held). */
  #admit(): void {
    for (;;) {
      const next = this.#waiting[0];
      if (next === undefined) return;
      if (this.#held > 0 && this.#held + next.bytes > this.capacityBytes) return;
      this.#waiting.shift();
      next.grant(this.#grant(next.bytes));
    }
  }

  #grant(bytes: number): Release {
    this.#held += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= bytes;
      this.#admit();
    };
  }
}
