/**
 * Differential testing against Go: generated templates (mostly valid, see src/template/gen-templates.ts) and data
 * go to the Go oracle and to our engine; the results must match. Not part of CI (it needs the oracle).
 *
 *   node --import tsx scripts/differential.ts [--count N] [--seed S] [--show K] [--out FILE]
 *
 * A case agrees when both outputs are equal, or both fail in the same phase with the same message.
 * Failing in the same phase with different messages is a lower-grade, "message-only" disagreement.
 * Exits 1 if any case disagrees on output or phase. --out writes every disagreement as JSON lines.
 *
 * The oracle is Go 1.19. Our engine also accepts two later additions, ranging over an integer
 * (Go 1.22) and `{{else with}}` (Go 1.23); cases where Go 1.19 rejects exactly those are counted
 * as "newer-go" and do not fail the run unless --strict is given. Neither do "utf8" cases: Go's
 * output holds invalid UTF-8 (a string cut inside a character), which our value model, JS strings,
 * represents as U+FFFD by design.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { locateOracle, Oracle, type OracleAnswer } from "../bench/oracle.js";
import { numbersMode, validCaseData, validTemplate } from "../src/template/gen-templates.js";
import { fromJSON, parse, sprigFuncs, TemplateError } from "../src/template/index.js";

interface Result {
  output?: string;
  /** Go's output was not valid UTF-8 (the oracle's output_b64). */
  invalidUtf8?: boolean;
  error?: string;
  phase?: string;
}

interface Disagreement {
  grade: "output" | "phase" | "message" | "newer-go" | "utf8";
  template: string;
  data: unknown;
  numbers: "float" | "int";
  go: Result;
  ours: Result;
}

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

function runOurs(template: string, data: unknown, numbers: "float" | "int"): Result {
  try {
    const t = parse("main", template, { funcs: sprigFuncs });
    return { output: t.execute(fromJSON(JSON.stringify(data ?? null), numbers)) };
  } catch (e) {
    if (e instanceof TemplateError) return { error: e.message, phase: e.phase };
    // Not a TemplateError at all: an engine bug, reported as its own phase so it always disagrees.
    return { error: e instanceof Error ? (e.stack ?? e.message) : String(e), phase: "crash" };
  }
}

/** Go's answer as a Result; a recovered Go panic counts as an error of its phase. */
function goResult(a: OracleAnswer): Result {
  if (a.error !== undefined) return { error: a.panic ? `panic: ${a.error}` : a.error, phase: a.phase };
  return { output: a.output, invalidUtf8: (a as { output_b64?: string }).output_b64 !== undefined };
}

/** Go 1.19 errors that a later Go (and our engine) does not raise. */
const NEWER_GO = [/range can't iterate over -?\d+$/, /unexpected <with> in else$/];

function grade(go: Result, ours: Result): Disagreement["grade"] | null {
  if (go.phase === undefined && ours.phase === undefined) {
    if (go.output === ours.output) return null;
    return go.invalidUtf8 || ours.output?.includes("\ufffd") ? "utf8" : "output";
  }
  if (go.phase === ours.phase && go.error === ours.error) return null;
  if (NEWER_GO.some((re) => re.test(go.error ?? ""))) return "newer-go";
  return go.phase === ours.phase ? "message" : "phase";
}

function show(d: Disagreement, i: number): string {
  const line = (label: string, r: Result) =>
    `  ${label}: ${r.phase === undefined ? `output ${JSON.stringify(r.output)}` : `${r.phase} error ${JSON.stringify(r.error)}`}`;
  return [
    `#${i + 1} [${d.grade}] numbers=${d.numbers}`,
    `  template: ${JSON.stringify(d.template)}`,
    `  data: ${JSON.stringify(d.data)}`,
    line("go  ", d.go),
    line("ours", d.ours),
  ].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: "string", default: "1000" },
      seed: { type: "string", default: "1" },
      show: { type: "string", default: "10" },
      out: { type: "string" },
      strict: { type: "boolean", default: false },
    },
  });
  const count = Number(values.count);
  const seed = Number(values.seed);
  const shown = Number(values.show);
  const cases = fc.sample(fc.tuple(validTemplate, validCaseData, numbersMode), { seed, numRuns: count });
  const oracle = new Oracle(locateOracle(repoRoot));
  const disagreements: Disagreement[] = [];
  let goErrors = 0;
  try {
    // The oracle answers in order; sending a batch at a time keeps its pipe busy.
    const BATCH = 200;
    for (let start = 0; start < cases.length; start += BATCH) {
      const batch = cases.slice(start, start + BATCH);
      const answers = await Promise.all(
        batch.map(([template, data, numbers]) => oracle.ask({ template, data, numbers, funcs: "sprig" })),
      );
      batch.forEach(([template, data, numbers], i) => {
        const go = goResult(answers[i] as OracleAnswer);
        if (go.phase !== undefined) goErrors++;
        const ours = runOurs(template, data, numbers);
        const g = grade(go, ours);
        if (g !== null) disagreements.push({ grade: g, template, data, numbers, go, ours });
      });
    }
  } finally {
    oracle.close();
  }
  const tally = (g: Disagreement["grade"]) => disagreements.filter((d) => d.grade === g).length;
  const isSerious = (d: Disagreement) =>
    d.grade === "output" || d.grade === "phase" || (values.strict && d.grade === "newer-go");
  const serious = disagreements.filter(isSerious);
  console.log(
    `differential: ${cases.length} cases, ${cases.length - disagreements.length} agree, ` +
      `${disagreements.length} disagree (${tally("message")} message-only, ` +
      `${tally("newer-go") + tally("utf8")} known: ${tally("newer-go")} newer-Go, ${tally("utf8")} invalid UTF-8); ` +
      `Go failed on ${goErrors}`,
  );
  // Output and phase disagreements first: they are the ones that matter.
  const ordered = [...serious, ...disagreements.filter((d) => !isSerious(d))];
  ordered.slice(0, shown).forEach((d, i) => {
    console.log(show(d, i));
  });
  if (values.out !== undefined) {
    writeFileSync(values.out, ordered.map((d) => JSON.stringify(d)).join("\n") + (ordered.length ? "\n" : ""));
  }
  process.exitCode = serious.length > 0 ? 1 : 0;
}

await main();
