// The memory budget for large request bodies, over real HTTPS: a large body that does not fit waits
// unread (and is counted in /metrics) until the one holding the room is answered; then it is served.
// Small bodies never wait, even while large ones announced and never sent hold the whole budget.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { after, before, describe, test } from "node:test";
import { metricValue, postReview, scrapeMetrics } from "./https-client.js";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";

const EXAMPLE = readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8");
/** Bodies up to this size are small for the test server; the example is. */
const SMALL = Buffer.byteLength(EXAMPLE) + 100;
/** The example padded (JSON allows trailing spaces) past the small size: a large body. */
const LARGE = EXAMPLE + " ".repeat(SMALL);

/** Polls until `check` is true (generous deadline: the machine may be loaded). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A POST to /inject that declares `declared` bytes and sends `sent` of `body` for now. */
function partialPost(port: number, body: string, declared: number, sent: number) {
  let answer = "";
  let status = 0;
  const req = request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/inject",
    headers: { "content-type": "application/json", "content-length": declared },
    rejectUnauthorized: false,
    servername: "localhost",
  });
  const done = new Promise<void>((resolve) => {
    req.on("error", () => resolve());
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        answer += d;
      });
      res.on("end", resolve);
    });
  });
  req.write(body.slice(0, sent));
  return { req, done, answer: () => answer, status: () => status };
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
      // Room for one large body: a second one waits.
      limits: { maxBufferedBytes: Buffer.byteLength(LARGE) + 10, smallBodyBytes: SMALL, requestTimeoutMs: 60_000 },
    });
  });
  after(() => server.close());

  const waiting = async () => metricValue(await scrapeMetrics(server.metricsPort), "meshinject_request_bodies_waiting");

  test("a second body waits for the first, then both are answered", async () => {
    // The first request declares its length and sends only half its body: it holds the budget.
    const first = partialPost(server.port, LARGE, Buffer.byteLength(LARGE), Math.floor(LARGE.length / 2));
    await new Promise((r) => setTimeout(r, 100)); // let the server reserve the first body
    const second = postReview({ port: server.port, review: LARGE });
    await eventually(async () => (await waiting()) === 1, "the second request to wait");
    first.req.end(LARGE.slice(Math.floor(LARGE.length / 2)));
    await first.done;
    assert.equal(first.status(), 200);
    assert.match(first.answer(), /"allowed":true/);
    const answer = (await second) as { response?: { allowed?: boolean } };
    assert.equal(answer.response?.allowed, true);
    assert.equal(await waiting(), 0);
  });

  test("large bodies announced and never sent hold up no small review, and leave the queue when closed", async () => {
    // One holds the budget, two more queue behind it; none sends a byte of its body.
    const holders = [0, 1, 2].map(() => partialPost(server.port, LARGE, Buffer.byteLength(LARGE), 0));
    await eventually(async () => (await waiting()) === 2, "two large requests to queue");
    // A small review (an ordinary pod, as the API server sends it) is answered meanwhile.
    const answer = (await postReview({ port: server.port, review: EXAMPLE })) as { response?: { allowed?: boolean } };
    assert.equal(answer.response?.allowed, true);
    assert.equal(await waiting(), 2, "the large ones are still queued");
    // The queued ones leave the queue as soon as their clients go.
    for (const h of holders) h.req.destroy();
    await eventually(async () => (await waiting()) === 0, "the queue to empty");
  });
});
