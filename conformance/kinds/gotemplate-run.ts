/**
 * Runs one gotemplate vector through our engine, the way FORMAT.md's Go snippet runs it. Shared by
 * the sandbox worker (gotemplate-worker.ts) and anything else that needs the same semantics.
 */
import { fromJSON, parse, sprigFuncs, TemplateError } from "../../src/template/index.js";

export interface VectorRequest {
  template: string;
  data: unknown;
  numbers: "float" | "int";
  funcs: "go" | "sprig";
}

export type EngineOutcome =
  | { kind: "output"; output: string }
  | { kind: "error"; phase: "parse" | "exec"; message: string }
  /** Anything other than a TemplateError escaped the engine: a bug, whatever the vector expects. */
  | { kind: "crash"; message: string };

export function runVector(request: VectorRequest): EngineOutcome {
  try {
    const funcs = request.funcs === "sprig" ? { funcs: sprigFuncs } : undefined;
    const template = parse("main", request.template, funcs);
    const data = fromJSON(JSON.stringify(request.data ?? null), request.numbers);
    return { kind: "output", output: template.execute(data) };
  } catch (e) {
    if (e instanceof TemplateError) return { kind: "error", phase: e.phase, message: e.message };
    return { kind: "crash", message: describeCrash(e) };
  }
}

/** `Name: message` plus the innermost stack frame, enough to find the bug. */
function describeCrash(e: unknown): string {
  if (!(e instanceof Error)) return `non-Error thrown: ${String(e)}`;
  const frame = e.stack
    ?.split("\n")
    .find((line) => line.trimStart().startsWith("at "))
    ?.trim();
  return `${e.name}: ${e.message}${frame ? ` (${frame})` : ""}`;
}
