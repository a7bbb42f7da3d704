/**
 * Webhook throughput and latency (issue 4 §7a): the typical pod review (examples/admission-review.json,
 * a fresh uid per request) over HTTPS keep-alive at concurrency 1, 16 and 64, next to a no-op HTTPS
 * server measured in the same run (same certificate, TLS settings and timeouts; it reads the body and
 * answers a fixed 100-byte JSON). Usage:
 *
 *   npm run bench:webhook-load [-- --duration 10 --warmup 2 --levels 1,16,64 --max-p99-ms 250]
 *                               [-- --workers 1,2 --workers-concurrency 16]
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
 *
 * Then `serve --workers N` side by side (issue 11 §2): the real command line with each count of
 * --workers (bench/webhook-workers.ts), all started first, measured in turn at --workers-concurrency
 * (default 16) and once more in the reverse order (1, 2, 2, 1), after a warm-up of --workers-warmup
 * reviews per worker (default 1000, at most 2 minutes: each worker's JIT warms up on its own share
 * of the traffic, so a time-based warm-up would leave more workers colder). Reported: req/s (and of
 * each run), latency, the server's CPU (its aggregated process_cpu_seconds_total: per request, and
 * cores busy) and the load generator's (answers checked for status 200 only, to spare it). The load
 * generator shares the machine: on 2 cores it takes CPU the second worker would use, so the ratio
 * is what this machine shows, not a server's ceiling. --workers 0 skips the comparison.
 */

import { availableParallelism, loadavg } from "node:os";
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
import { type ServeProcess, startServe } from "./webhook-workers.js";

const USAGE = `usage: node --import tsx bench/webhook-load.ts [--duration S] [--warmup S] [--warmup-requests N] [--levels 1,16,64]
       [--max-p99-ms MS] [--log-level info] [--review-rounds 5] [--workers 1,2] [--workers-concurrency 16] [--workers-warmup 1000]`;
