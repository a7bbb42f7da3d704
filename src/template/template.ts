/**
 * The public face of the engine: a named set of templates (the main one and those it defines),
 * parsed once, compiled to closures on first use, executed against Go-model data.
 */

import type { GoFunc, GoValue } from "../go/value.js";
import { builtinFuncs } from "./builtins.js";
import { type CompiledTemplate, compileTree, type ExecEnv, ExecError, type ExecState, runTemplate } from "./exec.js";
import type { Execution, TemplateSet } from "./execution.js";
import { hostWithLookup, type TemplateHost, templateHost, withResolvedNames } from "./host.js";
import { isEmptyTree } from "./node.js";
import { ParseError, parseTrees, type Tree } from "./parse.js";

/** A template failed to parse or to execute; the message is Go's. */
export class TemplateError extends Error {
  override name = "TemplateError";
  constructor(
    message: string,
    readonly phase: "parse" | "exec",
  ) {
    super(message);
  }
}

export interface TemplateOptions {
  /** Functions added to the builtins; a function of a builtin's name replaces it (Sprig's `slice` does). */
  funcs?: Readonly<Record<string, GoFunc>>;
  /** What executions see of the outside (env, clock, name resolution); default: nothing set, nothing resolves. */
  host?: TemplateHost;
}

export class Template implements ExecEnv, TemplateSet {
  readonly funcs: Readonly<Record<string, GoFunc>>;
  readonly builtins = builtinFuncs;
  readonly host: TemplateHost;
  private readonly trees = new Map<string, Tree>();
  private readonly compiled = new Map<string, CompiledTemplate>();

  constructor(
    readonly name: string,
    options: TemplateOptions = {},
  ) {
    this.funcs = { ...options.funcs };
    this.host = options.host ?? templateHost();
  }

  /** Parses text into this set: the main body becomes template `name`, each define its own. */
  parse(text: string): this {
    let trees: Map<string, Tree>;
    try {
      trees = parseTrees(this.name, text, {
        hasFunction: (fn) => Object.hasOwn(this.funcs, fn) || Object.hasOwn(this.builtins, fn),
      });
    } catch (e) {
      throw asTemplateError(e, "parse");
    }
    for (const [name, tree] of trees) {
      const old = this.trees.get(name);
      // An empty body does not replace an existing definition (so a file of defines keeps the main body).
      if (old !== undefined && isEmptyTree(tree.root)) continue;
      this.trees.set(name, tree);
      this.compiled.delete(name);
    }
    return this;
  }

  /** A copy of this set (same functions, same parsed trees) that can be parsed into independently. */
  clone(name: string = this.name): Template {
    const copy = new Template(name, { funcs: this.funcs, host: this.host });
    for (const [n, tree] of this.trees) copy.trees.set(n, tree);
    return copy;
  }

  /** Names of the templates defined in this set. */
  templateNames(): string[] {
    return [...this.trees.keys()];
  }

  hasTemplate(name: string): boolean {
    return this.trees.has(name);
  }

  /** A compiled template by name (ExecEnv). */
  template(name: string): CompiledTemplate | undefined {
    let c = this.compiled.get(name);
    if (c === undefined) {
      const tree = this.trees.get(name);
      if (tree === undefined) return undefined;
      c = compileTree(tree, this);
      this.compiled.set(name, c);
    }
    return c;
  }

  /** Executes the main template with `data` as dot; returns the output. `host` replaces the template's. */
  execute(data: GoValue, host: TemplateHost = this.host): string {
    return this.executeTemplate(this.name, data, this.newExecution(host));
  }

  /**
   * {@link execute} for a host that resolves names asynchronously: when the execution asked for host
   * names the host did not know, they are resolved (never blocking the event loop) and the template
   * runs again, until every name asked for has been resolved once.
   */
  async executeAsync(data: GoValue, host: TemplateHost = this.host): Promise<string> {
    return withResolvedNames(host, (lookupHost) => this.execute(data, hostWithLookup(host, lookupHost)));
  }

  private newExecution(host: TemplateHost): Execution {
    return { template: this, host, includeDepth: 0 };
  }

  /**
   * Executes the named template with `data` as dot; returns the output. `run` continues an execution
   * under way (Helm's `include` and `tpl`); without it a new one starts with this template's host.
   */
  executeTemplate(name: string, data: GoValue, run: Execution = this.newExecution(this.host)): string {
    try {
      const tmpl = this.template(name);
      // A nil interface handed to Execute is no value at all.
      const dot = data === null ? undefined : data;
      const st: ExecState = {
        out: "",
        vars: [],
        node: null,
        tree: tmpl?.tree ?? { name, parseName: name, text: "", root: { kind: "list", pos: 0, nodes: [] } },
        name,
        depth: 0,
        env: this,
        dotIface: false,
        run: run.template === this ? run : { ...run, template: this },
      };
      if (tmpl === undefined) {
        const message =
          this.trees.size === 0 && name === this.name ? "is an incomplete or empty template" : "is undefined";
        throw new ExecError(`template: ${name}: ${JSON.stringify(name)} ${message}`);
      }
      runTemplate(st, tmpl, name, dot);
      return st.out;
    } catch (e) {
      throw asTemplateError(e, "exec");
    }
  }
}

/** Maps anything thrown while parsing or executing to a TemplateError: callers never see a crash. */
function asTemplateError(e: unknown, phase: "parse" | "exec"): TemplateError {
  if (e instanceof TemplateError) return e;
  if (e instanceof ParseError || e instanceof ExecError) return new TemplateError(e.message, phase);
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new TemplateError(`template: ${phase === "parse" ? "parse" : "exec"}: nesting too deep`, phase);
  }
  const message = e instanceof Error ? e.message : String(e);
  return new TemplateError(`template: internal error: ${message}`, phase);
}

/** Parses `text` as template `name` with the given functions. */
export function parse(name: string, text: string, options: TemplateOptions = {}): Template {
  return new Template(name, options).parse(text);
}
