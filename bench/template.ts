/**
 * Speed of our template engine next to Go's text/template + Sprig, on the shared cases
 * (../shared/bench/gotemplate/cases.json, plus our regex cases in template-regex-cases.json). Usage:
 *
 *   npm run bench:template [-- --runs N] [CASE...]
 *
 * For each case: Go's output and ns/op come from the oracle (ORACLE=path, or built on first use);
 * ours is parsed once and executed once, and only if the output equals Go's is it timed: a warm-up,
 * then N executions, reporting the mean. Without --runs, N is chosen per case so that the slower
 * side takes about half a second; both sides use the same N.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fromJSON, parse, sprigFuncs } from "../src/template/index.js";
import { locateOracle, Oracle, type OracleRequest } from "./oracle.js";
import { chooseRuns, formatNs, printTable, timeRuns, warmUp } from "./timing.js";

interface BenchCase extends OracleRequest {
  name: string;
}

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** One table row: timings, or why there are none. */
async function benchCase(c: BenchCase, oracle: Oracle, fixedRuns: number | undefined): Promise<string[]> {
  const request = { template: c.template, data: c.data, numbers: c.numbers, funcs: c.funcs, name: c.name };
  const go = await oracle.ask(request);
  let run: () => string;
  let ours: string;
  try {
    const template = parse(c.name, c.template, c.funcs === "sprig" ? { funcs: sprigFuncs } : undefined);
    const data = fromJSON(JSON.stringify(c.data ?? null), c.numbers ?? "float");
    run = () => template.execute(data);
    ours = run();
  } catch (e) {
    return [c.name, "-", "-", "-", `MISMATCH (ours failed: ${(e as Error).message})`];
  }
  if (go.output === undefined) return [c.name, "-", "-", "-", `MISMATCH (Go failed: ${go.error})`];
  if (ours !== go.output) return [c.name, "-", "-", "-", "MISMATCH (output differs from Go)"];
  // The same N for both sides, sized by the slower one.
  const goEstimate = fixedRuns === undefined ? ((await oracle.ask({ ...request, bench: 5 })).ns_per_op ?? 0) : 0;
  const runs = fixedRuns ?? chooseRuns(Math.max(goEstimate, timeRuns(run, 5)));
  const goTimed = await oracle.ask({ ...request, bench: runs });
  warmUp(run);
  const oursNs = timeRuns(run, runs);
  const goNs = goTimed.ns_per_op ?? Number.NaN;
  return [c.name, String(runs), formatNs(goNs), formatNs(oursNs), (goNs / oursNs).toFixed(2)];
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: "string" } } });
  const fixedRuns = values.runs === undefined ? undefined : Number(values.runs);
  if (fixedRuns !== undefined && (!Number.isInteger(fixedRuns) || fixedRuns <= 0)) {
    throw new Error("--runs must be a positive integer");
  }
  const cases = JSON.parse(
    readFileSync(new URL("../../shared/bench/gotemplate/cases.json", import.meta.url), "utf8"),
  ) as BenchCase[];
  // Our own cases for what the shared set does not exercise (Sprig's regex functions).
  cases.push(
    ...(JSON.parse(readFileSync(new URL("./template-regex-cases.json", import.meta.url), "utf8")) as BenchCase[]),
  );
  const selected = positionals.length ? cases.filter((c) => positionals.includes(c.name)) : cases;

  const oraclePath = locateOracle(repoRoot);
  console.log(`command: node ${[...process.execArgv, ...process.argv.slice(1)].join(" ")}`);
  console.log(`node ${process.version} (${process.platform} ${process.arch}); Go: ${oraclePath}`);
  const oracle = new Oracle(oraclePath);
  const rows: string[][] = [["case", "runs", "Go ns/op", "ours ns/op", "Go/ours"]];
  try {
    for (const c of selected) rows.push(await benchCase(c, oracle, fixedRuns));
  } finally {
    oracle.close();
  }
  printTable(rows);
  console.log("Go/ours above 1 means ours is faster.");
}

await main();
