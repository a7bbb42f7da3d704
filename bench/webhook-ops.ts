/**
 * Two operational properties of the webhook, each measured against the same server with the
 * protection switched off, in the same run (server in a child process, as in webhook-load.ts):
 *
 * (a) burst: `--count` reviews of about 5.6 MB each (a pod with 2,000 annotations of 2,800
 *     characters) sent at once on new connections. The server's peak RSS, sampled every 50 ms, with
 *     the default budget for large bodies (32 MiB) and with the budget off.
 * (b) shutdown: 16 clients on kept-alive connections send reviews one after another; after 1 s the
 *     server is told to shut down (what SIGTERM does). Each client stays on this replica until it
 *     is told to leave (an answer with `connection: close`) or its connection fails, as the API
 *     server moves to another replica once this one has left the Service. The answers and errors
 *     the clients see, with the default drain phase (3 s) and without one: a reset is a review lost
 *     on a connection the server closed under it.
 *
 *   npm run bench:webhook-ops [-- --count 100]
 */

import { readFileSync } from "node:fs";
import { DEFAULT_LIMITS, type Limits } from "../src/webhook/limits.js";
import {
  keepAliveAgent,
  mib,
  ms,
  numberFlag,
  parseFlags,
  printHeader,
  type ServerChild,
  send,
  sleep,
  startChild,
} from "./webhook-harness.js";

const flags = parseFlags({ count: "100" }, "usage: webhook-ops.ts [--count N]");
const COUNT = numberFlag(flags, "count");

const EXAMPLE = JSON.parse(readFileSync(new URL("../examples/admission-review.json", import.meta.url), "utf8")) as {
  request: { object: { metadata: { annotations?: Record<string, string> } } };
};

/** The example review with 2,000 annotations of 2,800 characters: a body of about 5.6 MB. */
function bigReview(): Buffer {
  const review = structuredClone(EXAMPLE);
  const annotations: Record<string, string> = { ...review.request.object.metadata.annotations };
  for (let i = 0; i < 2000; i++) annotations[`example.com/k${i}`] = "x".repeat(2800);
  review.request.object.metadata.annotations = annotations;
  return Buffer.from(JSON.stringify(review));
}

const SMALL = Buffer.from(JSON.stringify(EXAMPLE));

function start(limits: Partial<Limits>): Promise<ServerChild> {
  return startChild({ op: "start", mode: "webhook", options: { limits }, logLevel: "error" });
}

/** A review POST: the status (and whether the server said `connection: close`), or the error code. */
async function post(
  port: number,
  body: Buffer,
  agent: ReturnType<typeof keepAliveAgent> | false,
): Promise<{ outcome: string; leave: boolean }> {
  try {
    const r = await send({
      port,
      body,
      agent,
      headers: { "content-type": "application/json", "content-length": body.length },
      timeoutMs: 60_000,
    });
    return { outcome: String(r.status), leave: r.headers.connection === "close" };
  } catch (e) {
    return { outcome: (e as NodeJS.ErrnoException).code ?? (e as Error).message, leave: true };
  }
}

function tally(outcomes: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[o] = (out[o] ?? 0) + 1;
  return out;
}

async function burst(label: string, maxBufferedBytes: number, body: Buffer) {
  const child = await start({ maxBufferedBytes });
  let peak = (await child.memory(false)).rss;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, (await child.memory(false)).rss);
      await sleep(50);
    }
  })();
  const t0 = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: COUNT }, async () => (await post(child.port, body, false)).outcome),
  );
  const elapsed = performance.now() - t0;
  sampling = false;
  await sampler;
  await child.stop();
  return { label, peak, elapsed, outcomes: tally(outcomes) };
}

async function shutdown(label: string, drainDelayMs: number) {
  const child = await start({ drainDelayMs });
  const agent = keepAliveAgent(16);
  const outcomes: string[] = [];
  let stop = false;
  const client = async () => {
    for (let leave = false; !leave && !stop; ) {
      const answer = await post(child.port, SMALL, agent);
      outcomes.push(answer.outcome);
      leave = answer.leave; // told to go (or failed): the next review goes to another replica
    }
  };
  const clients = Array.from({ length: 16 }, client);
  await sleep(1000);
  const closing = child.stop();
  await sleep(drainDelayMs + 1500);
  stop = true;
  await Promise.all(clients);
  await closing;
  agent.destroy();
  return { label, outcomes: tally(outcomes) };
}

async function main(): Promise<void> {
  printHeader("webhook operations: a burst of huge reviews, and shutdown under load");
  const body = bigReview();

  console.log(`\n(a) ${COUNT} reviews of ${mib(body.length)} MiB at once, each on a new connection`);
  const withBudget = await burst(
    `budget ${mib(DEFAULT_LIMITS.maxBufferedBytes)} MiB (default)`,
    DEFAULT_LIMITS.maxBufferedBytes,
    body,
  );
  const noBudget = await burst("budget off", 2 ** 40, body);
  console.log("server                  peak RSS MiB  total ms  answers");
  for (const r of [withBudget, noBudget]) {
    console.log(
      `${r.label.padEnd(24)}${mib(r.peak).padStart(12)}  ${ms(r.elapsed).padStart(8)}  ${JSON.stringify(r.outcomes)}`,
    );
  }
  const ratio = withBudget.peak / noBudget.peak;
  console.log(`peak RSS with the budget / without: ${ratio.toFixed(2)}`);

  console.log("\n(b) 16 kept-alive clients; the server shuts down after 1 s");
  const drained = await shutdown("drain 3000 ms (serve's default)", 3000);
  const abrupt = await shutdown("drain 0 ms", 0);
  for (const r of [drained, abrupt]) console.log(`${r.label.padEnd(16)}${JSON.stringify(r.outcomes)}`);

  const allAnswered = (o: Record<string, number>) => (o["200"] ?? 0) === COUNT;
  const resets = (o: Record<string, number>) => (o.ECONNRESET ?? 0) + (o.EPIPE ?? 0);
  const pass =
    allAnswered(withBudget.outcomes) && allAnswered(noBudget.outcomes) && ratio < 1 && resets(drained.outcomes) === 0;
  console.log(
    "\ntarget: every huge review answered 200 with and without the budget, a lower peak with it;" +
      " no reset connection when the server drains before closing",
  );
  console.log(pass ? "PASS" : "FAIL");
  if (!pass) process.exitCode = 1;
}

await main();
