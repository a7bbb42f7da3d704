/**
 * `npm run bench:startup`: how long the built `meshinject` binary (dist/cli/main.js, as a user runs
 * it) takes to start, do one small job and exit, for the commands a user runs by hand, against
 * `node -e 0` (Node's own start-up) measured in the same run.
 *
 * Each round runs every command once, in an order that rotates from round to round, so a change in
 * the machine's load falls on all of them alike; the first rounds warm the file system cache and are
 * not counted. Two figures per command, medians over the rounds: the wall-clock time of the whole
 * child process (spawn to exit), what a user waits for; and the CPU time (user + system) the child
 * reports for itself as it exits (process.cpuUsage(), through a preloaded file, the same for every
 * child), which a busy machine disturbs less. Target (issue 11): each command ≤ 2× `node -e 0`, in
 * wall-clock time.
 *
 *   npm run bench:startup                  # 15 counted rounds after 3 warm-up rounds
 *   npm run bench:startup -- --runs 40     # more rounds
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, printTable } from "./timing.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const bin = join(root, "dist", "cli", "main.js");
const TARGET_RATIO = 2;
const WARM_UP_ROUNDS = 3;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i < 0 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} wants a positive whole number`);
  return value;
}

const runs = flag("--runs", 15);

if (!existsSync(bin)) {
  console.error(`bench:startup: ${bin} is missing; run npm run build first`);
  process.exit(1);
}

interface Case {
  name: string;
  args: string[];
}

/** Runs `node ARGS`; its output, or an error naming the command when it fails. */
function node(args: readonly string[]): string {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const work = mkdtempSync(join(tmpdir(), "meshinject-startup-"));
try {
  // The injected manifest the report commands read, as in `kube-inject -f app.yaml | capture-rules -f -`.
  const injected = join(work, "curl.injected.yaml");
  writeFileSync(injected, node([bin, "kube-inject", "-f", "examples/curl.yaml"]));

  // Each child writes its CPU time (µs) on file descriptor 3 as it exits.
  const reportCpu = join(work, "report-cpu.cjs");
  writeFileSync(
    reportCpu,
    'process.on("exit", () => { const u = process.cpuUsage(); require("node:fs").writeSync(3, String(u.user + u.system)); });\n',
  );

  const baseline: Case = { name: "node -e 0", args: ["-e", "0"] };
  const commands: Case[] = [
    { name: "kube-inject -f examples/curl.yaml", args: [bin, "kube-inject", "-f", "examples/curl.yaml"] },
    {
      name: "check-inject -f examples/curl.yaml --namespace-labels istio-injection=enabled",
      args: [bin, "check-inject", "-f", "examples/curl.yaml", "--namespace-labels", "istio-injection=enabled"],
    },
    { name: "capture-rules -f INJECTED", args: [bin, "capture-rules", "-f", injected] },
    { name: "proxy-config -f INJECTED", args: [bin, "proxy-config", "-f", injected] },
  ];
  const cases = [baseline, ...commands];
  // Each command does its job: a failure here would be fast and look like a win.
  for (const c of commands) {
    if (node(c.args) === "") throw new Error(`${c.name}: no output`);
  }

  const wall = new Map<Case, number[]>(cases.map((c) => [c, []]));
  const cpu = new Map<Case, number[]>(cases.map((c) => [c, []]));
  for (let round = 0; round < WARM_UP_ROUNDS + runs; round++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(round + k) % cases.length] as Case;
      const start = process.hrtime.bigint();
      const r = spawnSync(process.execPath, ["-r", reportCpu, ...c.args], {
        cwd: root,
        stdio: ["ignore", "ignore", "ignore", "pipe"],
      });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (r.status !== 0) throw new Error(`${c.name} exited with ${r.status}`);
      const cpuMs = Number(String(r.output[3])) / 1000;
      if (!(cpuMs > 0)) throw new Error(`${c.name}: no CPU time reported`);
      if (round >= WARM_UP_ROUNDS) {
        wall.get(c)?.push(ms);
        cpu.get(c)?.push(cpuMs);
      }
    }
  }

  const base = median(wall.get(baseline) ?? []);
  const baseCpu = median(cpu.get(baseline) ?? []);
  const problems: string[] = [];
  const rows = [
    [
      "command (node dist/cli/main.js ...)",
      "wall ms",
      "× node -e 0",
      "CPU ms",
      "× node -e 0",
      `wall ≤ ${TARGET_RATIO}×`,
    ],
  ];
  rows.push([baseline.name, base.toFixed(1), "1.00", baseCpu.toFixed(1), "1.00", ""]);
  for (const c of commands) {
    const ms = median(wall.get(c) ?? []);
    const cpuMs = median(cpu.get(c) ?? []);
    const ratio = ms / base;
    const ok = ratio <= TARGET_RATIO;
    if (!ok) problems.push(`${c.name}: ${ratio.toFixed(2)}× node -e 0 (target ≤ ${TARGET_RATIO}×)`);
    rows.push([
      c.name,
      ms.toFixed(1),
      ratio.toFixed(2),
      cpuMs.toFixed(1),
      (cpuMs / baseCpu).toFixed(2),
      ok ? "ok" : "over",
    ]);
  }
  console.log(
    `Node ${process.version}, ${runs} interleaved rounds after ${WARM_UP_ROUNDS} warm-up rounds, medians; load average ${loadavg()[0]?.toFixed(2)}`,
  );
  printTable(rows);
  if (problems.length > 0) {
    console.log(`FAIL\n  ${problems.join("\n  ")}`);
    process.exitCode = 1;
  } else {
    console.log("PASS");
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
