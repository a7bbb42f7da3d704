// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
import assert from "node:assert/strict";
import { test } from "node:test";
import { templateHost } from "../host.js";
import { parse } from "../template.js";
import { sprigFuncs } from "./index.js";

const template = (name: string) => parse("t", `{{ getHostByName ${JSON.stringify(name)} }}`, { funcs: sprigFuncs });
const INTN = /error calling getHostByName: invalid argument to Intn/;

test("answers from the host; a name it does not know fails as Sprig's empty-list rand.Intn panic does", () => {
  const host = templateHost({ lookupHost: (n) => (n === "svc.local" ? ["10.0.0.7"] : []) });
  assert.equal(template("svc.local").execute(null, host), "10.0.0.7");
  assert.throws(() => template("other.local").execute(null, host), INTN);
  // The library's default host resolves nothing.
  assert.throws(() => template("svc.local").execute(null), INTN);
  assert.throws(() => template("").execute(null, host), INTN);
});

// Regression (issue 9): getHostByName blocked the thread (Atomics.wait on a worker) for up to 10 s.
test("executeAsync resolves through the host without blocking the event loop", async () => {
  const known = new Map<string, string[]>();
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  try {
    const host = templateHost({
      lookupHost: (n) => known.get(n) ?? [],
      resolveHost: async (n) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        known.set(n, n === "db.local" ? ["10.0.0.9"] : []);
      },
    });
    const t = parse("t", '{{ getHostByName "db.local" }} {{ getHostByName (printf "%s.local" "db") }}', {
      funcs: sprigFuncs,
    });
    assert.equal(await t.executeAsync(null, host), "10.0.0.9 10.0.0.9");
    assert.ok(ticks > 0, "timers ran while the name was being resolved");
    await assert.rejects(template("nowhere.local").executeAsync(null, host), INTN);
  } finally {
    clearInterval(ticker);
  }
});
