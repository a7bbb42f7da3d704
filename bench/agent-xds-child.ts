/**
 * The XDS proxy of bench/agent-xds.ts, run as a process of its own (as the agent is in a pod, apart
 * from Envoy and istiod), so that its memory is measured alone and its CPU is not shared with the
 * fake istiod and the Envoy stand-in. Started with --expose-gc; the argument is a JSON object:
 * `{ root, socketPath, discoveryAddress }`. Controlled over the IPC channel:
 *
 *   { id, op: "memory-reset" }   a full GC, then the peaks restart from the current figures (answered with them)
 *   { id, op: "memory" }         the peaks of RSS, V8 heap used and external memory since the reset
 *                                (sampled every 2 ms in between), and the current figures
 *   { id, op: "cpu" }            µs of CPU (user and system) used so far
 *   { id, op: "stats" }          the proxy's counters
 *   { id, op: "close" }          closes the proxy, then exits
 *
 * It sends `{ ready: socketPath }` once the proxy listens, and exits when the parent goes away.
 * BENCH_CHILD_CPU_PROF=DIR (read by the parent) adds --cpu-prof so a profile lands in DIR on exit.
 */
import { startXdsProxy } from "../src/agent/xds/proxy.js";

export interface MemoryFigures {
  rss: number;
  heapUsed: number;
  external: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as { root: string; socketPath: string; discoveryAddress: string };
const proxy = await startXdsProxy({
  root: config.root,
  socketPath: config.socketPath,
  discoveryAddress: config.discoveryAddress,
  serverName: "localhost",
  tokenPath: false,
  clusterId: "Kubernetes",
});

const now = (): MemoryFigures => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
};
let peak = now();
let armed = false;
const sample = () => {
  if (!armed) return;
  const m = now();
  peak = {
    rss: Math.max(peak.rss, m.rss),
    heapUsed: Math.max(peak.heapUsed, m.heapUsed),
    external: Math.max(peak.external, m.external),
  };
};
const sampler = setInterval(sample, 2);

const gc = (globalThis as { gc?: () => void }).gc;
process.on("message", async (msg: { id: number; op: string }) => {
  const answer = (result: unknown) => process.send?.({ id: msg.id, result });
  if (msg.op === "memory-reset") {
    gc?.();
    peak = now();
    armed = true;
    answer(peak);
  } else if (msg.op === "memory") {
    sample();
    armed = false;
    answer({ peak, current: now() });
  } else if (msg.op === "cpu") {
    const c = process.cpuUsage();
    answer(c.user + c.system);
  } else if (msg.op === "stats") answer(proxy.stats());
  else if (msg.op === "close") {
    clearInterval(sampler);
    await proxy.close();
    answer(null);
    process.disconnect?.();
  }
});
process.on("disconnect", () => process.exit(0));
process.send?.({ ready: proxy.socketPath });
