/**
 * Webhook throughput and latency (issue 4 §7a): the typical pod review (examples/admission-review.json,
 * a fresh uid per request) over HTTPS keep-alive at concurrency 1, 16 and 64, next to a no-op HTTPS
 * server measured in the same run (same certificate, TLS settings and timeouts; it reads the body and
 * answers a fixed 100-byte JSON). Usage:
 *
 *   npm run bench:webhook-load [-- --duration 10 --warmup 2 --levels 1,16,64 --max-p99-ms 250]
 *
 * Topology: each server runs in its own child process (bench/webhook-child.ts) and the closed-loop load
 * generator in this process. On a 2-core machine that gives the server one core and the client the
 * other, as when the API server calls the webhook from another process, and the client's JSON and TLS
 * work is not billed to the server. One keep-alive connection per concurrent request (maxSockets =
 * concurrency), like the API server's connection pool.
 *
 * Per level and server: a warm-up of --warmup seconds and at least --warmup-requests requests (not
 * counted: by count too, so that V8 has optimised the server's code on a slow or busy machine), then
 * --duration seconds counted.
 * Every webhook answer is checked (200, AdmissionReview echoing the uid, allowed, JSONPatch).
 * Exit 1 when a request failed, a keep-alive connection was lost, or the webhook's p99 at some level
 * is over --max-p99-ms (default 250 ms, a fortieth of Istio's 10 s webhook timeoutSeconds).
 *
 * CPU per request (issue 11, target 1): the server child's user + system CPU time over the counted
 * run (process.cpuUsage, asked over IPC before and after) divided by the requests answered; the
 * webhook's figure at the first level is held against 4× the no-op server's in the same run. Then
 * review() in process against the JSON floor of the same review (bench/webhook-review-cpu.ts;
 * `--review-rounds 0` leaves it out). Each target is printed with PASS/FAIL and its ratio.
 */

import { selfSignedCertificate } from "../src/webhook/tls-self-signed.js";
import { printTable } from "./timing.js";
import {
  keepAliveAgent,
  ms,
  numberFlag,
  parseFlags,
  percentile,
  printHeader,
  runLoad,
  type ServerChild,
  send,
  startChild,
} from "./webhook-harness.js";
import { checkInjected, postHeaders, reviewBody } from "./webhook-review.js";
import { printVerdicts, reviewCpuBench, type Verdict } from "./webhook-review-cpu.js";

const USAGE = `usage: node --import tsx bench/webhook-load.ts [--duration S] [--warmup S] [--warmup-requests N] [--levels 1,16,64]
       [--max-p99-ms MS] [--log-level info] [--review-rounds 5]`;
const flags = parseFlags(
  {
    duration: "10",
    warmup: "2",
    "warmup-requests": "2000",
    levels: "1,16,64",
    "max-p99-ms": "250",
    "log-level": "info",
    "review-rounds": "5",
  },
  USAGE,
);
const reviewRounds = Number(flags["review-rounds"]);
const durationMs = numberFlag(flags, "duration") * 1000;
const warmupMs = numberFlag(flags, "warmup") * 1000;
const warmupRequests = numberFlag(flags, "warmup-requests");
const maxP99 = numberFlag(flags, "max-p99-ms");
const levels = flags.levels.split(",").map(Number);
if (levels.some((n) => !Number.isInteger(n) || n < 1 || n > 1024)) {
  console.error(`--levels: integers from 1 to 1024, got ${flags.levels}`);
  process.exit(2);
}
const logLevel = flags["log-level"] as "info";

interface Measured {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  failed: number;
  connections: number;
  /** Server CPU time (user + system) per answered request over the counted run, ms. */
  cpuMs: number;
  firstProblem?: string;
}

/** Warm-up, then one counted run against `server` at `concurrency`. */
async function measure(server: ServerChild, concurrency: number, checkAnswers: boolean): Promise<Measured> {
  const agent = keepAliveAgent(concurrency);
  let failed = 0;
  let connections = 0;
  let firstProblem: string | undefined;
  let counting = false;
  let uidCounter = 0;
  const one = async (): Promise<number> => {
    const uid = `load-${concurrency}-${uidCounter++}`;
    const body = reviewBody(uid);
    const t0 = performance.now();
    try {
      const res = await send({ port: server.port, agent, headers: postHeaders(body), body });
      if (counting && !res.reusedSocket) connections++;
      const verdict = checkAnswers ? checkInjected(uid, res) : res.status === 200 ? undefined : { problem: "" };
      if (verdict !== undefined && "problem" in verdict) {
        failed++;
        firstProblem ??= verdict.problem || `HTTP ${res.status}`;
      }
      return res.ms;
    } catch (e) {
      failed++;
      firstProblem ??= (e as Error).message;
      return performance.now() - t0;
    }
  };
  // The warm-up opens the connections; the counted run must not need new ones (keep-alive held).
  const warm = await runLoad({ concurrency, durationMs: warmupMs, one });
  if (warm.requests < warmupRequests) {
    await runLoad({ concurrency, durationMs: 120_000, maxRequests: warmupRequests - warm.requests, one });
  }
  failed = 0;
  counting = true;
  const cpuBefore = await server.cpuMicros();
  const run = await runLoad({ concurrency, durationMs, one });
  const cpuMicros = (await server.cpuMicros()) - cpuBefore;
  agent.destroy();
  return {
    requests: run.requests,
    rps: run.requests / (run.elapsedMs / 1000),
    p50: percentile(run.latencies, 50),
    p99: percentile(run.latencies, 99),
    max: percentile(run.latencies, 100),
    failed,
    connections,
    cpuMs: cpuMicros / 1000 / Math.max(1, run.requests),
    ...(firstProblem === undefined ? {} : { firstProblem }),
  };
}

