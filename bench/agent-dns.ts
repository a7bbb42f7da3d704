/**
 * DNS proxy throughput and tail latency (issue 13 §4): queries/s and p99 over UDP for names answered
 * from the name table and for names forwarded upstream, next to the same forwarded name asked of the
 * bare upstream (our fake resolver) directly, in the same run. Usage:
 *
 *   npm run bench:agent-dns [-- --rounds 3 --round-ms 1000 --levels 1,16 --hosts 1000]
 *
 * Topology: one process holds the proxy, the fake upstream and the load generator (one UDP socket per
 * concurrent client, closed loop), so every target pays the same client cost. The targets are
 * interleaved round by round after a warm-up round each; figures are over all counted rounds.
 * Every reply is checked (ID, NOERROR, one A record with the expected address). Exit 1 on a failure.
 */
import type { Buffer } from "node:buffer";
import { createSocket } from "node:dgram";
import { startDnsProxy } from "../src/agent/dns/server.js";
import { queryMessage } from "../src/agent/dns/testing/client.js";
import { startFakeResolver } from "../src/agent/dns/testing/fake-resolver.js";
import { decodeMessage, rcodeOf } from "../src/agent/dns/wire.js";
import { printTable } from "./timing.js";
import { ms, numberFlag, parseFlags, percentile, printHeader } from "./webhook-harness.js";

const USAGE = "usage: node --import tsx bench/agent-dns.ts [--rounds N] [--round-ms MS] [--levels 1,16] [--hosts N]";
const flags = parseFlags({ rounds: "3", "round-ms": "1000", levels: "1,16", hosts: "1000" }, USAGE);
const rounds = numberFlag(flags, "rounds");
const roundMs = numberFlag(flags, "round-ms");
const hosts = numberFlag(flags, "hosts");
const levels = flags.levels.split(",").map(Number);
if (levels.some((n) => !Number.isInteger(n) || n < 1 || n > 256)) {
  console.error(`--levels: integers from 1 to 256, got ${flags.levels}`);
  process.exit(2);
}

interface Target {
  name: string;
  port: number;
  question: string;
  expect: string;
}

interface Tally {
  latencies: number[];
  elapsedMs: number;
  failed: number;
  firstProblem?: string;
}

/** `concurrency` closed-loop clients, each on its own UDP socket, for `durationMs`. */
async function load(target: Target, concurrency: number, durationMs: number, into: Tally): Promise<void> {
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  const worker = async () => {
    const socket = createSocket("udp4");
    let waiting: ((b: Buffer) => void) | undefined;
    socket.on("message", (m) => waiting?.(m));
    await new Promise<void>((r) => socket.bind(0, "127.0.0.1", () => r()));
    let id = Math.floor(Math.random() * 0xffff);
    while (performance.now() < deadline) {
      id = (id + 1) & 0xffff;
      const message = queryMessage({ name: target.question, type: "A", id });
      const start = performance.now();
      const reply = await new Promise<Buffer | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 2000);
        waiting = (b) => {
          if (b.readUInt16BE(0) !== id) return;
          clearTimeout(timer);
          resolve(b);
        };
        socket.send(message, target.port, "127.0.0.1");
      });
      into.latencies.push(performance.now() - start);
      const problem = check(reply, target);
      if (problem) {
        into.failed++;
        into.firstProblem ??= problem;
      }
    }
    socket.close();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  into.elapsedMs += performance.now() - t0;
}

function check(reply: Buffer | undefined, target: Target): string | undefined {
  if (!reply) return "no reply within 2 s";
  const m = decodeMessage(reply);
  if (rcodeOf(m.flags ?? 0) !== 0) return `rcode ${rcodeOf(m.flags ?? 0)}`;
  const data = (m.answers ?? []).map((a) => (a as { data?: unknown }).data);
  if (data.length !== 1 || data[0] !== target.expect) return `answers ${JSON.stringify(data)}`;
  return undefined;
}

