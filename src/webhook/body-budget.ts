/**
 * A budget for the large request bodies held in memory at once. Each review's body is read whole
 * before it is parsed, so clients sending bodies near the size limit at the same moment would hold
 * N × 6 MiB (plus what parsing makes of them) and could push the pod past its memory limit: an
 * OOM-killed webhook blocks pod creation cluster-wide.
 *
 * Only large bodies take part (the caller decides what is large): an ordinary pod of a few KiB is
 * never queued, so nobody can hold up ordinary reviews by announcing large bodies and sending
 * nothing. A large request reserves its declared size before reading; when the budget is spent it
 * waits, unread, in arrival order, until room is given back or it is cancelled (its client gone).
 * One request larger than the whole budget is let through when nothing else is held, so the
 * budget never deadlocks.
 */

/** Gives the reserved bytes back (idempotent: safe to call from several clean-up paths). */
export type Release = () => void;

/** A queued reservation: `granted` resolves when there is room, or rejects once cancelled. */
export interface Reservation {
  granted: Promise<Release>;
  /** Leaves the queue (no-op once granted: then call the release instead). */
  cancel(reason: Error): void;
}

interface Waiter {
  bytes: number;
  grant: (release: Release) => void;
  refuse: (reason: Error) => void;
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
    if (this.#waiting.length > 0 || !this.#fits(bytes)) return undefined;
    return this.#grant(bytes);
  }

  /** Queues a reservation of `bytes`, granted in arrival order as room is given back. */
  reserve(bytes: number): Reservation {
    let waiter: Waiter | undefined;
    const granted = new Promise<Release>((grant, refuse) => {
      waiter = { bytes, grant, refuse };
    });
    const queued = waiter as Waiter;
    this.#waiting.push(queued);
    this.#admit();
    return {
      granted,
      cancel: (reason) => {
        const at = this.#waiting.indexOf(queued);
        if (at < 0) return;
        this.#waiting.splice(at, 1);
        queued.refuse(reason);
        this.#admit(); // the next one may fit now that the head has gone
      },
    };
  }

  #fits(bytes: number): boolean {
    return this.#held === 0 || this.#held + bytes <= this.capacityBytes;
  }

  /** Grants waiters in order while the first one fits. */
  #admit(): void {
    for (let next = this.#waiting[0]; next !== undefined && this.#fits(next.bytes); next = this.#waiting[0]) {
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
