// The memory budget for request bodies, over real HTTPS. Bytes are reserved as they arrive, past the
// first `smallBodyBytes` of each body: a body that does not fit waits (paused, counted in /metrics)
// until room is given back. Clients that announce large bodies and send slowly hold only what they
// sent, so they cannot starve a legitimate review; a chunked body holds what it actually sends.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { after, before, describe, test } from "node:test";
import { call, metricValue, postReview, scrapeMetrics } from "./https-client.js";
import type { Limits } from "./limits.js";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";

const EXAMPLE = readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8");
const KIB = 1024;
const MIB = 1024 * KIB;
/** The example padded (JSON allows trailing spaces) to `size` bytes. */
const padded = (size: number) => EXAMPLE + " ".repeat(size - Buffer.byteLength(EXAMPLE));

/** Polls until `check` is true (generous deadline: the machine may be loaded). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A POST to /inject that declares `declared` bytes (undefined: chunked) and sends `sent` of `body` for now. */
function partialPost(port: number, body: string, declared: number | undefined, sent: number) {
  let answer = "";
  let status = 0;
  const req = request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/inject",
    headers: { "content-type": "application/json", ...(declared === undefined ? {} : { "content-length": declared }) },
    rejectUnauthorized: false,
    servername: "localhost",
    agent: false,
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

async function start(limits: Partial<Limits>) {
  return startServer({
    port: 0,
    host: "127.0.0.1",
    metricsPort: 0,
    metricsHost: "127.0.0.1",
    logger: createLogger({ level: "silent" }),
    defaultMetrics: false,
    limits,
  });
}

describe("request body budget", () => {
  const SMALL = 16 * KIB;
  const LARGE = padded(SMALL + 64 * KIB);
  let server: RunningServer;
  before(async () => {
    // Room for one large body's bytes past the free part: a second one waits.
    server = await start({ maxBufferedBytes: 64 * KIB + 10, smallBodyBytes: SMALL, requestTimeoutMs: 60_000 });
  });
  after(() => server.close());

  const waiting = async () => metricValue(await scrapeMetrics(server.metricsPort), "meshinject_request_bodies_waiting");

  test("a body that does not fit waits for the one holding the room, then both are answered", async () => {
    // The first sends all but its last bytes and stops: it holds the budget.
    const first = partialPost(server.port, LARGE, Buffer.byteLength(LARGE), LARGE.length - 10);
    await new Promise((r) => setTimeout(r, 200));
    const second = postReview({ port: server.port, review: LARGE });
    await eventually(async () => (await waiting()) === 1, "the second request to wait");
    first.req.end(LARGE.slice(LARGE.length - 10));
    await first.done;
    assert.equal(first.status(), 200);
    assert.match(first.answer(), /"allowed":true/);
    const answer = (await second) as { response?: { allowed?: boolean } };
    assert.equal(answer.response?.allowed, true);
    assert.equal(await waiting(), 0);
  });

  test("a 7 KB chunked review does not wait while a large body holds the budget", { timeout: 30_000 }, async () => {
    const holder = partialPost(server.port, LARGE, Buffer.byteLength(LARGE), LARGE.length - 10);
    try {
      await new Promise((r) => setTimeout(r, 200));
      const chunked = partialPost(server.port, padded(7 * 1000), undefined, 0);
      chunked.req.end(padded(7 * 1000));
      await chunked.done;
      assert.equal(chunked.status(), 200);
      assert.match(chunked.answer(), /"allowed":true/);
      assert.equal(await waiting(), 0);
    } finally {
      holder.req.destroy();
    }
  });
});

describe("slow clients and the body budget (default limits)", () => {
  test("8 clients announcing 6 MiB and sending 1 KiB/s do not hold up a 300 KiB review", {
    timeout: 60_000,
  }, async () => {
    const server = await start({});
    const junk = "x".repeat(KIB);
    const slow = Array.from({ length: 8 }, () => partialPost(server.port, junk, 6 * MIB, KIB));
    const drip = setInterval(() => {
      for (const s of slow) s.req.write(junk);
    }, 1000);
    try {
      await new Promise((r) => setTimeout(r, 500)); // the server has all eight
      const started = Date.now();
      const answer = await call({ port: server.port, body: padded(300 * KIB), timeoutMs: 8_000 });
      const took = Date.now() - started;
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(answer.body).response.allowed, true);
      assert.ok(took < 8_000, `answered after ${took} ms`);
      assert.equal(metricValue(await scrapeMetrics(server.metricsPort), "meshinject_request_bodies_waiting"), 0);
    } finally {
      clearInterval(drip);
      for (const s of slow) s.req.destroy();
      await server.close();
    }
  });
});
