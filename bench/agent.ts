/**
 * Cost of the agent's status server on loopback, against the direct path in the same run. Usage:
 *
 *   npm run bench:agent [-- --rounds N --batch N --concurrency N]
 *
 * 1. Probe proxy, for each kind of probe the injector rewrites (HTTP, TCP, gRPC): the kubelet's probe of
 *    the agent — an HTTP GET on a new connection to /app-health/<container>/livez, which the agent turns
 *    into its probe of the application — next to the kubelet probing the application itself: an HTTP GET
 *    on a new connection, a TCP connect, a gRPC Health/Check on a new connection (@grpc/grpc-js, as the
 *    kubelet dials per probe). Sequential latency (mean, p50, p99) and probes/s with N concurrent
 *    probers, against issue 25's targets: p50 added latency ≤ 0.5 ms, throughput ≥ 0.8× direct.
 * 2. Metrics merge: GET /stats/prometheus on the agent, which scrapes a 2 MiB Envoy page and merges it
 *    with the agent's metrics, next to reading the page from the fake Envoy directly.
 * Both sides are warmed up by iterations first, then measured in interleaved rounds (direct, agent,
 * direct, agent, …) so that machine noise falls on both alike. The figures are the ratios.
 *
 * What the figures say (profiles: `-- --cpu-prof-dir DIR`, the agent's process in DIR/agent, the floor's
 * in DIR/floor). A probe through the agent is the direct probe plus one more HTTP exchange on a new
 * connection (kubelet → agent), plus the agent's own routing. The floor, a bare node:http proxy doing
 * only that, costs its process about 3× the application's CPU per HTTP probe (a Node HTTP client
 * request on a new connection costs more than the server side of one) and about 7× a TCP connect, so
 * on a shared machine no proxy written on node:http reaches 0.8× direct throughput for HTTP or TCP
 * probes: the throughput target is not met by design, not by the agent's code, which stays within
 * ~100–200 µs of CPU per probe of the floor (its profile's top items are the kernel's connect and
 * writev). The latency target depends on the machine's load: the floor's own added p50 is 0.2–0.8 ms
 * here. gRPC probes pass both (the kubelet-like @grpc/grpc-js client costs more than the agent's
 * node:http2 check). Runs less than 60 s apart share TIME_WAIT sockets on 127.0.0.6, which slow the
 * TCP section: leave a minute between runs.
 */

import { fork } from "node:child_process";
import * as http from "node:http";
import * as net from "node:net";
import { parseArgs } from "node:util";
import { makeHealthChecker } from "../test/grpc-health.js";
import { serveLoopback } from "../test/loopback-server.js";
import { proxyImageNodeFlags } from "../test/proxy-wrapper.js";
import { formatNs, printTable } from "./timing.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    batch: { type: "string", default: "200" },
    concurrency: { type: "string", default: "8" },
    "stats-batch": { type: "string", default: "10" },
    kinds: { type: "string", default: "http,tcp,grpc" },
    "no-stats": { type: "boolean", default: false },
    /** CPU profiles (--cpu-prof) of the agent's process in <dir>/agent, of the floor proxies' in <dir>/floor. */
    "cpu-prof-dir": { type: "string" },
  },
});
const rounds = Number(values.rounds);
const batch = Number(values.batch);
const concurrency = Number(values.concurrency);
const statsBatch = Number(values["stats-batch"]);
const profileDir = values["cpu-prof-dir"];

/** One GET on a new connection, as the kubelet probes; resolves with the status. */
function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
  });
}

/** The kubelet's TCP probe: connect, close; resolves with 200 when it connected. */
function connect(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(200);
    });
    socket.on("error", reject);
  });
}

/** Issue 25 target 2. */
const MAX_ADDED_P50_NS = 500_000;
const MIN_THROUGHPUT_RATIO = 0.8;

/** Sequential latencies of `n` requests, in ns. */
async function latencies(n: number, send: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const status = await send();
    out.push(Number(process.hrtime.bigint() - t));
    if (status !== 200) throw new Error(`unexpected status ${status}`);
  }
  return out;
}

