import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BodyBudget } from "./body-budget.js";

/** Whether a promise has settled after the queued callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
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
    const a = await budget.reserve(6).granted;
    const b = budget.reserve(6).granted;
    const c = budget.reserve(1).granted;
    assert.equal(await settled(b), false);
    assert.equal(await settled(c), false, "a later reservation does not overtake one waiting before it");
    assert.equal(budget.waiting, 2);
    a();
    assert.equal(await settled(b), true);
    assert.equal(await settled(c), true);
    assert.equal(budget.heldBytes, 7);
  });

  it("drops a cancelled waiter from the queue, so the ones behind it go on", async () => {
    const budget = new BodyBudget(10);
    const a = await budget.reserve(8).granted;
    const gone = budget.reserve(8);
    const next = budget.reserve(2).granted;
    assert.equal(await settled(next), false);
    gone.cancel(new Error("client closed"));
    await assert.rejects(gone.granted, /client closed/);
    assert.equal(await settled(next), true, "2 bytes fit beside the 8 held once the head is gone");
    assert.equal(budget.waiting, 0);
    a();
  });

  it("lets a request larger than the whole budget through when nothing is held", async () => {
    const budget = new BodyBudget(10);
    const big = await budget.reserve(50).granted;
    const small = budget.reserve(1).granted;
    assert.equal(await settled(small), false);
    big();
    assert.equal(await settled(small), true);
  });

  it("tryReserve takes room only when it fits and nobody waits", async () => {
    const budget = new BodyBudget(10);
    const a = budget.tryReserve(8);
    assert.ok(a);
    assert.equal(budget.tryReserve(4), undefined);
    const waiting = budget.reserve(4).granted;
    a();
    assert.equal(await settled(waiting), true);
    assert.equal(budget.tryReserve(7), undefined, "7 more would not fit beside the 4 held");
    assert.ok(budget.tryReserve(6));
  });

  it("counts a release once, however often it is called", async () => {
    const budget = new BodyBudget(10);
    const a = await budget.reserve(4).granted;
    const b = await budget.reserve(4).granted;
    a();
    a();
    assert.equal(budget.heldBytes, 4);
    b();
    assert.equal(budget.heldBytes, 0);
  });
});
