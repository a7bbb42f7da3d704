// The memory budget for request bodies, over real HTTPS: a body that does not fit waits unread
// (and is counted in /metrics) until the one holding the room is answered; then it is served.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { after, before, describe, test } from "node:test";
import { metricValue, postReview, scrapeMetrics } from "./https-client.js";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";

const EXAMPLE = readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8");

/** Polls until `check` is true (generous deadline: the machine may be loaded). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("request body budget", () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({
      port: 0,
      host: "127.0.0.1",
      metricsPort: 0,
      metricsHost: "127.0.0.1",
      logger: createLogger({ level: "silent" }),
      // Room for one example body: a second one waits while the first is held.
      limits: { maxBufferedBytes: Buffer.byteLength(EXAMPLE) + 10 },
    });
  });
  after(() => server.close());

  const waiting = async () => metricValue(await scrapeMetrics(server.metricsPort), "meshinject_request_bodies_waiting");

  test("a second body waits for the first, then both are answered", async () => {
    // The first request declares its length and sends only half its body: it holds the budget.
    const half = Math.floor(EXAMPLE.length / 2);
    let firstAnswer = "";
    let firstStatus = 0;
    const req = request({
      host: "127.0.0.1",
      port: server.port,
      method: "POST",
      path: "/inject",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(EXAMPLE) },
      rejectUnauthorized: false,
      servername: "localhost",
    });
    const first = new Promise<void>((resolve, reject) => {
      req.on("error", reject);
      req.on("response", (res) => {
        firstStatus = res.statusCode ?? 0;
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          firstAnswer += d;
        });
        res.on("end", resolve);
      });
    });
    req.write(EXAMPLE.slice(0, half));
    await new Promise((r) => setTimeout(r, 100)); // let the server reserve the first body
    const second = postReview({ port: server.port, review: EXAMPLE });
    await eventually(async () => (await waiting()) === 1, "the second request to wait");
    req.end(EXAMPLE.slice(half));
    await first;
    assert.equal(firstStatus, 200);
    assert.match(firstAnswer, /"allowed":true/);
    const answer = (await second) as { response?: { allowed?: boolean } };
    assert.equal(answer.response?.allowed, true);
    assert.equal(await waiting(), 0);
  });
});
