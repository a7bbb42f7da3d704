import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type LoopbackServer, serveLoopback } from "../../../test/loopback-server.js";
import { type ProbeEvent, WorkloadHealthChecker } from "./checker.js";
import { ExecProber, HTTPProber, TCPProber } from "./probers.js";

/** Answers with the listed statuses in order, then `then` forever. */
function scripted(statuses: number[], then: number): Promise<LoopbackServer> {
  return serveLoopback((_req, res) => {
    res.writeHead(statuses.shift() ?? then);
    res.end();
  });
}

describe("health probers", () => {
  it("runs commands: exit 0 healthy, else the exit status, killed past the timeout", async () => {
    assert.deepEqual(await new ExecProber({ command: ["true"] }).probe(2000), { result: "HEALTHY" });
    assert.deepEqual(await new ExecProber({ command: ["false"] }).probe(2000), {
      result: "UNHEALTHY",
      error: "exit status 1",
    });
    assert.deepEqual(await new ExecProber({ command: ["sleep", "5"] }).probe(100), {
      result: "UNHEALTHY",
      error: "command timeout exceeded: signal: killed",
    });
  });

  it("counts 2xx and 3xx as healthy over HTTP, and a refused TCP connect as unhealthy", async () => {
    const app = await scripted([204, 302, 404], 200);
    try {
      const p = new HTTPProber({ port: app.port, host: "127.0.0.1", path: "/h" }, "127.0.0.6");
      assert.equal((await p.probe(1000)).result, "HEALTHY");
      assert.equal(
        (await p.probe(1000)).result,
        "HEALTHY",
        "a 3xx (here without Location, so not followed) is healthy",
      );
      assert.deepEqual(await p.probe(1000), {
        result: "UNHEALTHY",
        error: "status code was not from [200,400), bad code 404",
      });
    } finally {
      await app.close();
    }
    const closed = await new TCPProber({ host: "127.0.0.1", port: app.port }).probe(1000);
    assert.equal(closed.result, "UNHEALTHY");
    assert.match(closed.error ?? "", /ECONNREFUSED/);
  });
});

describe("WorkloadHealthChecker", () => {
  it("reports only state changes, after the thresholds", async () => {
    // healthy ×2 (threshold 2) → event; 500 ×1 (threshold 2, not reached); 200; 500 ×2 → event.
    const app = await scripted([200, 200, 500, 200, 500, 500], 200);
    const events: ProbeEvent[] = [];
    const checker = new WorkloadHealthChecker(
      { httpGet: { port: app.port, path: "/x" }, successThreshold: 2, failureThreshold: 2 },
      { proxyAddrs: ["127.0.0.1"], checkFrequencyMs: 1 },
    );
    const stop = checker.start((e) => events.push(e));
    try {
      for (let i = 0; i < 200 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    } finally {
      stop();
      await app.close();
    }
    assert.deepEqual(
      events.map((e) => e.healthy),
      [true, false, true],
    );
    assert.match(events[1].unhealthyMessage ?? "", /bad code 500/);
  });
});
