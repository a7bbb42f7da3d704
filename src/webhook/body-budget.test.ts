import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BodyBudget } from "./body-budget.js";

/** Whether a promise has settled after the queued microtasks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
}

describe("BodyBudget", () => {
  it("grants what fits at once and makes the rest wait, in order", async () => {
    const budget = new BodyBudget(10);
    const a = await budget.reserve(6);
    const b = budget.reserve(6);
    const c = budget.reserve(1);
    assert.equal(await settled(b), false);
    assert.equal(await settled(c), false, "a small request does not overtake one waiting before it");
    assert.equal(budget.waiting, 2);
    a();
    assert.equal(await settled(b), true);
    assert.equal(await settled(c), true);
    assert.equal(budget.heldBytes, 7);
  });

  it("lets a request larger than the whole budget through when nothing is held", async () => {
    const budget = new BodyBudget(10);
    const big = await budget.reserve(50);
    const small = budget.reserve(1);
    assert.equal(await settled(small), false);
    big();
    assert.equal(await settled(small), true);
  });

  it("tryReserve takes room only when it fits and nobody waits", async () => {
    const budget = new BodyBudget(10);
    const a = budget.tryReserve(8);
    assert.ok(a);
    assert.equal(budget.tryReserve(4), undefined);
    const waiting = budget.reserve(4);
    a();
    assert.equal(await settled(waiting), true);
    assert.equal(budget.tryReserve(7), undefined, "6 more would not fit beside the 4 held");
    assert.ok(budget.tryReserve(6));
  });

  it("counts a release once, however often it is called", async () => {
    const budget = new BodyBudget(10);
    const a = await budget.reserve(4);
    const b = await budget.reserve(4);
    a();
    a();
    assert.equal(budget.heldBytes, 4);
    b();
    assert.equal(budget.heldBytes, 0);
  });
});