printHeader("DNS proxy: table hits and forwarded names vs the bare upstream, UDP");
console.log(
  `levels ${levels.join(", ")}; ${rounds} counted rounds of ${roundMs} ms per target (interleaved) after one warm-up round; ` +
    `name table of ${hosts} Kubernetes services; proxy, upstream and clients in this process`,
);

const upstream = await startFakeResolver({
  zones: [
    { zone: ".", rcode: "NXDOMAIN" },
    {
      zone: "www.bing.com.",
      rcode: "NOERROR",
      answer: [{ name: "www.bing.com.", type: "A", class: "IN", ttl: 30, data: "1.1.1.1" }],
    },
  ],
});
const proxy = await startDnsProxy({
  address: "127.0.0.1:0",
  proxyNamespace: "ns1",
  proxyDomain: "ns1.svc.cluster.local",
  upstreams: [upstream.address],
  searchNamespaces: ["ns1.svc.cluster.local", "svc.cluster.local", "cluster.local"],
});
const table: Record<string, unknown> = {};
for (let i = 0; i < hosts; i++)
  table[`svc-${i}.ns${i % 10}.svc.cluster.local`] = {
    ips: [`10.${(i >> 8) & 255}.${i & 255}.1`],
    registry: "Kubernetes",
    shortname: `svc-${i}`,
    namespace: `ns${i % 10}`,
  };
proxy.updateNameTable({ table });
const hitIndex = Math.floor(hosts / 2);

const targets: Target[] = [
  { name: "bare upstream", port: upstream.port, question: "www.bing.com.", expect: "1.1.1.1" },
  {
    name: "proxy, table hit",
    port: proxy.ports.udp,
    question: `svc-${hitIndex}.ns${hitIndex % 10}.svc.`,
    expect: `10.${(hitIndex >> 8) & 255}.${hitIndex & 255}.1`,
  },
  { name: "proxy, forwarded", port: proxy.ports.udp, question: "www.bing.com.", expect: "1.1.1.1" },
];

const rows: string[][] = [["concurrency", "target", "queries", "q/s", "p50 ms", "p99 ms", "failed"]];
const ratios: string[] = [];
const problems: string[] = [];
try {
  for (const c of levels) {
    const tallies = targets.map((): Tally => ({ latencies: [], elapsedMs: 0, failed: 0 }));
    for (const t of targets) await load(t, c, roundMs, { latencies: [], elapsedMs: 0, failed: 0 });
    for (let r = 0; r < rounds; r++)
      for (const [i, t] of targets.entries()) await load(t, c, roundMs, tallies[i] as Tally);
    const figures = tallies.map((t) => {
      const lat = Float64Array.from(t.latencies);
      return {
        qps: lat.length / (t.elapsedMs / 1000),
        p50: percentile(lat, 50),
        p99: percentile(lat, 99),
        n: lat.length,
      };
    });
    for (const [i, t] of targets.entries()) {
      const f = figures[i] as (typeof figures)[number];
      const tally = tallies[i] as Tally;
      rows.push([String(c), t.name, String(f.n), f.qps.toFixed(0), ms(f.p50), ms(f.p99), String(tally.failed)]);
      if (tally.failed > 0) problems.push(`${t.name} at ${c}: ${tally.failed} failed, first: ${tally.firstProblem}`);
    }
    const [bare, hit, fwd] = figures as [(typeof figures)[number], (typeof figures)[number], (typeof figures)[number]];
    ratios.push(
      `c=${c}: table hit ${(hit.qps / bare.qps).toFixed(2)}× bare q/s (p99 ${(hit.p99 / bare.p99).toFixed(2)}×), ` +
        `forwarded ${(fwd.qps / bare.qps).toFixed(2)}× bare q/s (p99 ${(fwd.p99 / bare.p99).toFixed(2)}×)`,
    );
  }
} finally {
  await proxy.close();
  await upstream.close();
}

console.log("");
printTable(rows);
console.log(`\nvs the bare upstream: ${ratios.join("; ")}`);
const stats = proxy.stats();
console.log(`proxy counters: ${JSON.stringify(stats)}`);
if (problems.length > 0) {
  console.log(`FAIL\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log("PASS");
