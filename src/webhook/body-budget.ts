/**
 * A budget for the request bodies held in memory at once. Each review's body is read whole before
 * it is parsed, so many clients sending large bodies at the same moment would hold N × 6 MiB (plus
 * what parsing makes of them) and could push the pod past its memory limit: an OOM-killed webhook
 * blocks pod creation cluster-wide.
 *
 * Each request body has an {@link BodyAccount} and reserves bytes AS THEY ARRIVE (the caller leaves
 * the first few hundred KiB of every body outside the budget, so ordinary pods never take part). A
 * body's declared length reserves nothing: a client that announces 6 MiB and sends 1 KiB/s holds
 * 1 KiB/s worth, so slow or silent clients cannot starve the others, and a chunked body holds what
 * it actually sent. When the budget is spent, the next chunk waits (its request paused, unread) in
 * arrival order until room is given back or the account is closed (its client gone).
 *
 * No deadlock: when every account holding bytes is itself waiting, no room would ever come back,
 * so the waiter of the OLDEST account is granted past the capacity. That request then runs to its
 * end (each of its next chunks finds the same situation) and gives everything back; the overshoot
 * is at most one body. Likewise one body larger than the whole budget goes through when nothing
 * else is held.
 */

/** Gives bytes back (idempotent: safe to call from several clean-up paths). */
export type Release = () => void;

/** One request body's share of the budget. */
export interface BodyAccount {
  /** Bytes this body holds now. */
  readonly held: number;
  /**
   * Reserves `bytes` more: at once (undefined), or a promise that resolves when they are granted
   * and rejects if the account is closed first.
   */
  take(bytes: number): Promise<void> | undefined;
  /** Gives back everything held and leaves the queue (idempotent). */
  close(): void;
}

interface Waiter {
  account: AccountState;
  bytes: number;
  grant: () => void;
  refuse: (reason: Error) => void;
}

interface AccountState {
  /** Opening order: the oldest is served first when nothing else can move. */
  seq: number;
  held: number;
  waiter: Waiter | undefined;
  closed: boolean;
}

/** The account was closed while a reservation waited. */
export class BudgetClosedError extends Error {
  override name = "BudgetClosedError";
}

export class BodyBudget {
  #held = 0;
  #seq = 0;
  readonly #waiting: Waiter[] = [];
  /** Accounts holding bytes, and how many of those are waiting for more. */
  #holders = 0;
  #waitingHolders = 0;

  constructor(readonly capacityBytes: number) {}

  /** Bytes reserved now. */
  get heldBytes(): number {
    return this.#held;
  }

  /** Reservations waiting for room. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** An account for one request body. */
  open(): BodyAccount {
    const state: AccountState = { seq: this.#seq++, held: 0, waiter: undefined, closed: false };
    return {
      get held() {
        return state.held;
      },
      take: (bytes) => this.#take(state, bytes),
      close: () => this.#close(state),
    };
  }

  #take(state: AccountState, bytes: number): Promise<void> | undefined {
    if (state.closed) return Promise.reject(new BudgetClosedError("the request body's account is closed"));
    if (state.waiter !== undefined) throw new Error("BodyAccount.take: the previous reservation still waits");
    if (bytes <= 0) return undefined;
    if (this.#waiting.length === 0 && this.#fits(bytes)) {
      this.#add(state, bytes);
      return undefined;
    }
    const granted = new Promise<void>((grant, refuse) => {
      const waiter: Waiter = { account: state, bytes, grant, refuse };
      state.waiter = waiter;
      if (state.held > 0) this.#waitingHolders++;
      this.#waiting.push(waiter);
    });
    this.#admit();
    return granted;
  }

  #close(state: AccountState): void {
    if (state.closed) return;
    state.closed = true;
    const waiter = state.waiter;
    if (waiter !== undefined) {
      this.#unwait(waiter);
      this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
      waiter.refuse(new BudgetClosedError("the request body's account was closed while it waited"));
    }
    if (state.held > 0) {
      this.#held -= state.held;
      state.held = 0;
      this.#holders--;
    }
    this.#admit();
  }

  #fits(bytes: number): boolean {
    return this.#held === 0 || this.#held + bytes <= this.capacityBytes;
  }

  #add(state: AccountState, bytes: number): void {
    if (state.held === 0) this.#holders++;
    state.held += bytes;
    this.#held += bytes;
  }

  /** Takes a waiter out of the waiting counts (not out of the queue). */
  #unwait(waiter: Waiter): void {
    waiter.account.waiter = undefined;
    if (waiter.account.held > 0) this.#waitingHolders--;
  }

  /** Grants waiters in order while the first one fits; breaks a standstill (see the file comment). */
  #admit(): void {
    for (;;) {
      const head = this.#waiting[0];
      if (head === undefined) return;
      let next: Waiter;
      if (this.#fits(head.bytes)) {
        next = head;
      } else if (this.#holders > 0 && this.#waitingHolders === this.#holders) {
        next = this.#waiting.reduce((a, b) => (b.account.seq < a.account.seq ? b : a));
      } else {
        return;
      }
      this.#waiting.splice(this.#waiting.indexOf(next), 1);
      this.#unwait(next);
      this.#add(next.account, next.bytes);
      next.grant();
    }
  }
}
