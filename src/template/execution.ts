/**
 * The state of one execution, as Go's exec.go keeps it per call of Execute rather than in globals:
 * the template set being run (Helm's `include` and `tpl` reach it), the host, and how deep
 * `include`/`tpl` nest. Functions that need it are marked `execution` and receive it first.
 */
import { type GoFunc, type GoValue, goFunc, type ParamType } from "../go/value.js";
import type { TemplateHost } from "./host.js";

/**
 * What an execution reaches of the template set it runs (template.ts's Template): Helm's `include`
 * executes a named template of it, `tpl` parses text into a copy of it.
 */
export interface TemplateSet {
  readonly name: string;
  /** Executes the named template with `data` as dot, continuing the execution `run`. */
  executeTemplate(name: string, data: GoValue, run: Execution): string;
  /** A copy of the set that can be parsed into independently. */
  clone(): TemplateSet;
  /** Parses text into the set. */
  parse(text: string): TemplateSet;
}

export interface Execution {
  readonly template: TemplateSet;
  readonly host: TemplateHost;
  /** Nesting of `include` and `tpl` in this execution. */
  includeDepth: number;
}

/** Builds a {@link GoFunc} whose implementation receives the {@link Execution} before its arguments. */
export function executionFunc<A extends GoValue[]>(
  name: string,
  params: readonly ParamType[],
  impl: (run: Execution, ...args: A) => GoValue,
  returns?: string,
): GoFunc {
  return { ...goFunc(name, params, impl as (...args: GoValue[]) => GoValue, returns), execution: true };
}
