/**
 * XDS proxy throughput and added latency (issue 13 §4): an ADS client standing in for Envoy talks to
 * a fake istiod of ours (TLS on loopback) either directly or through the proxy's Unix socket, in the
 * same run. Usage:
 *
 *   npm run bench:agent-xds [-- --rounds 3 --pings 300 --burst 2000 --size 1024]
 *
 * Latency: closed-loop ping-pong (a request, istiod answers at once), median and p99 round trip.
 * Throughput: istiod pushes a burst of `--burst` responses of `--size` bytes as fast as the stream
 * takes them; messages/s until the client has them all, in order. The two targets are interleaved
 * round by round after a warm-up round each. Every response is checked. Exit 1 on a failure.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { CA_ROOT_CERT } from "../src/agent/istiod-channel.js";
import { createTestCa } from "../src/agent/testing/pki.js";
import { startXdsProxy } from "../src/agent/xds/proxy.js";
import { type AdsTestClient, adsClient } from "../src/agent/xds/testing/ads-client.js";
import { type IstiodStream, startFakeIstiod } from "../src/agent/xds/testing/fake-istiod.js";
import { printTable } from "./timing.js";
import { ms, numberFlag, parseFlags, percentile, printHeader } from "./webhook-harness.js";

const USAGE = "usage: node --import tsx bench/agent-xds.ts [--rounds N] [--pings N] [--burst N] [--size BYTES]";
const flags = parseFlags({ rounds: "3", pings: "300", burst: "2000", size: "1024" }, USAGE);
const rounds = numberFlag(flags, "rounds");
const pings = numberFlag(flags, "pings");
const burst = numberFlag(flags, "burst");
const size = numberFlag(flags, "size");

// Under `envoy.`: the proxy forwards only Envoy's types (and Workload) to Envoy, as Istio's does.
const PING = "type.googleapis.com/envoy.bench.Ping";
const BURST = "type.googleapis.com/envoy.bench.Burst";

const pki = await createTestCa();
const istiod = await startFakeIstiod(pki);
istiod.onRequest = (stream: IstiodStream, request) => {
  if (request.typeUrl === PING) void stream.push({ typeUrl: PING, nonce: request.versionInfo, versionInfo: "p" });
  if (request.typeUrl === BURST)
    void (async () => {
      const payload = Buffer.alloc(size, 7);
      for (let i = 0; i < Number(request.versionInfo); i++)
        await stream.push({ typeUrl: BURST, nonce: String(i), resources: [{ typeUrl: BURST, value: payload }] });
    })();
};
const root = mkdtempSync(join(tmpdir(), "meshinject-bench-xds-"));
mkdirSync(dirname(join(root, CA_ROOT_CERT)), { recursive: true });
writeFileSync(join(root, CA_ROOT_CERT), pki.rootPem);
const proxy = await startXdsProxy({
  root,
  socketPath: join(root, "XDS"),
  discoveryAddress: istiod.address,
  serverName: "localhost",
  tokenPath: false,
  clusterId: "Kubernetes",
});

interface Target {
  name: string;
  client: AdsTestClient;
  rtts: number[];
  rates: number[];
}
const targets: Target[] = [
  {
    name: "direct → fake istiod",
    client: adsClient(istiod.address, "sotw", credentials.createSsl(Buffer.from(pki.rootPem)), {
      "grpc.ssl_target_name_override": "localhost",
      "grpc.default_authority": "localhost",
    }),
    rtts: [],
    rates: [],
  },
  { name: "via XDS proxy", client: adsClient(`unix:${proxy.socketPath}`), rtts: [], rates: [] },
];
const problems: string[] = [];

async function waitCount(client: AdsTestClient, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (client.responses.length < count) {
    if (Date.now() > deadline) throw new Error(`${client.responses.length}/${count} responses after 60 s`);
    await new Promise((r) => setImmediate(r));
  }
}

async function round(t: Target, counted: boolean): Promise<void> {
  const c = t.client;
  for (let i = 0; i < pings; i++) {
    const want = c.responses.length + 1;
    const start = process.hrtime.bigint();
    c.send({ typeUrl: PING, versionInfo: `ping-${i}` });
    await waitCount(c, want);
    const rtt = Number(process.hrtime.bigint() - start) / 1e6;
    const got = c.responses[want - 1];
    if (got?.nonce !== `ping-${i}`) problems.push(`${t.name}: ping ${i} answered by ${String(got?.nonce)}`);
    if (counted) t.rtts.push(rtt);
  }
  const base = c.responses.length;
  const start = process.hrtime.bigint();
  c.send({ typeUrl: BURST, versionInfo: String(burst) });
  await waitCount(c, base + burst);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  for (let i = 0; i < burst; i++)
    if (c.responses[base + i]?.nonce !== String(i)) {
      problems.push(`${t.name}: burst message ${i} out of order`);
      break;
    }
  c.responses.length = 0;
  if (counted) t.rates.push(burst / seconds);
}

printHeader(`XDS proxy vs direct: ${rounds} rounds × (${pings} pings + burst of ${burst} × ${size} B)`);
for (const t of targets) {
  t.client.send({ node: { id: `bench~${t.name}` }, typeUrl: PING, versionInfo: "hello" });
  await waitCount(t.client, 1);
  t.client.responses.length = 0;
  await round(t, false);
}
for (let r = 0; r < rounds; r++) for (const t of targets) await round(t, true);

const summary = targets.map((t) => {
  const sorted = Float64Array.from(t.rtts).sort();
  const rate = t.rates.reduce((a, b) => a + b, 0) / t.rates.length;
  return { name: t.name, p50: percentile(sorted, 50), p99: percentile(sorted, 99), rate };
});
printTable([
  ["target", "RTT p50", "RTT p99", "messages/s"],
  ...summary.map((s) => [s.name, ms(s.p50), ms(s.p99), s.rate.toFixed(0)]),
]);
const [direct, proxied] = summary as [(typeof summary)[0], (typeof summary)[0]];
console.log(
  `\nadded latency p50 ${ms(proxied.p50 - direct.p50)} (×${(proxied.p50 / direct.p50).toFixed(2)}), ` +
    `p99 ×${(proxied.p99 / direct.p99).toFixed(2)}; throughput ×${(proxied.rate / direct.rate).toFixed(2)} of direct`,
);
console.log(`proxy counters: ${JSON.stringify(proxy.stats())}`);
for (const t of targets) t.client.close();
await proxy.close();
await istiod.close();
rmSync(root, { recursive: true, force: true });
if (problems.length > 0) {
  console.log(`FAIL\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log("PASS");
