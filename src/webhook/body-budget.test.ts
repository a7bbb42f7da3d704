import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BodyBudget, BudgetClosedError } from "./body-budget.js";

/** Whether a promise (or an immediate grant: undefined) has settled after the queued callbacks ran. */
async function settled(p: Promise<unknown> | undefined): Promise<boolean> {
  if (p === undefined) return true;
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe("BodyBudget", () => {
  it("grants what fits at once and makes the rest wait, in order", async () => {
    const budget = new BodyBudget(10);
    const a = budget.open();
    assert.equal(a.take(6), undefined);
    const b = budget.open();
    const c = budget.open();
    const waitB = b.take(6);
    const waitC = c.take(1);
    assert.equal(await settled(waitB), false);
    assert.equal(await settled(waitC), false, "a later reservation does not overtake one waiting before it");
    assert.equal(budget.waiting, 2);
    a.close();
    assert.equal(await settled(waitB), true);
    assert.equal(await settled(waitC), true);
    assert.equal(budget.heldBytes, 7);
  });

  it("holds only what was taken: bodies announced and not sent hold nothing", async () => {
    const budget = new BodyBudget(10);
    const slow = Array.from({ length: 8 }, () => budget.open());
    for (const account of slow) assert.equal(account.take(1), undefined);
    assert.equal(budget.heldBytes, 8);
    const quick = budget.open();
    assert.equal(quick.take(2), undefined, "2 bytes fit beside the 8 the slow ones sent");
    for (const account of [...slow, quick]) account.close();
    assert.equal(budget.heldBytes, 0);
  });

  it("a closed waiter leaves the queue (its wait rejects), so the ones behind it go on", async () => {
    const budget = new BodyBudget(10);
    const a = budget.open();
    a.take(8);
    const gone = budget.open();
    const goneWait = gone.take(8);
    const next = budget.open();
    const nextWait = next.take(2);
    assert.equal(await settled(nextWait), false);
    gone.close();
    await assert.rejects(goneWait as Promise<void>, BudgetClosedError);
    assert.equal(await settled(nextWait), true, "2 bytes fit beside the 8 held once the head is gone");
    assert.equal(budget.waiting, 0);
    a.close();
    next.close();
    assert.equal(budget.heldBytes, 0);
  });

  it("no standstill: when every holder waits, the oldest goes on past the capacity and finishes", async () => {
    const budget = new BodyBudget(10);
    const first = budget.open();
    const second = budget.open();
    first.take(5);
    second.take(5);
    // Both need more, neither can give back: the older one is granted.
    const secondWait = second.take(3);
    const firstWait = first.take(3);
    assert.equal(await settled(firstWait), true, "the oldest account goes on");
    assert.equal(await settled(secondWait), false);
    assert.equal(await settled(first.take(4)), true, "and on, until it is done");
    assert.equal(budget.heldBytes, 17);
    first.close();
    assert.equal(await settled(secondWait), true);
    assert.equal(budget.heldBytes, 8);
    second.close();
  });

  it("lets one body larger than the whole budget through when nothing is held", async () => {
    const budget = new BodyBudget(10);
    const big = budget.open();
    assert.equal(big.take(50), undefined);
    const small = budget.open();
    const wait = small.take(1);
    assert.equal(await settled(wait), false);
    big.close();
    assert.equal(await settled(wait), true);
  });

  it("counts a close once, however often it is called", () => {
    const budget = new BodyBudget(10);
    const a = budget.open();
    const b = budget.open();
    a.take(4);
    b.take(4);
    a.close();
    a.close();
    assert.equal(budget.heldBytes, 4);
    b.close();
    assert.equal(budget.heldBytes, 0);
  });
});
