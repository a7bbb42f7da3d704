import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Sandbox } from "./sandbox.js";

describe("Sandbox", () => {
  it("answers requests and survives loops, exceptions and exits", async () => {
    const sandbox = new Sandbox<string, string>(new URL("./testdata/echo-worker.ts", import.meta.url), {
      budgetMs: 500,
    });
    try {
      assert.deepEqual(await sandbox.run("a"), { ok: true, value: "echo a" });
      assert.deepEqual(await sandbox.run("loop"), { ok: false, reason: "timed out after 500 ms" });
      assert.deepEqual(await sandbox.run("b"), { ok: true, value: "echo b" });
      assert.deepEqual(await sandbox.run("throw"), { ok: false, reason: "uncaught exception: Error: boom" });
      assert.deepEqual(await sandbox.run("exit"), { ok: false, reason: "worker exited with code 3" });
      assert.deepEqual(await sandbox.run("c"), { ok: true, value: "echo c" });
    } finally {
      await sandbox.close();
    }
  });

  it("reports a worker that cannot load as fatal", async () => {
    const sandbox = new Sandbox<string, string>(new URL("./testdata/broken-worker.ts", import.meta.url), {
      budgetMs: 500,
    });
    const outcome = await sandbox.run("a");
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.fatal);
    assert.match(!outcome.ok ? outcome.reason : "", /cannot load/);
    await sandbox.close();
  });
});