const flags = parseFlags(
  {
    duration: "10",
    warmup: "2",
    "warmup-requests": "2000",
    levels: "1,16,64",
    "max-p99-ms": "250",
    "log-level": "info",
    "review-rounds": "5",
    workers: "1,2",
    "workers-concurrency": "16",
    "workers-warmup": "1000",
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
const workerCounts = flags.workers === "0" ? [] : flags.workers.split(",").map(Number);
if (workerCounts.some((n) => !Number.isInteger(n) || n < 1 || n > 64)) {
  console.error(`--workers: integers from 1 to 64 (or 0: no comparison), got ${flags.workers}`);
  process.exit(2);
}
const workersConcurrency = numberFlag(flags, "workers-concurrency");
const workersWarmup = numberFlag(flags, "workers-warmup");

interface Measured {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  failed: number;
  connections: number;
  firstProblem?: string;
  /** Server CPU seconds over the counted run, when the server reports it. */
  cpuSeconds?: number;
  /** The load generator's own CPU seconds over the counted run. */
  clientCpuSeconds: number;
  elapsedMs: number;
}

/** Server CPU time (user + system) per answered request over the counted run, ms (NaN when not reported). */
function cpuMsPerRequest(m: Measured): number {
  return m.cpuSeconds === undefined ? Number.NaN : (m.cpuSeconds * 1000) / Math.max(1, m.requests);
}

/** A server child's CPU time (user + system) in seconds, asked over IPC. */
function childCpuSeconds(server: ServerChild): () => Promise<number> {
  return async () => (await server.cpuMicros()) / 1e6;
}

/** Warm-up, then one counted run against `server` at `concurrency` (and the server's CPU over it, given `cpu`). */
async function measure(
  server: Pick<ServerChild, "port">,
  concurrency: number,
  checkAnswers: boolean,
  cpu?: () => Promise<number>,
): Promise<Measured> {
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
  const cpuBefore = await cpu?.();
  const clientBefore = process.cpuUsage();
  const run = await runLoad({ concurrency, durationMs, one });
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = await cpu?.();
  agent.destroy();
  return {
    requests: run.requests,
    rps: run.requests / (run.elapsedMs / 1000),
    p50: percentile(run.latencies, 50),
    p99: percentile(run.latencies, 99),
    max: percentile(run.latencies, 100),
    failed,
    connections,
    ...(firstProblem === undefined ? {} : { firstProblem }),
    ...(cpuBefore === undefined || cpuAfter === undefined ? {} : { cpuSeconds: cpuAfter - cpuBefore }),
    elapsedMs: run.elapsedMs,
    clientCpuSeconds: (client.user + client.system) / 1e6,
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
    const base = await measure(noop, c, false, childCpuSeconds(noop));
    const ours = await measure(webhook, c, true, childCpuSeconds(webhook));
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
        cpuMsPerRequest(m).toFixed(3),
        String(m.failed),
        String(m.connections),
      ]);
      if (m.failed > 0) problems.push(`${name} at ${c}: ${m.failed} failed requests, first: ${m.firstProblem}`);
      if (m.connections > 0) problems.push(`${name} at ${c}: ${m.connections} new connections after the warm-up`);
    }
    if (ours.p99 > maxP99) problems.push(`webhook p99 at ${c} is ${ms(ours.p99)} ms > ${maxP99} ms`);
    const [oursCpuMs, baseCpuMs] = [cpuMsPerRequest(ours), cpuMsPerRequest(base)];
    const cpuRatio = oursCpuMs / baseCpuMs;
    noopCpuMs.push(baseCpuMs);
    ratios.push(
      `c=${c}: ${(ours.rps / base.rps).toFixed(2)}× the no-op's req/s, p50 +${ms(ours.p50 - base.p50)} ms, ` +
        `${cpuRatio.toFixed(1)}× its CPU per request`,
    );
    if (verdicts.length === 0) {
      verdicts.push({
        target: `webhook server CPU per curl-pod review at c=${c} <= 4x the no-op HTTPS server's (0.35 ms on the issue's machine)`,
        value: `${cpuRatio.toFixed(2)}x (${oursCpuMs.toFixed(3)} ms vs ${baseCpuMs.toFixed(3)} ms)`,
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
if (workerCounts.length > 0) await compareWorkers();
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

/** `serve --workers N` for each count, side by side at one concurrency (see the header). */
async function compareWorkers(): Promise<void> {
  const c = workersConcurrency;
  console.log(
    `\n# serve --workers ${workerCounts.join(" vs ")} at concurrency ${c} (order ${[...workerCounts, ...[...workerCounts].reverse()].join(", ")}; ` +
      `warm-up ${workersWarmup} reviews per worker; the load generator shares the ${availableParallelism()} CPUs; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")})`,
  );
  const servers: ServeProcess[] = [];
  const totals = new Map<number, Measured[]>();
  try {
    for (const n of workerCounts) servers.push(await startServe(n, logLevel));
    for (const server of servers) await warmUp(server, workersWarmup * server.workers, c);
    for (const server of [...servers, ...[...servers].reverse()]) {
      // Answers are checked for status 200 only: the full check (above) costs the load generator,
      // which shares the machine with the workers, more CPU than the answer costs the server.
      const m = await measure(server, c, false, server.cpuSeconds);
      totals.set(server.workers, [...(totals.get(server.workers) ?? []), m]);
      if (m.failed > 0)
        problems.push(`--workers ${server.workers}: ${m.failed} failed requests, first: ${m.firstProblem}`);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  const table = [
    [
      "workers",
      "requests",
      "req/s",
      "req/s by run",
      "p50 ms",
      "p99 ms",
      "server CPU ms/req",
      "server cores busy",
      "load generator cores busy",
    ],
  ];
  const rps = new Map<number, number>();
  for (const [n, runs] of totals) {
    const requests = runs.reduce((sum, m) => sum + m.requests, 0);
    const seconds = runs.reduce((sum, m) => sum + m.elapsedMs, 0) / 1000;
    const cpu = runs.reduce((sum, m) => sum + (m.cpuSeconds ?? 0), 0);
    rps.set(n, requests / seconds);
    table.push([
      String(n),
      String(requests),
      (requests / seconds).toFixed(0),
      runs.map((m) => ((m.requests * 1000) / m.elapsedMs).toFixed(0)).join(" / "),
      ms(Math.max(...runs.map((m) => m.p50))),
      ms(Math.max(...runs.map((m) => m.p99))),
      ((cpu * 1000) / requests).toFixed(3),
      (cpu / seconds).toFixed(2),
      (runs.reduce((sum, m) => sum + m.clientCpuSeconds, 0) / seconds).toFixed(2),
    ]);
  }
  printTable(table);
  const one = rps.get(workerCounts[0] ?? 1) ?? Number.NaN;
  console.log(
    `req/s vs --workers ${workerCounts[0]}: ${[...rps].map(([n, r]) => `${n} workers ${(r / one).toFixed(2)}×`).join(", ")} ` +
      "(p50/p99: the worse of the two runs)",
  );
}

/** `requests` reviews at `concurrency` over keep-alive (at most 2 minutes), answers not checked. */
async function warmUp(server: Pick<ServerChild, "port">, requests: number, concurrency: number): Promise<void> {
  const agent = keepAliveAgent(concurrency);
  await runLoad({
    concurrency,
    durationMs: 120_000,
    maxRequests: requests,
    one: async (i) => {
      const body = reviewBody(`warm-up-${i}`);
      const res = await send({ port: server.port, agent, headers: postHeaders(body), body }).catch(() => undefined);
      return res?.ms ?? 0;
    },
  });
  agent.destroy();
}
