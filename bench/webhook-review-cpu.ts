/**
 * CPU of one admission review in process (issue 11, target 1), next to the JSON floor measured in
 * the same run: ours = JSON.parse(body) → reviewBody() → JSON.stringify(answer), what the webhook's
 * handler does with a body; floor = JSON.parse(body) + JSON.stringify of the parsed review (the
 * cheapest full read and write of the same review). Usage:
 *
 *   npm run bench:webhook-review [-- --rounds 9]
 *
 * Pods: examples/admission-review.json (the curl pod), and the same pod whose container has 20, 200
 * and 2,000 env vars. Each pod gets a warm-up by count (2,000 reviews, bench/timing.ts), then
 * `--rounds` rounds, each timing ours and the floor of every pod in turn (interleaved, so all see
 * the same machine load; CPU time from process.cpuUsage, about 50 ms a timing); the figures are
 * medians of the rounds. Growth: the marginal time per env var of ours between 20 → 200 and
 * 200 → 2,000 (a linear cost keeps the ratio of the two near 1).
 *
 * Targets: curl review ≤ 12× its floor; the 2,000-env-var review ≤ 5× its floor; growth slope ratio
 * ≤ 1.5. Prints PASS/FAIL per target; exit 1 on a FAIL when run as a script.
 */

import { defaultConfigFiles } from "../src/inject/defaults.js";
import { loadInjector } from "../src/inject/injector.js";
import { reviewBody, type WebhookState } from "../src/webhook/admission.js";
import { chooseRuns, formatNs, printTable, warmUp } from "./timing.js";
import { EXAMPLE } from "./webhook-review.js";

