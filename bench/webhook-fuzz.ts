/**
 * Webhook fuzz run (issue 4 §7c): fast-check-generated requests built from mutated AdmissionReviews
 * (bench/webhook-fuzz-cases.ts: dropped, duplicated and retyped fields, random JSON at random paths,
 * random Istio annotations and probes, envelope variants, deep nesting, truncated and garbage bodies,
 * wrong content-types and methods, chunked bodies, huge bodies under 6 MiB and a few over it). Usage:
 *
 *   npm run bench:webhook-fuzz [-- --count 100000 --concurrency 16 --seed N --max-seconds 1200 --keep]
 *
 * The server runs in a child process (bench/webhook-child.ts, started with --expose-gc); the client
 * sends the cases over HTTPS keep-alive. Every answer must be what the request calls for (see
 * expectedStatus/checkReview): 200 with a well-formed AdmissionReview (uid echoed, allowed a boolean,
 * a denial with a message, a valid base64 JSON patch only when allowed, which applies to the
 * request's object with fast-json-patch, an RFC 6902 implementation independent of ours), or the documented refusal
 * 400/404/405/413/415. A refused body (405, 413, 415) must get its answer too: the server reads and
 * drops the rest (up to 64 MiB / 5 s), so a reset or broken pipe while uploading is a failure.
 * Memory: the server's RSS and heapUsed after a forced GC, after a 2,000-request warm-up (start), at
 * half the count (middle) and at the end; heapUsed must not grow by more than --max-heap-growth
 * percent (default 50) from middle to end. The server must still answer /healthz and inject the
 * example at the end, and log no internal error.
 * Cases come from fast-check with --seed (printed): batch b of 1,000 is fc.sample(fuzzCase, {seed: seed + b}).
 * Failing requests are written to a folder (printed) to replay them.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { call, metricValue, scrapeMetrics } from "../src/webhook/https-client.js";
import { selfSignedCertificate } from "../src/webhook/tls-self-signed.js";
import { printTable } from "./timing.js";
import { checkReview, expectedStatus, type FuzzCase, fuzzCase } from "./webhook-fuzz-cases.js";
import {
  keepAliveAgent,
  mib,
  ms,
  numberFlag,
  parseFlags,
  percentile,
  printHeader,
  runLoad,
  send,
  startChild,
} from "./webhook-harness.js";
import { checkInjected, postHeaders, reviewBody } from "./webhook-review.js";

const USAGE = `usage: node --import tsx bench/webhook-fuzz.ts [--count N] [--concurrency N] [--seed N]
       [--max-seconds S] [--max-heap-growth PERCENT] [--keep]`;
const flags = parseFlags(
  {
    count: "100000",
    concurrency: "16",
    seed: String(Date.now() % 2 ** 31),
    "max-seconds": "1200",
    "max-heap-growth": "50",
    keep: "false",
  },
  USAGE,
  ["keep"],
);
const count = Math.round(numberFlag(flags, "count"));
const concurrency = Math.round(numberFlag(flags, "concurrency"));
const seed = Number(flags.seed);
const maxMs = numberFlag(flags, "max-seconds") * 1000;
const maxHeapGrowth = numberFlag(flags, "max-heap-growth");
const keep = flags.keep === "true";
const BATCH = 1000;
const WARM = Math.min(2000, Math.floor(count / 10));

printHeader("webhook fuzz: mutated AdmissionReviews and bad requests");
console.log(
  `${count} requests at concurrency ${concurrency} (keep-alive), seed ${seed}, at most ${maxMs / 1000} s; ` +
    `server in a child process with --expose-gc`,
);

const dir = mkdtempSync(join(tmpdir(), "meshinject-fuzz-"));
const failDir = join(dir, "failures");
mkdirSync(failDir);
const logFile = join(dir, "server.log");
const tls = selfSignedCertificate({ hosts: ["localhost", "127.0.0.1"] });
const server = await startChild({ op: "start", mode: "webhook", options: { tls }, logLevel: "info" }, logFile);

// --- cases, batch by batch ---
let batchIndex = -1;
let batch: FuzzCase[] = [];
function caseAt(i: number): FuzzCase {
  const b = Math.floor(i / BATCH);
  if (b !== batchIndex) {
    batch = fc.sample(fuzzCase, { seed: seed + b, numRuns: BATCH });
    batchIndex = b;
  }
  return batch[i % BATCH] as FuzzCase;
}

// --- results ---
interface LabelStats {
  requests: number;
  byStatus: Map<string, number>;
  patched: number;
  allowed: number;
  denied: number;
  failed: number;
  totalMs: number;
}
const stats = new Map<string, LabelStats>();
const failures = new Map<string, number>();
let failed = 0;
let dumped = 0;

function statsOf(label: string): LabelStats {
  let s = stats.get(label);
  if (s === undefined) {
    s = { requests: 0, byStatus: new Map(), patched: 0, allowed: 0, denied: 0, failed: 0, totalMs: 0 };
    stats.set(label, s);
  }
  return s;
}

function fail(i: number, c: FuzzCase, body: Buffer, reason: string, answer?: { status: number; body: Buffer }): void {
  failed++;
  statsOf(c.label).failed++;
  const key = reason.replace(/\d+/g, "N").slice(0, 120);
  const n = (failures.get(key) ?? 0) + 1;
  failures.set(key, n);
  if (n <= 3 && dumped < 50) {
    dumped++;
    const name = join(failDir, `case-${i}`);
    writeFileSync(
      `${name}.json`,
      JSON.stringify(
        {
          seed,
          index: i,
          reason,
          label: c.label,
          method: c.method,
          path: c.path,
          contentType: c.contentType ?? null,
          chunked: c.chunked,
          bodyBytes: body.length,
          status: answer?.status,
          answer: answer?.body.toString("utf8", 0, 4000),
        },
        null,
        2,
      ),
    );
    writeFileSync(`${name}.body`, body);
  }
}

const agent = keepAliveAgent(concurrency);

async function one(i: number): Promise<number> {
  const c = caseAt(i);
  const body = c.body();
  const expected = expectedStatus(c, body.length);
  const headers: Record<string, string | number> = {};
  if (c.contentType !== undefined) headers["content-type"] = c.contentType;
  if (c.chunked) headers["transfer-encoding"] = "chunked";
  else headers["content-length"] = body.length;
  const s = statsOf(c.label);
  s.requests++;
  const t0 = performance.now();
  let res: Awaited<ReturnType<typeof send>>;
  try {
    res = await send({ port: server.port, agent, method: c.method, path: c.path, headers, body, timeoutMs: 30_000 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    // Refused bodies (405, 413, 415) are read and dropped by the server before it ends the answer:
    // a reset or broken pipe while uploading one is a failure like any other.
    fail(i, c, body, `transport error (expected ${expected}): ${code} ${(e as Error).message}`);
    s.totalMs += performance.now() - t0;
    return performance.now() - t0;
  }
  s.byStatus.set(String(res.status), (s.byStatus.get(String(res.status)) ?? 0) + 1);
  if (res.status !== expected) {
    fail(i, c, body, `HTTP ${res.status}, expected ${expected}`, res);
  } else if (expected === 200) {
    const type = String(res.headers["content-type"] ?? "");
    const problem = type.startsWith("application/json") ? checkReview(body, res.body) : `content-type ${type}`;
    if (problem !== undefined) fail(i, c, body, problem, res);
    else {
      const r = (JSON.parse(res.body.toString("utf8")) as { response: { allowed: boolean; patch?: string } }).response;
      if (!r.allowed) s.denied++;
      else if (r.patch !== undefined) s.patched++;
      else s.allowed++;
    }
  }
  s.totalMs += res.ms;
  return res.ms;
}

// --- the run: warm-up, start sample, first half, middle sample, second half, end sample ---
const memory: { point: string; requests: number; usage: NodeJS.MemoryUsage }[] = [];
const t0 = performance.now();
let done = 0;
let allLatencies: Float64Array[] = [];
let timedOut = false;
async function segment(until: number): Promise<void> {
  const offset = done;
  const left = maxMs - (performance.now() - t0);
  const run = await runLoad({
    concurrency,
    durationMs: Math.max(0, left),
    maxRequests: until - offset,
    one: (i) => one(offset + i),
  });
  done += run.requests;
  allLatencies.push(run.latencies);
  if (done < until) timedOut = true;
}
const progress = setInterval(() => {
  const s = (performance.now() - t0) / 1000;
  process.stderr.write(
    `  … ${[...stats.values()].reduce((n, x) => n + x.requests, 0)} sent, ${failed} failed, ${s.toFixed(0)} s\n`,
  );
}, 15_000);
try {
  await segment(WARM);
  memory.push({ point: "start", requests: done, usage: await server.memory(true) });
  await segment(Math.floor(count / 2));
  memory.push({ point: "middle", requests: done, usage: await server.memory(true) });
  await segment(count);
  memory.push({ point: "end", requests: done, usage: await server.memory(true) });
} finally {
  clearInterval(progress);
  agent.destroy();
}
const elapsed = (performance.now() - t0) / 1000;

// --- alive at the end? ---
const checks: string[] = [];
const health = await call({ port: server.port, method: "GET", path: "/healthz" }).catch((e: Error) => ({
  status: `error ${e.message}`,
}));
if (health.status !== 200) checks.push(`/healthz at the end: ${health.status}`);
const finalBody = reviewBody("fuzz-final");
const final = await send({ port: server.port, agent: false, headers: postHeaders(finalBody), body: finalBody }).then(
  (r) => checkInjected("fuzz-final", r),
  (e: Error) => ({ problem: e.message }),
);
if ("problem" in final) checks.push(`the example is no longer injected: ${final.problem}`);
const metrics = await scrapeMetrics(server.metricsPort);
const exitedEarly = server.exited();
await server.stop();
if (exitedEarly !== undefined) checks.push(exitedEarly);

// --- report ---
const latencies = new Float64Array(allLatencies.reduce((n, a) => n + a.length, 0));
let at = 0;
for (const a of allLatencies) {
  latencies.set(a, at);
  at += a.length;
}
allLatencies = [];
console.log("");
const rows: string[][] = [
  ["body", "requests", "mean ms", "answers by status", "patched", "allowed", "denied", "failed"],
];
for (const [label, s] of [...stats].sort((a, b) => b[1].requests - a[1].requests)) {
  const statuses = [...s.byStatus]
    .sort()
    .map(([k, v]) => `${k}:${v}`)
    .join(" ");
  rows.push([
    label,
    String(s.requests),
    ms(s.totalMs / s.requests),
    statuses,
    String(s.patched),
    String(s.allowed),
    String(s.denied),
    String(s.failed),
  ]);
}
printTable(rows);
console.log(
  `\n${done} requests in ${elapsed.toFixed(1)} s (${(done / elapsed).toFixed(0)} req/s); latency p50 ${ms(percentile(latencies, 50))} ms, ` +
    `p99 ${ms(percentile(latencies, 99))} ms, max ${ms(percentile(latencies, 100))} ms; ${failed} failed`,
);
const m = (s: string) => metricValue(metrics, s);
const internal = m('sidecar_injection_failure_total{reason="internal_error"}');
console.log(
  `/metrics: requests ${m("sidecar_injection_requests_total")}, success ${m("sidecar_injection_success_total")}, ` +
    `skip ${m("sidecar_injection_skip_total")}, internal_error ${internal}; ` +
    `failure reasons: ${metrics
      .split("\n")
      .filter((l) => l.startsWith("sidecar_injection_failure_total{") && !l.endsWith(" 0"))
      .map((l) => l.replace(/^sidecar_injection_failure_total\{reason="(.*)"\} /, "$1="))
      .join(", ")}`,
);
const logErrors = readFileSync(logFile, "utf8")
  .split("\n")
  .filter((l) => l.includes('"level":"error"'));
if (internal > 0) {
  checks.push(`${internal} internal errors (review() or the server threw), first: ${logErrors[0]?.slice(0, 400)}`);
}
if (logErrors.length > 0 && logErrors.length !== internal)
  checks.push(`${logErrors.length} error lines in the server log, first: ${logErrors[0]?.slice(0, 300)}`);

console.log("");
const memRows: string[][] = [
  ["server memory (after GC)", "requests", "rss MiB", "heapUsed MiB", "heapTotal MiB", "external MiB"],
];
for (const p of memory) {
  memRows.push([
    p.point,
    String(p.requests),
    mib(p.usage.rss),
    mib(p.usage.heapUsed),
    mib(p.usage.heapTotal),
    mib(p.usage.external),
  ]);
}
printTable(memRows);
const middle = memory.find((p) => p.point === "middle")?.usage;
const end = memory.find((p) => p.point === "end")?.usage;
if (middle && end) {
  const heapGrowth = ((end.heapUsed - middle.heapUsed) / middle.heapUsed) * 100;
  const rssGrowth = ((end.rss - middle.rss) / middle.rss) * 100;
  console.log(
    `middle → end: heapUsed ${heapGrowth >= 0 ? "+" : ""}${heapGrowth.toFixed(1)}%, rss ${rssGrowth >= 0 ? "+" : ""}${rssGrowth.toFixed(1)}%`,
  );
  if (heapGrowth > maxHeapGrowth)
    checks.push(`heapUsed grew ${heapGrowth.toFixed(1)}% from middle to end (> ${maxHeapGrowth}%)`);
}
if (timedOut) checks.push(`stopped by --max-seconds after ${done} of ${count} requests`);
if (failed > 0) {
  console.log("\nfailures by reason:");
  for (const [reason, n] of [...failures].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${n}× ${reason}`);
  console.log(`failing requests written to ${failDir}`);
}
console.log(
  `target: every answer well-formed (200 AdmissionReview or the documented 4xx), server alive, heapUsed middle→end ≤ +${maxHeapGrowth}%`,
);
const ok = failed === 0 && checks.length === 0;
if (keep || !ok) console.log(`files and server log in ${dir}`);
else rmSync(dir, { recursive: true, force: true });
if (!ok) {
  console.log(`FAIL\n  ${[...(failed > 0 ? [`${failed} bad answers`] : []), ...checks].join("\n  ")}`);
  process.exit(1);
}
console.log("PASS");
