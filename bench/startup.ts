/**
 * `npm run bench:startup`: how long the built `meshinject` binary (dist/cli/main.js, as a user runs
 * it) takes to start, do one small job and exit, for the commands a user runs by hand, against
 * `node -e 0` (Node's own start-up) measured in the same run.
 *
 * Each round runs every command once, in an order that rotates from round to round, so a change in
 * the machine's load falls on all of them alike; the first rounds warm the file system cache and are
 * not counted. Wall-clock time of the whole child process (spawn to exit), medians over the rounds.
 * Target (issue 11): each command ≤ 2× `node -e 0`.
 *
 *   npm run bench:startup                  # 15 counted rounds after 3 warm-up rounds
 *   npm run bench:startup -- --runs 40     # more rounds
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { printTable } from "./timing.js";

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

  const times = new Map<Case, number[]>(cases.map((c) => [c, []]));
  for (let round = 0; round < WARM_UP_ROUNDS + runs; round++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(round + k) % cases.length] as Case;
      const start = process.hrtime.bigint();
      const r = spawnSync(process.execPath, c.args, { cwd: root, stdio: "ignore" });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (r.status !== 0) throw new Error(`${c.name} exited with ${r.status}`);
      if (round >= WARM_UP_ROUNDS) times.get(c)?.push(ms);
    }
  }

  const median = (xs: readonly number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const mid = s.length >> 1;
    return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  };
  const base = median(times.get(baseline) ?? []);
  const problems: string[] = [];
  const rows = [["command (node dist/cli/main.js ...)", "median ms", "× node -e 0", `≤ ${TARGET_RATIO}×`]];
  rows.push([baseline.name, base.toFixed(1), "1.00", ""]);
  for (const c of commands) {
    const ms = median(times.get(c) ?? []);
    const ratio = ms / base;
    const ok = ratio <= TARGET_RATIO;
    if (!ok) problems.push(`${c.name}: ${ratio.toFixed(2)}× node -e 0 (target ≤ ${TARGET_RATIO}×)`);
    rows.push([c.name, ms.toFixed(1), ratio.toFixed(2), ok ? "ok" : "over"]);
  }
  console.log(`Node ${process.version}, ${runs} interleaved rounds after ${WARM_UP_ROUNDS} warm-up rounds, wall clock`);
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