/** Requests per second of `n` requests sent by `c` concurrent loops. */
async function throughput(n: number, c: number, send: () => Promise<number>): Promise<number> {
  let left = n;
  const t = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (left-- > 0) await send();
    }),
  );
  return n / (Number(process.hrtime.bigint() - t) / 1e9);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** The 2 MiB Envoy page of Istio's compression test: counters until the text reaches 2 MiB. */
function envoyPage(): string {
  const parts = ["# TYPE my_metric counter\nmy_metric{} 0\n"];
  let size = parts[0].length;
  for (let i = 0; size < 2 * 1024 * 1024; i++) {
    const line = `# TYPE my_other_metric_${i} counter\nmy_other_metric_${i}{cluster="outbound|80||svc-${i}.ns.svc.cluster.local"} ${i}\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join("");
}

interface ProbeKind {
  name: string;
  direct: () => Promise<number>;
  proxied: () => Promise<number>;
  /** The least a Node.js proxy of this probe costs, for reference (HTTP and TCP). */
  floor?: () => Promise<number>;
}

/** A child process of agent-probe-child.ts, once it has sent its first message. */
async function child<T>(
  role: string,
  arg?: unknown,
): Promise<{ ready: T; ask<R>(m: string): Promise<R>; close(): Promise<void> }> {
  const proc = fork(
    new URL("./agent-probe-child.ts", import.meta.url).pathname,
    [role, ...(arg ? [JSON.stringify(arg)] : [])],
    {
      execArgv: [
        "--import",
        "tsx",
        // The agent runs with the proxy image's V8 flags, as in a pod; the app and the floor with node's defaults.
        ...(role === "agent" ? proxyImageNodeFlags() : []),
        ...(role === "app" || !profileDir ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}/${role}`]),
      ],
    },
  );
  const ready = await new Promise<T>((resolve, reject) => {
    proc.once("message", (m) => resolve(m as T));
    proc.once("exit", (code) => reject(new Error(`${role} exited with ${code}`)));
  });
  return {
    ready,
    ask: (m) =>
      new Promise((resolve) => {
        proc.once("message", (r) => resolve(r as never));
        proc.send(m);
      }),
    close: async () => {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.send("close");
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const page = envoyPage();
  const envoy = await serveLoopback((_req, res) => {
    res.setHeader("Content-Type", "text/plain; version=0.0.4");
    res.end(page);
  });
  // The kubelet is this process; the application, the agent and the floor proxies are processes of their own.
  const app = await child<{ http: number; grpc: number }>("app");
  const ports = { ...app.ready, envoy: envoy.port };
  const agent = await child<{ port: number }>("agent", ports);
  const floor = await child<{ http: number; tcp: number }>("floor", ports);
  const check = makeHealthChecker();
  const agentPort = agent.ready.port;
  const allKinds: ProbeKind[] = [
    {
      name: "HTTP",
      direct: () => get(ports.http, "/ready"),
      proxied: () => get(agentPort, "/app-health/http/livez"),
      floor: () => get(floor.ready.http, "/"),
    },
    {
      name: "TCP",
      direct: () => connect(ports.http),
      proxied: () => get(agentPort, "/app-health/tcp/livez"),
      floor: () => get(floor.ready.tcp, "/"),
    },
    {
      name: "gRPC",
      direct: async () => ((await check(ports.grpc)) === 1 ? 200 : 500),
      proxied: () => get(agentPort, "/app-health/grpc/livez"),
    },
  ];
  const wanted = new Set(values.kinds.toLowerCase().split(","));
  const kinds = allKinds.filter((k) => wanted.has(k.name.toLowerCase()));
  const envoyDirect = () => get(envoy.port, "/stats/prometheus");
  const merged = () => get(agentPort, "/stats/prometheus");
  const us = (ns: number) => `${formatNs(ns / 1000)} µs`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  /** One table row: a statistic of both sides and their ratio. */
  const row = (label: string, d: number[], a: number[], stat: (xs: number[]) => number, show = us) => [
    label,
    show(stat(d)),
    show(stat(a)),
    ratio(stat(a), stat(d)),
  ];
  const p50 = (xs: number[]) => quantile(xs, 0.5);
  const p99 = (xs: number[]) => quantile(xs, 0.99);
  const verdicts: string[] = [];
  try {
    for (const kind of kinds) {
      // Warm-up by iterations: both paths, until V8 has optimised them.
      await latencies(300, kind.direct);
      await latencies(300, kind.proxied);
      if (kind.floor) await latencies(300, kind.floor);
      const lat = { direct: [] as number[], agent: [] as number[], floor: [] as number[] };
      const rps = { direct: [] as number[], agent: [] as number[], floor: [] as number[] };
      /** CPU (µs) of the application's process on the direct path, of the agent's on its path. */
      const cpu = { app: 0, agent: 0, floor: 0 };
      const cpuOf = async (c: { ask<R>(m: string): Promise<R> }) => (await c.ask<{ cpu: number }>("cpu")).cpu;
      for (let r = 0; r < rounds; r++) {
        lat.direct.push(...(await latencies(batch, kind.direct)));
        lat.agent.push(...(await latencies(batch, kind.proxied)));
        if (kind.floor) lat.floor.push(...(await latencies(batch, kind.floor)));
        const appBefore = await cpuOf(app);
        rps.direct.push(await throughput(batch, concurrency, kind.direct));
        cpu.app += (await cpuOf(app)) - appBefore;
        const agentBefore = await cpuOf(agent);
        rps.agent.push(await throughput(batch, concurrency, kind.proxied));
        cpu.agent += (await cpuOf(agent)) - agentBefore;
        if (kind.floor) {
          const floorBefore = await cpuOf(floor);
          rps.floor.push(await throughput(batch, concurrency, kind.floor));
          cpu.floor += (await cpuOf(floor)) - floorBefore;
        }
      }
      console.log(
        `${kind.name} probe: ${rounds} rounds × ${batch} probes each side (new connection per probe), ${concurrency} concurrent for probes/s`,
      );
      printTable([
        ["", "direct", "via agent", "agent/direct"],
        row("latency mean", lat.direct, lat.agent, mean),
        row("latency p50", lat.direct, lat.agent, p50),
        row("latency p99", lat.direct, lat.agent, p99),
        row("probes/s", rps.direct, rps.agent, mean, (n) => n.toFixed(0)),
      ]);
      const perProbe = (t: number) => `${formatNs(t / (rounds * batch))} µs`;
      console.log(
        `CPU per probe: the application's process ${perProbe(cpu.app)} (direct), the agent's process ${perProbe(cpu.agent)} (via agent)`,
      );
      const added = p50(lat.agent) - p50(lat.direct);
      const through = mean(rps.agent) / mean(rps.direct);
      if (kind.floor) {
        console.log(
          `floor, a bare node:http proxy of the probe: p50 added ${us(p50(lat.floor) - p50(lat.direct))}, ` +
            `throughput ${(mean(rps.floor) / mean(rps.direct)).toFixed(2)}x direct, its process ${perProbe(cpu.floor)} CPU per probe`,
        );
      }
      const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
      verdicts.push(
        `${kind.name.padEnd(5)} p50 added latency ${us(added)} (target ≤ 500 µs): ${verdict(added <= MAX_ADDED_P50_NS)}; ` +
          `throughput ${through.toFixed(2)}x direct (target ≥ ${MIN_THROUGHPUT_RATIO}x): ${verdict(through >= MIN_THROUGHPUT_RATIO)}`,
      );
      console.log();
    }
    console.log("issue 25 target 2 (probe overhead):");
    for (const v of verdicts) console.log(`  ${v}`);
    if (values["no-stats"]) return;

    await latencies(20, envoyDirect);
    await latencies(20, merged);
    const stats = { direct: [] as number[], agent: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      stats.direct.push(...(await latencies(statsBatch, envoyDirect)));
      stats.agent.push(...(await latencies(statsBatch, merged)));
    }
    console.log();
    console.log(
      `metrics merge: ${(page.length / 1048576).toFixed(2)} MiB Envoy page, ${rounds} rounds × ${statsBatch} scrapes each side`,
    );
    printTable([
      ["", "Envoy direct", "agent merged", "agent/direct"],
      row("scrape mean", stats.direct, stats.agent, mean),
      row("scrape p50", stats.direct, stats.agent, p50),
    ]);
    console.log(`added time per scrape (mean): ${us(mean(stats.agent) - mean(stats.direct))}`);
  } finally {
    await agent.close();
    await floor.close();
    await app.close();
    await envoy.close();
  }
}

await main();
