/**
 * Conformance runner: `npm run --silent conformance -- [--verbose] [--mode kube-inject|webhook] [--budget-ms N] DIR...`
 *
 * Judges each corpus folder given (its kind is read from DIR/corpus.json) and prints one line per
 * folder, `conformance KIND NAME: P/T passed (details)`. Exits 1 when a folder is below its floor
 * in floors.json, 2 on a usage error or an unreadable corpus.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { missingCorpusMessage, parseRunArgs, type RunArgs, USAGE } from "./args.js";
import { belowFloor, loadFloors } from "./floors.js";
import { kinds } from "./kinds/index.js";
import { type KindResult, summaryLine, verboseLines } from "./result.js";

async function corpusKind(dir: string): Promise<string> {
  const corpus: unknown = JSON.parse(await readFile(join(dir, "corpus.json"), "utf8"));
  const kind = (corpus as { kind?: unknown } | null)?.kind;
  if (typeof kind !== "string") throw new Error(`${join(dir, "corpus.json")} has no "kind"`);
  return kind;
}

async function main(argv: string[]): Promise<number> {
  let args: RunArgs;
  try {
    args = parseRunArgs(argv);
  } catch (e) {
    console.error(`conformance: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const floors = await loadFloors(new URL("./floors.json", import.meta.url));
  let status = 0;
  for (const dir of args.dirs) {
    const name = basename(resolve(dir));
    if (!existsSync(dir)) {
      console.log(`conformance ? ${name}: ${missingCorpusMessage(dir)}`);
      status = Math.max(status, 2);
      continue;
    }
    let kind: string;
    try {
      kind = await corpusKind(dir);
    } catch (e) {
      console.log(`conformance ? ${name}: cannot read corpus: ${(e as Error).message}`);
      status = Math.max(status, 2);
      continue;
    }
    const runner = Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (runner === undefined) {
      console.log(`conformance ${kind} ${name}: no runner yet`);
      continue;
    }
    const started = performance.now();
    let result: KindResult;
    try {
      result = await runner(dir, args.options);
    } catch (e) {
      // A corpus the runner cannot read (malformed vector file, ...): report it, go on with the rest.
      console.log(`conformance ${kind} ${name}: runner failed: ${(e as Error).message}`);
      status = Math.max(status, 2);
      continue;
    }
    console.log(summaryLine(kind, name, result));
    if (args.verbose) {
      for (const line of verboseLines(result)) console.log(line);
      console.log(`  (${result.total} vectors in ${Math.round(performance.now() - started)} ms)`);
    }
    const below = belowFloor(floors, kind, name, result.passed, args.options.mode);
    if (below !== undefined) {
      console.log(below);
      status = Math.max(status, 1);
    }
  }
  return status;
}

process.exitCode = await main(process.argv.slice(2));
