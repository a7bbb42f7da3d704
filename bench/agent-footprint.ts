/**
 * `npm run --silent bench:agent-footprint` (issue 25): the agent's cost per pod, measured as an
 * operator would, each figure beside its baseline taken in the same run. The agent runs exactly as the
 * proxy image runs it (deploy/proxy/pilot-agent over the built dist/, see ./agent-pod.ts) in a scratch
 * root with a fake CA, a fake istiod and the fake Envoy, with DNS capture, the SDS server and the XDS
 * proxy up and Envoy's ADS and SDS streams open. Memory is /proc/PID/status (VmRSS, VmHWM). The
 * baseline is a bare Node HTTP server started through the same wrapper (the same node command line).
 *
 *   1. start-to-ready: spawn to the first 200 of /healthz/ready (Envoy ready as soon as it listens),
 *      against spawn to the first 200 of the bare server, and spawn to the first 200 of the fake
 *      Envoy's /ready alone (what Envoy takes); rounds interleaved, medians.
 *      Target: agent ≤ 2 × bare + Envoy.
 *   2. idle RSS after --idle-seconds (60). Target: ≤ 50 MiB and ≤ 1.25 × the bare server.
 *   3. RSS under --rate (200) probe requests/s for --load-seconds (60), each a kubelet-like GET on a
 *      new connection to the rewritten readiness probe (the bare server gets the same load).
 *      Target: the highest sample ≤ 70 MiB.
 *   4. soak for --soak-seconds (600): a new pod with certificates of --cert-ttl-seconds (30: the agent
 *      rotates at half of that) and istiod (its CA and ADS server) stopped for 2 s and started again
 *      every --restart-seconds (60). After a warm-up (the first fifth), "no growth" is: the median RSS of
 *      the last quarter minus the median of the quarter after the warm-up ≤ 2 MiB, and the same for the
 *      heap in use after collections: the lowest `istio_agent_nodejs_heap_size_used_bytes` of the
 *      agent's /stats/prometheus (scraped every 15 s, as Prometheus would) in each of those quarters,
 *      ≤ 1 MiB apart. (A heap snapshot would give the live heap exactly, but taking one triples the
 *      agent's RSS for the rest of its life.) The least-squares RSS slope after the warm-up is printed too.
 *      --soak-seconds 0 skips it.
 *
 * Prints progress while it runs and PASS/FAIL per target; exits 1 on any FAIL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { get } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../test/loopback.js";
import {
  type AgentPod,
  childPath,
  connectEnvoy,
  endChild,
  Mesh,
  repoRoot,
  startAgentPod,
  tracked,
} from "./agent-pod.js";
import { cpuSeconds, medianOf, readMemory, slope } from "./proc-memory.js";
import { printTable } from "./timing.js";

const { values } = parseArgs({
  options: {
    "startup-rounds": { type: "string", default: "7" },
    "idle-seconds": { type: "string", default: "60" },
    "load-seconds": { type: "string", default: "60" },
    rate: { type: "string", default: "200" },
    "soak-seconds": { type: "string", default: "600" },
    "cert-ttl-seconds": { type: "string", default: "30" },
    "restart-seconds": { type: "string", default: "60" },
    "sample-seconds": { type: "string", default: "5" },
  },
});
function positive(name: keyof typeof values, zeroOk = false): number {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0 || (!zeroOk && n === 0)) throw new Error(`--${name} wants a positive number`);
  return n;
}
const startupRounds = positive("startup-rounds");
const idleSeconds = positive("idle-seconds");
const loadSeconds = positive("load-seconds");
const rate = positive("rate");
const soakSeconds = positive("soak-seconds", true);
const certTtlSeconds = positive("cert-ttl-seconds");
const restartSeconds = positive("restart-seconds");
const sampleSeconds = positive("sample-seconds");

const TARGET = { idleMiB: 50, idleRatio: 1.25, loadMiB: 70, startupRatio: 2, soakRssMiB: 2, soakHeapMiB: 1 };

const started = Date.now();
const say = (line: string) =>
  console.log(
    `[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s, load ${loadavg()[0]?.toFixed(2)}] ${line}`,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (n: number) => `${n.toFixed(1)} MiB`;

/** GET on a new connection: the status, or 0 when refused or timed out. */
function status(port: number, path: string, timeoutMs = 2000): Promise<number> {
  return new Promise((resolve) => {
    const req = get({ host: "127.0.0.1", port, path, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}

/** GET's body as a Buffer (the heap snapshot). */
function body(port: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${path}: ${res.statusCode}`)),
      );
    }).on("error", reject);
  });
}

/** Polls GET until it answers 200; the milliseconds since `t0`. */
async function until200(port: number, path: string, t0: number, what: string, child: ChildProcess): Promise<number> {
  const deadline = t0 + 60_000;
  for (;;) {
    if ((await status(port, path, 1000)) === 200) return performance.now() - t0;
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (performance.now() > deadline) throw new Error(`${what}: no 200 on ${path} within 60 s`);
    await sleep(5);
  }
}

/** The bare Node HTTP server through the same wrapper, listening on `port`. */
function startBare(mesh: Mesh, port: number): ChildProcess {
  return tracked(spawn(mesh.baselineWrapper(), [String(port)], { env: { PATH: childPath() }, stdio: "ignore" }));
}

/** The fake Envoy alone, started as the agent starts it, its admin on `port`. */
function startEnvoyAlone(mesh: Mesh, port: number): ChildProcess {
  const bootstrap = join(mesh.dir, `envoy-${port}.json`);
  writeFileSync(
    bootstrap,
    JSON.stringify({ admin: { address: { socket_address: { address: "127.0.0.1", port_value: port } } } }),
  );
  return tracked(
    spawn(join(repoRoot, "src/agent/envoy/testdata/fake-envoy.mjs"), ["-c", bootstrap], {
      env: { PATH: childPath(), FAKE_ENVOY_READY: "true" },
      stdio: "ignore",
    }),
  );
}

interface Verdict {
  target: string;
  agent: string;
  baseline: string;
  ok: boolean;
}
const verdicts: Verdict[] = [];

async function startupPhase(mesh: Mesh): Promise<void> {
  say(`start-to-ready: ${startupRounds} rounds after 1 warm-up round (bare server, fake Envoy alone, agent)`);
  const times = { bare: [] as number[], envoy: [] as number[], agent: [] as number[] };
  const cases: Record<keyof typeof times, () => Promise<number>> = {
    bare: async () => {
      const port = await freePort();
      const t0 = performance.now();
      const child = startBare(mesh, port);
      try {
        return await until200(port, "/", t0, "the bare server", child);
      } finally {
        await endChild(child);
      }
    },
    envoy: async () => {
      const port = await freePort();
      const t0 = performance.now();
      const child = startEnvoyAlone(mesh, port);
      try {
        return await until200(port, "/ready", t0, "the fake Envoy", child);
      } finally {
        await endChild(child);
      }
    },
    agent: async () => {
      const t0 = performance.now();
      const pod = await startAgentPod(mesh, `startup-${Math.random().toString(36).slice(2, 8)}`);
      try {
        void connectEnvoy(pod).catch(() => {});
        return await until200(pod.statusPort, "/healthz/ready", t0, "the agent", pod.child).catch((e) => {
          throw new Error(`${(e as Error).message}\n${pod.output()}`);
        });
      } finally {
        await pod.stop();
      }
    },
  };
  const order = Object.keys(cases) as (keyof typeof times)[];
  for (let round = 0; round <= startupRounds; round++) {
    const line: string[] = [];
    for (let k = 0; k < order.length; k++) {
      const name = order[(round + k) % order.length] as keyof typeof times;
      const ms = await cases[name]();
      if (round > 0) times[name].push(ms);
      line.push(`${name} ${ms.toFixed(0)} ms`);
    }
    say(`  round ${round}${round === 0 ? " (warm-up)" : ""}: ${line.join(", ")}`);
  }
  const bare = medianOf(times.bare);
  const envoy = medianOf(times.envoy);
  const agent = medianOf(times.agent);
  const bound = TARGET.startupRatio * bare + envoy;
  verdicts.push({
    target: `start-to-ready ≤ ${TARGET.startupRatio}× bare + Envoy`,
    agent: `${agent.toFixed(0)} ms (${((agent - envoy) / bare).toFixed(2)}× bare after Envoy)`,
    baseline: `bare ${bare.toFixed(0)} ms, Envoy ${envoy.toFixed(0)} ms, bound ${bound.toFixed(0)} ms`,
    ok: agent <= bound,
  });
}

/** Samples both processes' memory every --sample-seconds for `seconds`, printing each sample. */
async function watch(
  what: string,
  seconds: number,
  pids: { agent: number; bare: number },
  during?: (elapsedS: number) => Promise<void> | void,
): Promise<{ t: number[]; agent: number[]; bare: number[] }> {
  const out = { t: [] as number[], agent: [] as number[], bare: [] as number[] };
  const t0 = Date.now();
  let next = 0;
  while ((Date.now() - t0) / 1000 < seconds) {
    await sleep(Math.max(0, t0 + next * 1000 - Date.now()));
    next += sampleSeconds;
    const elapsed = (Date.now() - t0) / 1000;
    const a = readMemory(pids.agent);
    const b = readMemory(pids.bare);
    out.t.push(elapsed);
    out.agent.push(a.rssMiB);
    out.bare.push(b.rssMiB);
    say(`  ${what} ${elapsed.toFixed(0)} s: agent RSS ${mib(a.rssMiB)} (peak ${mib(a.hwmMiB)}), bare ${mib(b.rssMiB)}`);
    await during?.(elapsed);
  }
  return out;
}

/** A pod's agent and a bare server, both started now; ready, with Envoy's streams open. */
async function startPair(mesh: Mesh, name: string): Promise<{ pod: AgentPod; bare: ChildProcess; barePort: number }> {
  const barePort = await freePort();
  const bare = startBare(mesh, barePort);
  const pod = await startAgentPod(mesh, name);
  await connectEnvoy(pod);
  const t0 = performance.now();
  await until200(pod.statusPort, "/healthz/ready", t0, "the agent", pod.child).catch((e) => {
    throw new Error(`${(e as Error).message}\n${pod.output()}`);
  });
  await until200(barePort, "/", t0, "the bare server", bare);
  if (bare.pid === undefined) throw new Error("the bare server did not start");
  return { pod, bare, barePort };
}

/** Sends `rate` GETs per second (each on a new connection) to each target until stopped; counts answers. */
function probeLoad(targets: { port: number; path: string }[]) {
  const counts = targets.map(() => ({ sent: 0, ok: 0, failed: 0, statuses: new Map<number, number>() }));
  const tick = 10; // ms
  let due = 0;
  const t0 = performance.now();
  const timer = setInterval(() => {
    const want = Math.floor(((performance.now() - t0) / 1000) * rate);
    for (; due < want; due++)
      targets.forEach((t, i) => {
        const c = counts[i] as (typeof counts)[number];
        c.sent++;
        void status(t.port, t.path, 5000).then((s) => {
          if (s === 200) c.ok++;
          else {
            c.failed++;
            c.statuses.set(s, (c.statuses.get(s) ?? 0) + 1);
          }
        });
      });
  }, tick);
  return {
    counts,
    stop: () => clearInterval(timer),
  };
}

async function idleAndLoadPhase(mesh: Mesh): Promise<void> {
  say(`idle: agent and bare server for ${idleSeconds} s`);
  const { pod, bare, barePort } = await startPair(mesh, "idle");
  const pids = { agent: pod.pid, bare: bare.pid as number };
  try {
    await watch("idle", idleSeconds, pids);
    const a = readMemory(pod.pid);
    const b = readMemory(pids.bare);
    verdicts.push({
      target: `idle RSS ≤ ${TARGET.idleMiB} MiB`,
      agent: `${mib(a.rssMiB)} (peak ${mib(a.hwmMiB)})`,
      baseline: `bare ${mib(b.rssMiB)} (peak ${mib(b.hwmMiB)})`,
      ok: a.rssMiB <= TARGET.idleMiB,
    });
    verdicts.push({
      target: `idle RSS ≤ ${TARGET.idleRatio}× bare`,
      agent: `${(a.rssMiB / b.rssMiB).toFixed(2)}×`,
      baseline: "1.00×",
      ok: a.rssMiB <= TARGET.idleRatio * b.rssMiB,
    });

    say(`probe load: ${rate} requests/s on each for ${loadSeconds} s (a new connection per probe)`);
    const load = probeLoad([
      { port: pod.statusPort, path: "/app-health/web/readyz" },
      { port: barePort, path: "/" },
    ]);
    let samples: Awaited<ReturnType<typeof watch>>;
    const cpuBefore = { agent: cpuSeconds(pod.pid), bare: cpuSeconds(pids.bare) };
    try {
      samples = await watch("load", loadSeconds, pids);
    } finally {
      load.stop();
    }
    const cpu = { agent: cpuSeconds(pod.pid) - cpuBefore.agent, bare: cpuSeconds(pids.bare) - cpuBefore.bare };
    say(
      `  CPU during the load: agent ${cpu.agent.toFixed(1)} s (${((100 * cpu.agent) / loadSeconds).toFixed(0)}% of a core), bare ${cpu.bare.toFixed(1)} s`,
    );
    await sleep(2000);
    const [agentCount, bareCount] = load.counts as [(typeof load.counts)[0], (typeof load.counts)[0]];
    say(
      `  probes: agent ${agentCount.ok}/${agentCount.sent} answered 200 (${agentCount.failed} not: ${[...agentCount.statuses].map(([k, v]) => `${v}× ${k === 0 ? "no answer" : k}`).join(", ") || "none"}); bare ${bareCount.ok}/${bareCount.sent}`,
    );
    const peakA = Math.max(...samples.agent);
    const peakB = Math.max(...samples.bare);
    const hwm = readMemory(pod.pid).hwmMiB;
    verdicts.push({
      target: `RSS under ${rate} probes/s ≤ ${TARGET.loadMiB} MiB`,
      agent: `${mib(peakA)} highest sample (peak ${mib(hwm)}), ${agentCount.failed} probes not 200`,
      baseline: `bare ${mib(peakB)}`,
      ok: peakA <= TARGET.loadMiB && agentCount.failed === 0 && agentCount.ok > 0,
    });
  } finally {
    await pod.stop();
    await endChild(bare);
  }
}

/** The agent's V8 heap in use, from its own metrics (/stats/prometheus); undefined when not answered. */
async function heapUsedMiB(pod: AgentPod): Promise<number | undefined> {
  const text = (await body(pod.statusPort, "/stats/prometheus").catch(() => Buffer.alloc(0))).toString("utf8");
  const m = /^istio_agent_nodejs_heap_size_used_bytes (\d+)/m.exec(text);
  return m === null ? undefined : Number(m[1]) / 1048576;
}

async function soakPhase(mesh: Mesh): Promise<void> {
  mesh.setCertTtl(certTtlSeconds * 1000);
  say(
    `soak: ${soakSeconds} s, certificates of ${certTtlSeconds} s, istiod restarted every ${restartSeconds} s (down 2 s)`,
  );
  const { pod, bare } = await startPair(mesh, "soak");
  const pids = { agent: pod.pid, bare: bare.pid as number };
  const warmUp = soakSeconds / 5;
  const heap: { t: number; mib: number }[] = [];
  let lastScrape = -Infinity;
  let lastRestart = 0;
  const signedBefore = mesh.certificatesSigned;
  const restartsBefore = mesh.restarts;
  try {
    const samples = await watch("soak", soakSeconds, pids, async (elapsed) => {
      if (elapsed - lastScrape >= 15) {
        lastScrape = elapsed;
        const used = await heapUsedMiB(pod);
        if (used !== undefined) heap.push({ t: elapsed, mib: used });
      }
      if (elapsed - lastRestart >= restartSeconds && elapsed < soakSeconds - sampleSeconds) {
        lastRestart = elapsed;
        void mesh.restartIstiod(2000).then(() => say(`  istiod restarted (${mesh.restarts - restartsBefore})`));
      }
    });
    const rotations = pod.sds?.responses.length ?? 0;
    say(
      `  ${mesh.certificatesSigned - signedBefore} certificates signed, ${rotations} SDS pushes, ${mesh.restarts - restartsBefore} istiod restarts, ${pod.adsReconnects} ADS reconnects`,
    );
    const after = samples.t.map((t, i) => [t, i] as const).filter(([t]) => t >= warmUp);
    const quarter = soakSeconds / 4;
    const window = (from: number, to: number, of: number[]) =>
      medianOf(after.filter(([t]) => t >= from && t < to).map(([, i]) => of[i] as number));
    const growth = (of: number[]) => window(soakSeconds - quarter, Infinity, of) - window(warmUp, warmUp + quarter, of);
    const perHour = (of: number[]) =>
      slope(
        after.map(([t]) => t / 3600),
        after.map(([, i]) => of[i] as number),
      );
    verdicts.push({
      target: `soak RSS growth ≤ ${TARGET.soakRssMiB} MiB`,
      agent: `${growth(samples.agent).toFixed(2)} MiB (slope ${perHour(samples.agent).toFixed(1)} MiB/h)`,
      baseline: `bare ${growth(samples.bare).toFixed(2)} MiB (slope ${perHour(samples.bare).toFixed(1)} MiB/h)`,
      ok: growth(samples.agent) <= TARGET.soakRssMiB && rotations >= 4 && mesh.restarts > restartsBefore,
    });
    const lowest = (from: number, to: number) =>
      Math.min(...heap.filter((h) => h.t >= from && h.t < to).map((h) => h.mib));
    const early = lowest(warmUp, warmUp + quarter);
    const late = lowest(soakSeconds - quarter, Infinity);
    verdicts.push({
      target: `soak heap-in-use growth ≤ ${TARGET.soakHeapMiB} MiB`,
      agent: `${(late - early).toFixed(2)} MiB (lowest ${mib(early)} → ${mib(late)})`,
      baseline: "",
      ok: Number.isFinite(early) && Number.isFinite(late) && late - early <= TARGET.soakHeapMiB,
    });
  } finally {
    await pod.stop();
    await endChild(bare);
  }
}

const mesh = await Mesh.start(24 * 3600 * 1000);
try {
  say(`Node ${process.version}; agent: ${join(repoRoot, "deploy/proxy/pilot-agent")} over ${join(repoRoot, "dist")}`);
  await startupPhase(mesh);
  await idleAndLoadPhase(mesh);
  if (soakSeconds > 0) await soakPhase(mesh);
} finally {
  await mesh.close();
}
console.log();
printTable([
  ["target", "agent", "baseline (same run)", ""],
  ...verdicts.map((v) => [v.target, v.agent, v.baseline, v.ok ? "PASS" : "FAIL"]),
]);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
const failed = verdicts.filter((v) => !v.ok);
console.log(failed.length === 0 ? "PASS" : `FAIL (${failed.length} of ${verdicts.length})`);
process.exitCode = failed.length === 0 ? 0 : 1;
