/**
 * The `gotemplate` kind: Go text/template + Sprig vectors (see the corpus's FORMAT.md). Every
 * `*.json` file in the folder except corpus.json is an array of vectors. A vector passes when our
 * output equals Go's byte for byte, or, for an error vector, when we fail in the same phase; the
 * exact error message is graded separately.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";
import { Sandbox, type SandboxOutcome } from "../sandbox.js";
import type { EngineOutcome, VectorRequest } from "./gotemplate-run.js";

export interface Vector {
  name: string;
  template: string;
  data?: unknown;
  numbers?: "float" | "int";
  funcs?: "go" | "sprig";
  expect: { output: string } | { error: true; phase: "parse" | "exec"; message: string };
}

export interface Verdict {
  pass: boolean;
  /** For error vectors that pass: whether the message matched exactly too. */
  exactMessage?: boolean;
  reason?: string;
  expected: string;
  got: string;
}

function describeExpect(expect: Vector["expect"]): string {
  return "output" in expect ? `output ${shown(expect.output)}` : `${expect.phase} error ${shown(expect.message)}`;
}

function describeOutcome(outcome: SandboxOutcome<EngineOutcome>): string {
  if (!outcome.ok) return `no answer (${outcome.reason})`;
  const o = outcome.value;
  if (o.kind === "output") return `output ${shown(o.output)}`;
  if (o.kind === "error") return `${o.phase} error ${shown(o.message)}`;
  return `crash ${o.message}`;
}

/** Compares what the engine did with what the vector expects. */
export function judge(vector: Vector, outcome: SandboxOutcome<EngineOutcome>): Verdict {
  const expected = describeExpect(vector.expect);
  const got = describeOutcome(outcome);
  const fail = (reason: string): Verdict => ({ pass: false, reason, expected, got });
  if (!outcome.ok) return fail(outcome.reason);
  const o = outcome.value;
  if (o.kind === "crash") return fail("engine crashed");
  if ("output" in vector.expect) {
    if (o.kind === "error") return fail(`unexpected ${o.phase} error`);
    return o.output === vector.expect.output ? { pass: true, expected, got } : fail("output differs");
  }
  if (o.kind === "output") return fail("expected an error, got output");
  if (o.phase !== vector.expect.phase) return fail(`failed in ${o.phase} phase, expected ${vector.expect.phase}`);
  return { pass: true, exactMessage: o.message === vector.expect.message, expected, got };
}

/** Reads every vector file of the corpus folder, in file-name order. */
export async function loadVectors(dir: string): Promise<Array<{ file: string; vector: Vector }>> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json") && f !== "corpus.json").sort();
  const all: Array<{ file: string; vector: Vector }> = [];
  for (const file of files) {
    let vectors: unknown;
    try {
      vectors = JSON.parse(await readFile(join(dir, file), "utf8"));
    } catch (e) {
      throw new Error(`${file}: ${(e as Error).message}`);
    }
    if (!Array.isArray(vectors)) throw new Error(`${file}: expected a JSON array of vectors`);
    for (const vector of vectors as Vector[]) all.push({ file, vector });
  }
  return all;
}

function request(vector: Vector): VectorRequest {
  return {
    template: vector.template,
    data: vector.data ?? null,
    numbers: vector.numbers ?? "float",
    funcs: vector.funcs ?? "go",
  };
}

export async function runGotemplate(dir: string, options: KindOptions): Promise<KindResult> {
  const vectors = await loadVectors(dir);
  const sandbox = new Sandbox<VectorRequest, EngineOutcome>(new URL("./gotemplate-worker.ts", import.meta.url), {
    budgetMs: options.budgetMs,
  });
  const failures: Failure[] = [];
  const notes: Failure[] = [];
  let passed = 0;
  let errorVectors = 0;
  let rightPhase = 0;
  let exact = 0;
  let fatal: string | undefined;
  try {
    for (const { file, vector } of vectors) {
      const isError = !("output" in vector.expect);
      if (isError) errorVectors++;
      // Once the engine cannot even load, every vector fails for that one reason.
      const outcome: SandboxOutcome<EngineOutcome> =
        fatal === undefined ? await sandbox.run(request(vector)) : { ok: false, reason: fatal };
      if (!outcome.ok && outcome.fatal) fatal = outcome.reason;
      const verdict = judge(vector, outcome);
      const entry = { file, name: vector.name, expected: verdict.expected, got: verdict.got };
      if (!verdict.pass) {
        failures.push({ ...entry, reason: verdict.reason ?? "failed" });
        continue;
      }
      passed++;
      if (!isError) continue;
      rightPhase++;
      if (verdict.exactMessage) exact++;
      else notes.push({ ...entry, reason: "error message differs" });
    }
  } finally {
    await sandbox.close();
  }
  const grades = [`errors in right phase ${rightPhase}/${errorVectors}`, `exact messages ${exact}/${errorVectors}`];
  if (fatal !== undefined) grades.push(`engine failed to load: ${fatal}`);
  return { passed, total: vectors.length, details: grades.join(", "), failures, notes };
}
