/** Command-line arguments of the conformance runner. */
import { parseArgs } from "node:util";
import type { KindOptions } from "./result.js";

export const USAGE =
  "usage: npm run --silent conformance -- [--verbose] [--mode kube-inject|webhook] [--budget-ms N] DIR...";

/** Per-vector time budget; generous, since it only exists to stop runaway loops. */
const DEFAULT_BUDGET_MS = 10_000;

export interface RunArgs {
  dirs: string[];
  verbose: boolean;
  options: KindOptions;
}

export function parseRunArgs(argv: string[]): RunArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      verbose: { type: "boolean", short: "v", default: false },
      mode: { type: "string" },
      "budget-ms": { type: "string" },
    },
  });
  const mode = values.mode;
  if (mode !== undefined && mode !== "kube-inject" && mode !== "webhook") {
    throw new Error(`--mode must be kube-inject or webhook, not ${JSON.stringify(mode)}`);
  }
  const budgetMs = values["budget-ms"] === undefined ? DEFAULT_BUDGET_MS : Number(values["budget-ms"]);
  if (!Number.isInteger(budgetMs) || budgetMs <= 0) throw new Error("--budget-ms must be a positive integer");
  if (positionals.length === 0) throw new Error("no corpus folder given");
  return { dirs: positionals, verbose: values.verbose ?? false, options: { mode, budgetMs } };
}

/**
 * What to say when a corpus folder does not exist (a fresh clone has no ../shared/conformance, and
 * the shell then passes the glob of the README's command through unexpanded): where corpora come from.
 */
export function missingCorpusMessage(dir: string): string {
  return (
    `${dir} does not exist. The corpora are not part of the repository: they are generated from Istio's ` +
    "sources at a recorded commit (each corpus's FORMAT.md names its generator and the Istio commit) and " +
    "are provided next to the clone, as ../shared/conformance with one folder per corpus. Without them, " +
    "`npm test` skips the tests that read them, saying so."
  );
}