printHeader("webhook load: typical pod review over HTTPS keep-alive, next to a no-op HTTPS server");
console.log(
  `levels ${levels.join(", ")}; warm-up ${warmupMs / 1000} s and ${warmupRequests} requests at least + ` +
    `${durationMs / 1000} s counted per level and server; ` +
    `server log level ${logLevel}; servers in child processes, load generator in this process`,
);

const tls = selfSignedCertificate({ hosts: ["localhost", "127.0.0.1"] });
const noop = await startChild({ op: "start", mode: "noop", tls });
const webhook = await startChild({ op: "start", mode: "webhook", options: { tls }, logLevel });
const problems: string[] = [];
const rows: string[][] = [
  ["concurrency", "server", "requests", "req/s", "p50 ms", "p99 ms", "max ms", "CPU ms/req", "failed", "new conns"],
];
const ratios: string[] = [];
const verdicts: Verdict[] = [];
/** The no-op server's CPU per request at each level (ms). */
const noopCpuMs: number[] = [];
try {
  for (const c of levels) {
    const base = await measure(noop, c, false);
    const ours = await measure(webhook, c, true);
    for (const [name, m] of [
      ["no-op HTTPS", base],
      ["webhook", ours],
    ] as const) {
      rows.push([
        String(c),
        name,
        String(m.requests),
        m.rps.toFixed(0),
        ms(m.p50),
        ms(m.p99),
        ms(m.max),
        m.cpuMs.toFixed(3),
        String(m.failed),
        String(m.connections),
      ]);
      if (m.failed > 0) problems.push(`${name} at ${c}: ${m.failed} failed requests, first: ${m.firstProblem}`);
      if (m.connections > 0) problems.push(`${name} at ${c}: ${m.connections} new connections after the warm-up`);
    }
    if (ours.p99 > maxP99) problems.push(`webhook p99 at ${c} is ${ms(ours.p99)} ms > ${maxP99} ms`);
    const cpuRatio = ours.cpuMs / base.cpuMs;
    noopCpuMs.push(base.cpuMs);
    ratios.push(
      `c=${c}: ${(ours.rps / base.rps).toFixed(2)}× the no-op's req/s, p50 +${ms(ours.p50 - base.p50)} ms, ` +
        `${cpuRatio.toFixed(1)}× its CPU per request`,
    );
    if (verdicts.length === 0) {
      verdicts.push({
        target: `webhook server CPU per curl-pod review at c=${c} <= 4x the no-op HTTPS server's (0.35 ms on the issue's machine)`,
        value: `${cpuRatio.toFixed(2)}x (${ours.cpuMs.toFixed(3)} ms vs ${base.cpuMs.toFixed(3)} ms)`,
        pass: cpuRatio <= 4,
      });
    }
  }
} finally {
  await Promise.all([noop.stop(), webhook.stop()]);
}

console.log("");
printTable(rows);
console.log(`\nwebhook vs no-op: ${ratios.join("; ")}`);
console.log(`target: 0 failed, no reconnects, webhook p99 ≤ ${maxP99} ms at every level`);
if (reviewRounds > 0) {
  const review = reviewCpuBench(reviewRounds);
  verdicts.push(...review.verdicts);
  // A lower bound for the server: executing the sidecar template alone, against the no-op's request.
  const noopMs = noopCpuMs[0];
  if (noopMs !== undefined) {
    const templateMs = review.templateNs / 1e6;
    console.log(
      `lower bound: the sidecar template alone costs ${templateMs.toFixed(3)} ms of CPU per curl pod, ` +
        `${(templateMs / noopMs).toFixed(1)}x the no-op server's CPU per request (${noopMs.toFixed(3)} ms)`,
    );
  }
}
console.log("");
if (!printVerdicts(verdicts)) problems.push("a CPU target is not met (FAIL above)");
if (problems.length > 0) {
  console.log(`FAIL\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log("PASS");
