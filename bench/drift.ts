/**
 * `meshinject drift --from-cluster` at scale (issue 27): 10,000 live pods, ≤ 20 s wall and peak
 * RSS ≤ 300 MiB, the pods streamed through (listed a page at a time, not all held). Usage:
 *
 *   npm run --silent bench:drift        (node --import tsx bench/drift.ts)
 *
 * The cluster is our fake API server (test/fake-apiserver.ts, HTTPS on loopback, list chunking) in
 * this process, holding N pods made as a cluster makes them (test/live-pods.ts: defaulted, sent
 * through the webhook's review with the injector of their time, patched, named): Deployments of 60
 * replicas (a third injected with an older proxy tag, some not injected), StatefulSets, DaemonSets
 * (one pod per node, each pinned to its node), Jobs and bare pods; the ConfigMaps of the default
 * revision and its webhook configuration.
 *
 * (a) `meshinject drift --from-cluster` as users run it (dist/cli/main.js, built first by
 *     `npm run build`) in a child process: wall time and peak RSS (process.resourceUsage().maxRSS,
 *     written by a preloaded exit hook) at N pods and at N/10, and the growth per pod between them.
 * (b) floor: the same pods listed a page at a time by the same cluster client in this process (the
 *     reading every run of the command does at least), against the command's wall time.
 *
 * The command's own CPU time and the machine's load average are printed too: on a machine other
 * work keeps busy, the wall time is mostly waiting for a CPU. Each target is printed with PASS or FAIL. Flags: --pods N (10,000); --serve starts the cluster alone
 * and prints its kubeconfig (to profile the command by hand).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectCluster } from "../src/cluster/client.js";
import { defaultConfigFiles } from "../src/inject/defaults.js";
import { type LoadedInjector, loadInjector } from "../src/inject/injector.js";
import type { Json } from "../src/inject/pod.js";
import { webhookConfiguration } from "../src/webhook/webhook-config.js";
import { startFakeApiServer } from "../test/fake-apiserver.js";
import { created, pod, stored, webhookInjected } from "../test/live-pods.js";
import { childOutput } from "../test/meshinject-cli.js";

const root = fileURLToPath(new URL("../", import.meta.url));

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} takes a whole number above 0`);
  return value;
}

/** Writes exit-time figures of the child to stderr, after a marker line. */
const EXIT_HOOK = `data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nBENCH-MAXRSS "+u.maxRSS+" CPU "+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;

function injector(tag?: string): LoadedInjector {
  const files = defaultConfigFiles("");
  const values = JSON.parse(files.values) as { global: { tag: string } };
  if (tag !== undefined) values.global.tag = tag;
  return loadInjector({ ...files, values: JSON.stringify(values) });
}

/**
 * `count` pods of one owner, alike but for what the API server gives each: the first is made and
 * injected, the others are copies of it with their own token volume (as the webhook answers the
 * same for each, this is what injecting each would give, without the bench's set-up taking minutes).
 */
function replicas(count: number, make: (i: number) => Json, inject: LoadedInjector | undefined, alike = true): Json[] {
  const out: Json[] = [];
  let text: string | undefined;
  let token = "";
  for (let i = 0; i < count; i++) {
    const fresh = make(i);
    if (text === undefined || !alike || (fresh.metadata as Json).name !== undefined) {
      const p = created(fresh);
      const injected = inject === undefined ? p : webhookInjected(p, inject, "");
      token = String((injected.metadata as Json).tokenVolume);
      text = JSON.stringify(injected);
      out.push(stored(injected));
      continue;
    }
    const next = `kube-api-access-${(++copies).toString(36).padStart(5, "0")}`;
    out.push(stored(JSON.parse(text.replaceAll(token, next)) as Json));
  }
  return out;
}

let copies = 0;

/** The cluster's pods: about `total`, in the proportions the header describes. */
function clusterPods(total: number): Json[] {
  const today = injector();
  const older = injector("1.19.0");
  const pods: Json[] = [];
  const scale = total / 10_000;
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  for (let d = 0; d < n(150); d++) {
    const hash = `h${d.toString(36)}x`;
    const inject = d % 10 === 9 ? undefined : d % 3 === 0 ? older : today;
    const rs = { kind: "ReplicaSet", name: `app${d}-${hash}` };
    pods.push(
      ...replicas(
        60,
        () => pod(`ns${d % 20}`, `app${d}-${hash}`, { app: `app${d}`, "pod-template-hash": hash }, rs),
        inject,
      ),
    );
  }
  for (let s = 0; s < n(10); s++) {
    const owner = { kind: "StatefulSet", name: `db${s}` };
    pods.push(
      ...replicas(
        30,
        (i) => {
          const p = pod(`ns${s % 20}`, `db${s}`, { app: `db${s}` }, owner);
          (p.metadata as Json).name = `db${s}-${i}`;
          return p;
        },
        today,
      ),
    );
  }
  for (let s = 0; s < n(5); s++) {
    const owner = { kind: "DaemonSet", name: `agent${s}` };
    pods.push(
      ...replicas(
        40,
        (i) => {
          const p = pod(`ns${s % 20}`, `agent${s}`, { app: `agent${s}` }, owner);
          const term = { matchFields: [{ key: "metadata.name", operator: "In", values: [`node-${i}`] }] };
          (p.spec as Json).affinity = {
            nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } },
          };
          return p;
        },
        s % 2 === 0 ? older : today,
        false,
      ),
    );
  }
  for (let j = 0; j < n(100); j++) {
    const owner = { kind: "Job", name: `batch${j}` };
    pods.push(...replicas(2, () => pod(`ns${j % 20}`, `batch${j}`, { "job-name": `batch${j}` }, owner), today));
  }
  for (let b = 0; b < n(300); b++)
    pods.push(...replicas(1, () => pod(`ns${b % 20}`, `debug${b}`, { app: "debug" }), today));
  return pods.slice(0, total);
}

function clusterObjects(pods: Json[]): Json[] {
  const files = defaultConfigFiles("");
  const namespaces = Array.from({ length: 20 }, (_, i) => ({
    kind: "Namespace",
    metadata: { name: `ns${i}`, labels: { "kubernetes.io/metadata.name": `ns${i}`, "istio-injection": "enabled" } },
  }));
  return [
    ...namespaces,
    {
      kind: "ConfigMap",
      metadata: { name: "istio-sidecar-injector", namespace: "istio-system" },
      data: { config: files.config, values: files.values },
    },
    { kind: "ConfigMap", metadata: { name: "istio", namespace: "istio-system" }, data: { mesh: files.mesh } },
    webhookConfiguration(),
    ...pods,
  ];
}

interface ChildRun {
  maxRssKiB: number;
  /** User + system CPU of the child, in milliseconds. */
  cpuMs: number;
  wallMs: number;
  summary: string;
}

async function runDrift(kubeconfig: string): Promise<ChildRun> {
  const start = performance.now();
  const child = spawn(
    process.execPath,
    ["--import", EXIT_HOOK, "dist/cli/main.js", "drift", "--from-cluster", "--kubeconfig", kubeconfig],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  const out = childOutput(child);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    out.exited.then(resolve);
  });
  const rss = /BENCH-MAXRSS (\d+) CPU (\d+)/.exec(out.stderr);
  if (code !== 0 || rss === null) throw new Error(`drift exited with ${code}: ${out.stderr.slice(0, 800)}`);
  const summary = /^\d+ pods?: .*$/m.exec(out.stdout)?.[0] ?? "(no totals line)";
  return { maxRssKiB: Number(rss[1]), cpuMs: Number(rss[2]) / 1000, wallMs: performance.now() - start, summary };
}

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
const mib = (kib: number) => (kib / 1024).toFixed(1);

async function measure(total: number, dir: string): Promise<{ run: ChildRun; floorMs: number }> {
  const api = await startFakeApiServer(clusterObjects(clusterPods(total)));
  try {
    const kubeconfig = await api.kubeconfig(dir);
    const run = await runDrift(kubeconfig);
    // Floor: the pods listed a page at a time (the same client and page size), in this process.
    const cluster = await connectCluster({ kubeconfig });
    const t = performance.now();
    let listed = 0;
    for await (const page of cluster.list("/api/v1/pods", "pods")) listed += page.length;
    const floorMs = performance.now() - t;
    if (listed !== total) throw new Error(`listed ${listed} pods, not ${total}`);
    return { run, floorMs };
  } finally {
    await api.close();
  }
}

async function main(): Promise<void> {
  const total = flag("--pods", 10_000);
  if (process.argv.includes("--serve")) {
    // For profiling by hand: the cluster alone, until interrupted.
    const dir = await mkdtemp(join(tmpdir(), "meshinject-bench-drift-"));
    const api = await startFakeApiServer(clusterObjects(clusterPods(total)));
    console.log(await api.kubeconfig(dir));
    return;
  }
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const dir = await mkdtemp(join(tmpdir(), "meshinject-bench-drift-"));
  try {
    const small = await measure(Math.max(1, Math.round(total / 10)), dir);
    const big = await measure(total, dir);
    const growth = ((big.run.maxRssKiB - small.run.maxRssKiB) * 1024) / (total - Math.round(total / 10));
    console.log("(a) meshinject drift --from-cluster (dist/cli/main.js), fake API server on loopback");
    console.log(
      `    ${Math.round(total / 10)} pods: ${(small.run.wallMs / 1000).toFixed(1)} s (CPU ${(small.run.cpuMs / 1000).toFixed(1)} s), peak RSS ${mib(small.run.maxRssKiB)} MiB`,
    );
    console.log(
      `    ${total} pods: ${(big.run.wallMs / 1000).toFixed(1)} s (CPU ${(big.run.cpuMs / 1000).toFixed(1)} s), peak RSS ${mib(big.run.maxRssKiB)} MiB`,
    );
    console.log(
      `    load average during the runs: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(", ")} on ${availableParallelism()} CPUs`,
    );
    console.log(`    ${big.run.summary}`);
    console.log(`    growth: ${(growth / 1024).toFixed(2)} KiB per pod`);
    console.log(
      `(b) floor, the ${total} pods listed page by page in-process: ${(big.floorMs / 1000).toFixed(1)} s; drift/floor ${(big.run.wallMs / big.floorMs).toFixed(1)}`,
    );
    console.log(
      `${verdict(big.run.wallMs <= 20_000)} wall at ${total} pods ≤ 20 s: ${(big.run.wallMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `${verdict(big.run.maxRssKiB <= 300 * 1024)} peak RSS at ${total} pods ≤ 300 MiB: ${mib(big.run.maxRssKiB)} MiB`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
