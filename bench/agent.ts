/**
 * Cost of the agent's status server on loopback, against the direct path in the same run. Usage:
 *
 *   npm run bench:agent [-- --rounds N --batch N --concurrency N]
 *
 * 1. Probe proxy: a kubelet-like GET (new connection per probe) on /app-health/app/readyz, which the agent
 *    forwards to a small application, next to the same GET sent to the application directly.
 *    Sequential latency (mean, p50, p99) and requests/s with N concurrent probers.
 * 2. Metrics merge: GET /stats/prometheus on the agent, which scrapes a 2 MiB Envoy page and merges it
 *    with the agent's metrics, next to reading the page from the fake Envoy directly.
 * Both sides are warmed up by iterations first, then measured in interleaved rounds (direct, agent,
 * direct, agent, …) so that machine noise falls on both alike. The figures are the ratios.
 */
import * as http from "node:http";
import { parseArgs } from "node:util";
import { Registry } from "prom-client";
import { startStatusServer } from "../src/agent/status/server.js";
import { serveLoopback } from "../test/loopback-server.js";
import { formatNs, printTable } from "./timing.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    batch: { type: "string", default: "200" },
    concurrency: { type: "string", default: "8" },
    "stats-batch": { type: "string", default: "10" },
  },
});
const rounds = Number(values.rounds);
const batch = Number(values.batch);
const concurrency = Number(values.concurrency);
const statsBatch = Number(values["stats-batch"]);

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

async function main(): Promise<void> {
  const app = await serveLoopback((_req, res) => res.end("ok"));
  const page = envoyPage();
  const envoy = await serveLoopback((_req, res) => {
    res.setHeader("Content-Type", "text/plain; version=0.0.4");
    res.end(page);
  });
  const agent = await startStatusServer({
    host: "127.0.0.1",
    port: 0,
    adminPort: 1,
    envoyPrometheusPort: envoy.port,
    registry: new Registry(),
    kubeAppProbers: JSON.stringify({ "/app-health/app/readyz": { httpGet: { path: "/ready", port: app.port } } }),
  });
  const direct = () => get(app.port, "/ready");
  const proxied = () => get(agent.port, "/app-health/app/readyz");
  const envoyDirect = () => get(envoy.port, "/stats/prometheus");
  const merged = () => get(agent.port, "/stats/prometheus");
  try {
    // Warm-up by iterations: both paths, until V8 has optimised them.
    await latencies(300, direct);
    await latencies(300, proxied);
    await latencies(20, envoyDirect);
    await latencies(20, merged);

    const lat = { direct: [] as number[], agent: [] as number[] };
    const rps = { direct: [] as number[], agent: [] as number[] };
    const stats = { direct: [] as number[], agent: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      lat.direct.push(...(await latencies(batch, direct)));
      lat.agent.push(...(await latencies(batch, proxied)));
      rps.direct.push(await throughput(batch, concurrency, direct));
      rps.agent.push(await throughput(batch, concurrency, proxied));
      stats.direct.push(...(await latencies(statsBatch, envoyDirect)));
      stats.agent.push(...(await latencies(statsBatch, merged)));
    }
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
    console.log(
      `probe proxy: ${rounds} rounds × ${batch} probes each side (new connection per probe), ${concurrency} concurrent for req/s`,
    );
    printTable([
      ["", "direct", "via agent", "agent/direct"],
      row("latency mean", lat.direct, lat.agent, mean),
      row("latency p50", lat.direct, lat.agent, p50),
      row("latency p99", lat.direct, lat.agent, p99),
      row("requests/s", rps.direct, rps.agent, mean, (n) => n.toFixed(0)),
    ]);
    console.log(`added latency per probe (mean): ${us(mean(lat.agent) - mean(lat.direct))}`);
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
    await app.close();
    await envoy.close();
  }
}

await main();