/** The example review whose container has `n` env vars (n = 0: the example itself), as JSON text. */
export function reviewText(n: number): string {
  const review = structuredClone(EXAMPLE) as {
    request: { object: { spec: { containers: Record<string, unknown>[] } } };
  };
  const container = review.request.object.spec.containers[0];
  if (container === undefined) throw new Error("examples/admission-review.json has no container");
  if (n > 0) container.env = Array.from({ length: n }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
  return JSON.stringify(review);
}

export interface ReviewFigures {
  name: string;
  envVars: number;
  oursNs: number;
  floorNs: number;
  /** Median over the rounds of ours/floor. */
  ratio: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** ours = the handler's work on a body; checks once that it injects. */
function oursFor(text: string, state: WebhookState): () => unknown {
  const run = () => JSON.stringify(reviewBody(JSON.parse(text), "/inject", state).response);
  const answer = JSON.parse(run() as string) as { response?: { patchType?: string } };
  if (answer.response?.patchType !== "JSONPatch") throw new Error(`no JSONPatch in the answer: ${run()}`);
  return run;
}

/**
 * The mean CPU time (user + system, ns) of one run over `n` runs: CPU time rather than wall time,
 * so that time the process spends descheduled on a shared machine is not counted.
 */
function cpuRuns(run: () => unknown, n: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) run();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / n;
}

interface Subject {
  name: string;
  envVars: number;
  ours: () => unknown;
  floor: () => unknown;
  oursRuns: number;
  floorRuns: number;
  oursNs: number[];
  floorNs: number[];
  ratios: number[];
}

/**
 * Warm-up by count for every pod, then `rounds` rounds that each time ours and the floor of every
 * pod in turn (about 50 ms each), so that all figures see the same machine load.
 */
export function measureReviews(
  pods: readonly { name: string; envVars: number }[],
  state: WebhookState,
  rounds: number,
): ReviewFigures[] {
  const subjects: Subject[] = pods.map(({ name, envVars }) => {
    const text = reviewText(envVars);
    const ours = oursFor(text, state);
    const floor = () => JSON.stringify(JSON.parse(text));
    return { name, envVars, ours, floor, oursRuns: 0, floorRuns: 0, oursNs: [], floorNs: [], ratios: [] };
  });
  for (const s of subjects) {
    warmUp(s.ours);
    warmUp(s.floor);
  }
  for (const s of subjects) {
    s.oursRuns = chooseRuns(cpuRuns(s.ours, 20), 50_000_000);
    s.floorRuns = chooseRuns(cpuRuns(s.floor, 20), 50_000_000);
  }
  for (let r = 0; r < rounds; r++) {
    for (const s of subjects) {
      const o = cpuRuns(s.ours, s.oursRuns);
      const f = cpuRuns(s.floor, s.floorRuns);
      s.oursNs.push(o);
      s.floorNs.push(f);
      s.ratios.push(o / f);
    }
  }
  return subjects.map((s) => ({
    name: s.name,
    envVars: s.envVars,
    oursNs: median(s.oursNs),
    floorNs: median(s.floorNs),
    ratio: median(s.ratios),
  }));
}

export interface Verdict {
  target: string;
  value: string;
  pass: boolean;
}

/** Runs the in-process review measurements and returns the verdicts (also printed). */
export function reviewCpuBench(rounds: number): Verdict[] {
  const state: WebhookState = { injector: loadInjector(defaultConfigFiles()), revision: "", nativeSidecars: "off" };
  const sizes = [20, 200, 2000] as const;
  const [curl, ...bySize] = measureReviews(
    [
      { name: "curl pod review", envVars: 0 },
      ...sizes.map((n) => ({ name: `${n.toLocaleString("en-US")} env vars`, envVars: n })),
    ],
    state,
    rounds,
  ) as [ReviewFigures, ...ReviewFigures[]];
  const rows = [["review", "ours ns/op", "floor ns/op", "ours/floor (median of rounds)", "ns/env var (marginal)"]];
  let previous: ReviewFigures | undefined;
  const slopes: number[] = [];
  for (const r of [curl, ...bySize]) {
    let marginal = "-";
    if (previous !== undefined && r.envVars > 0) {
      const slope = (r.oursNs - previous.oursNs) / (r.envVars - previous.envVars);
      slopes.push(slope);
      marginal = formatNs(slope);
    }
    rows.push([r.name, formatNs(r.oursNs), formatNs(r.floorNs), `${r.ratio.toFixed(1)}x`, marginal]);
    if (r.envVars > 0) previous = r;
  }
  console.log(
    "\nreview() in process: ours = JSON.parse(body) -> reviewBody() -> JSON.stringify(answer); " +
      "floor = JSON.stringify(JSON.parse(body))",
  );
  printTable(rows);
  const env2000 = bySize[2] as ReviewFigures;
  const [slope200, slope2000] = slopes as [number, number];
  const slopeRatio = slope2000 / slope200;
  return [
    { target: "curl pod review() <= 12x its JSON floor", value: `${curl.ratio.toFixed(1)}x`, pass: curl.ratio <= 12 },
    {
      target: "2,000-env-var pod review() <= 5x its JSON floor",
      value: `${env2000.ratio.toFixed(1)}x`,
      pass: env2000.ratio <= 5,
    },
    {
      target: "cost linear in pod size: ns/env var 200->2,000 vs 20->200 <= 1.5",
      value: slopeRatio.toFixed(2),
      pass: slopeRatio <= 1.5,
    },
  ];
}

export function printVerdicts(verdicts: readonly Verdict[]): boolean {
  for (const v of verdicts) console.log(`${v.pass ? "PASS" : "FAIL"}  ${v.target}: ${v.value}`);
  return verdicts.every((v) => v.pass);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { numberFlag, parseFlags, printHeader } = await import("./webhook-harness.js");
  const flags = parseFlags({ rounds: "9" }, "usage: node --import tsx bench/webhook-review-cpu.ts [--rounds N]");
  printHeader("webhook review() CPU in process, next to the JSON floor of the same review");
  if (!printVerdicts(reviewCpuBench(numberFlag(flags, "rounds")))) process.exitCode = 1;
}
