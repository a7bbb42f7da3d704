// Graceful shutdown over real HTTPS: requests in flight finish, new connections are refused, the wait is bounded.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ClientRequest, IncomingMessage } from "node:http";
import { Agent, request } from "node:https";
import { describe, test } from "node:test";
import { call } from "./https-client.js";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";

const EXAMPLE = readFileSync(new URL("../../examples/admission-review.json", import.meta.url));
const silent = createLogger({ level: "silent" });

/** Starts a POST of the example whose body is sent only up to `sentBytes`; `finish()` sends the rest. */
function partialRequest(server: RunningServer, sentBytes: number) {
  let req!: ClientRequest;
  const response = new Promise<{ res: IncomingMessage; body: string }>((resolve, reject) => {
    req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        method: "POST",
        path: "/inject",
        rejectUnauthorized: false,
        agent: false,
        headers: { "content-type": "application/json", "content-length": EXAMPLE.length },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ res, body }));
      },
    );
    req.on("error", reject);
  });
  req.write(EXAMPLE.subarray(0, sentBytes));
  return { response, finish: () => req.end(EXAMPLE.subarray(sentBytes)) };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("graceful shutdown", () => {
  test("a request in flight is finished; new connections are refused; close() resolves after", async () => {
    const server = await startServer({ port: 0, metricsPort: 0, logger: silent, defaultMetrics: false });
    const inFlight = partialRequest(server, 100);
    await tick(100); // the server has the headers and is reading the body

    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await tick(50);
    await assert.rejects(call({ port: server.port, method: "GET", path: "/healthz" }), /ECONNREFUSED/);
    assert.equal(closed, false, "still waiting for the request in flight");

    inFlight.finish();
    const { res, body } = await inFlight.response;
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.connection, "close");
    const answer = JSON.parse(body);
    assert.equal(answer.response.allowed, true);
    assert.equal(typeof answer.response.patch, "string");
    await closing;
    assert.equal(closed, true);
  });

  test("the wait is bounded: a request that never completes is cut off after shutdownTimeoutMs", async () => {
    const server = await startServer({
      port: 0,
      metricsPort: 0,
      logger: silent,
      defaultMetrics: false,
      limits: { shutdownTimeoutMs: 200 },
    });
    const stuck = partialRequest(server, 100);
    const failed = stuck.response.then(
      () => "answered",
      () => "cut off",
    );
    await tick(100);
    const started = Date.now();
    await server.close();
    const took = Date.now() - started;
    assert.ok(took >= 150 && took < 2000, `close() took ${took} ms`);
    assert.equal(await failed, "cut off");
  });

  test("while draining, a request on a kept-alive connection is answered and told to reconnect", async () => {
    const server = await startServer({
      port: 0,
      metricsPort: 0,
      logger: silent,
      defaultMetrics: false,
      limits: { drainDelayMs: 8_000 },
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await call({ port: server.port, body: EXAMPLE, agent });
      assert.equal(before.status, 200);
      assert.notEqual(before.headers.connection, "close");
      let closed = false;
      const closing = server.close().then(() => {
        closed = true;
      });
      await tick(50);
      // The connection sat idle through SIGTERM: it is still served, then closed by the answer.
      const during = await call({ port: server.port, body: EXAMPLE, agent });
      assert.equal(during.status, 200);
      assert.equal(during.reusedSocket, true, "sent on the kept-alive connection");
      assert.equal(during.headers.connection, "close");
      assert.equal(JSON.parse(during.body).response.allowed, true);
      const ready = await call({ port: server.port, method: "GET", path: "/readyz", agent });
      assert.equal(ready.status, 503, "not ready while draining");
      assert.equal(closed, false, "still draining");
      await closing;
    } finally {
      agent.destroy();
    }
  });

  test("close() is idempotent and stops the metrics port too", async () => {
    const server = await startServer({ port: 0, metricsPort: 0, logger: silent, defaultMetrics: false });
    await Promise.all([server.close(), server.close()]);
    await server.close();
    await assert.rejects(
      new Promise((resolve, reject) => {
        import("node:http").then(({ get }) =>
          get({ host: "127.0.0.1", port: server.metricsPort, path: "/metrics" }, resolve).on("error", reject),
        );
      }),
      /ECONNREFUSED/,
    );
  });
});
