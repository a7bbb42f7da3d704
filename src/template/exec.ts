/**
 * Execution: compiles a parsed tree to JavaScript closures once, then runs them against data.
 *
 * The semantics are Go's text/template (exec.go): the same evaluation order, the same treatment of
 * missing values and nil interfaces, the same argument checks and the same error texts, including
 * the "executing NAME at <node>" context, which Go takes from the last node it visited. Variables
 * are resolved to slots at compile time (the parser's scoping makes that exact), statements return a
 * small code for break/continue instead of throwing, and output is built by string concatenation.
 */

import { formatTemplateValue, formatValue } from "../go/fmt.js";
import {
  byteLength,
  GO_TYPE,
  type GoFunc,
  type GoValue,
  isGoFunc,
  isGoObject,
  isMap,
  isTrue,
  type ParamType,
  sortedKeys,
  TypedNil,
  TypedNumber,
  typeName,
} from "../go/value.js";
import { ArgError, idealNumber, type LiteralNode, literalArg, validateArg } from "./args.js";
import type { Execution } from "./execution.js";
import type {
  ArgNode,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  ListNode,
  Node,
  PipeNode,
  RangeNode,
  TemplateNode,
  VariableNode,
} from "./node.js";
import { nodeString } from "./node.js";
import type { Tree } from "./parse.js";

/** Deepest nesting of `{{template}}` calls; Go allows 100000, a JavaScript stack holds fewer. */
export const MAX_EXEC_DEPTH = 1000;

/** An execution error, in Go's form. */
export class ExecError extends Error {
  override name = "ExecError";
}

/** Stands for "no value piped in" (Go's missingVal). */
const MISSING: unique symbol = Symbol("missing");
type Final = GoValue | typeof MISSING;

const NEXT = 0;
const BREAK = 1;
const CONTINUE = 2;
type Flow = typeof NEXT | typeof BREAK | typeof CONTINUE;

/** What a template body needs at run time. */
export interface ExecState {
  out: string;
  vars: GoValue[];
  /** The node most recently visited: the context of an error. */
  node: Node | null;
  tree: Tree;
  /** The name of the template executing (for "executing NAME"). */
  name: string;
  depth: number;
  env: ExecEnv;
  /** Whether dot has the static type interface{} (a range element of an interface{} container). */
  dotIface: boolean;
  /** The execution this state belongs to (host, template set, include depth). */
  run: Execution;
}

/** The functions and templates an execution can reach. */
export interface ExecEnv {
  funcs: Readonly<Record<string, GoFunc>>;
  builtins: Readonly<Record<string, GoFunc>>;
  /** A compiled template by name, or undefined. */
  template(name: string): CompiledTemplate | undefined;
}

export interface CompiledTemplate {
  readonly tree: Tree;
  readonly slots: number;
  readonly run: Stmt;
}

type Stmt = (st: ExecState, dot: GoValue) => Flow;
type Expr = (st: ExecState, dot: GoValue) => GoValue;
type Cmd = (st: ExecState, dot: GoValue, final: Final) => GoValue;

/** Reports an error at the current node, as Go's state.errorf does. */
export function execError(st: ExecState, message: string): never {
  const node = st.node;
  if (node === null) throw new ExecError(`template: ${st.name}: ${message}`);
  const { location, context } = errorContext(st.tree, node);
  throw new ExecError(`template: ${location}: executing ${JSON.stringify(st.name)} at <${context}>: ${message}`);
}

/** Go's Tree.ErrorContext: `NAME:LINE:COL` (COL a byte offset within the line) and the node's text. */
export function errorContext(tree: Tree, node: Node): { location: string; context: string } {
  const before = tree.text.slice(0, node.pos);
  const lastNewline = before.lastIndexOf("\n");
  const col = byteLength(before.slice(lastNewline + 1));
  let line = 1;
  for (let i = before.indexOf("\n"); i !== -1; i = before.indexOf("\n", i + 1)) line++;
  return { location: `${tree.parseName}:${line}:${col}`, context: nodeString(node) };
}

// ---- compiling -------------------------------------------------------------------------------------

/** Compile-time variable scope: slot i holds the variable named names[i]. */
class Scope {
  names: string[] = ["$"];
  max = 1;

  declare(name: string): number {
    this.names.push(name);
    this.max = Math.max(this.max, this.names.length);
    return this.names.length - 1;
  }

  lookup(name: string): number {
    return this.names.lastIndexOf(name);
  }
}

/** Compiles a tree into a runnable template. */
export function compileTree(tree: Tree, env: ExecEnv): CompiledTemplate {
  const c = new Compiler(env);
  const run = c.list(tree.root);
  return { tree, slots: c.scope.max, run };
}

class Compiler {
  readonly scope = new Scope();

  constructor(private readonly env: ExecEnv) {}

  list(list: ListNode): Stmt {
    const stmts = list.nodes.map((n) => this.node(n)).filter((s): s is Stmt => s !== null);
    if (stmts.length === 1) return stmts[0] as Stmt;
    return (st, dot) => {
      for (let i = 0; i < stmts.length; i++) {
        const flow = (stmts[i] as Stmt)(st, dot);
        if (flow !== NEXT) return flow;
      }
      return NEXT;
    };
  }

  private node(n: Node): Stmt | null {
    switch (n.kind) {
      case "text": {
        const text = n.text;
        return (st) => {
          st.out += text;
          return NEXT;
        };
      }
      case "comment":
        return null;
      case "action":
        return this.action(n.pipe);
      case "if":
      case "with":
        return this.ifOrWith(n.kind, n.pipe, n.list, n.elseList);
      case "range":
        return this.range(n);
      case "template":
        return this.templateCall(n);
      case "break":
        return () => BREAK;
      case "continue":
        return () => CONTINUE;
      case "list":
        return this.list(n);
      default:
        throw new Error(`internal error: unexpected ${n.kind} node in a list`);
    }
  }

  private action(pipe: PipeNode): Stmt {
    const evaluate = this.pipeline(pipe);
    if (pipe.decl.length > 0) {
      return (st, dot) => {
        evaluate(st, dot);
        return NEXT;
      };
    }
    return (st, dot) => {
      const v = evaluate(st, dot);
      if (typeof v === "string") st.out += v;
      else printValue(st, pipe, v);
      return NEXT;
    };
  }

  /** Compiles a branch list in a scope that starts as `mark` names and is restored afterwards. */
  private branch(list: ListNode | null, mark: number): Stmt | null {
    if (list === null) return null;
    const saved = this.scope.names.slice(mark);
    this.scope.names.length = mark;
    const stmt = this.list(list);
    this.scope.names.length = mark;
    this.scope.names.push(...saved);
    return stmt;
  }

  private ifOrWith(kind: "if" | "with", pipe: PipeNode, list: ListNode, elseList: ListNode | null): Stmt {
    const outer = this.scope.names.length;
    const evaluate = this.pipeline(pipe);
    const afterPipe = this.scope.names.length;
    const then = this.list(list);
    const otherwise = this.branch(elseList, afterPipe);
    this.scope.names.length = outer;
    if (kind === "if") {
      return (st, dot) => {
        if (isTrue(evaluate(st, dot))) return then(st, dot);
        return otherwise === null ? NEXT : otherwise(st, dot);
      };
    }
    return (st, dot) => {
      const v = evaluate(st, dot);
      if (isTrue(v)) {
        const savedIface = st.dotIface;
        st.dotIface = false;
        const flow = then(st, v);
        st.dotIface = savedIface;
        return flow;
      }
      return otherwise === null ? NEXT : otherwise(st, dot);
    };
  }

  private range(r: RangeNode): Stmt {
    const outer = this.scope.names.length;
    const evaluate = this.pipeline(r.pipe);
    const afterPipe = this.scope.names.length;
    const slots = r.pipe.decl.map((d) => this.scope.lookup(d.ident[0] as string));
    const body = this.list(r.list);
    const otherwise = this.branch(r.elseList, afterPipe);
    this.scope.names.length = outer;
    // One variable gets the element; two get index and element.
    const [first, second] = slots;
    const elemSlot = slots.length === 1 ? first : second;
    const indexSlot = slots.length === 2 ? first : undefined;

    const iterate = (st: ExecState, key: GoValue, elem: GoValue): Flow => {
      if (elemSlot !== undefined) st.vars[elemSlot] = elem;
      if (indexSlot !== undefined) st.vars[indexSlot] = key;
      return body(st, elem);
    };

    return (st, dot) => {
      st.node = r;
      const v = evaluate(st, dot);
      let ran = false;
      const savedIface = st.dotIface;
      try {
        if (Array.isArray(v) || v instanceof Uint8Array) {
          st.dotIface = !(GO_TYPE in v);
          for (let i = 0; i < v.length; i++) {
            ran = true;
            const elem = v instanceof Uint8Array ? new TypedNumber("uint8", BigInt(v[i] as number)) : v[i];
            if (iterate(st, BigInt(i), elem) === BREAK) break;
          }
        } else if (isMap(v)) {
          st.dotIface = !(GO_TYPE in v);
          for (const k of sortedKeys(v)) {
            ran = true;
            if (iterate(st, k, v[k]) === BREAK) break;
          }
        } else if (typeof v === "bigint") {
          // Go 1.22: ranging over an integer counts from 0.
          if (slots.length > 1) {
            execError(st, `can't use ${formatValue(v)} to iterate over more than one variable`);
          }
          st.dotIface = false;
          for (let i = 0n; i < v; i++) {
            ran = true;
            if (iterate(st, i, i) === BREAK) break;
          }
        } else if (v === undefined || v === null || v instanceof TypedNil) {
          // A nil map or slice: nothing to do, not an error.
        } else {
          execError(st, `range can't iterate over ${formatValue(v)}`);
        }
      } finally {
        st.dotIface = savedIface;
      }
      if (!ran && otherwise !== null) return otherwise(st, dot);
      return NEXT;
    };
  }

  private templateCall(t: TemplateNode): Stmt {
    const evaluate = t.pipe ? this.pipeline(t.pipe) : null;
    const name = t.name;
    return (st, dot) => {
      st.node = t;
      const tmpl = st.env.template(name);
      if (tmpl === undefined) execError(st, `template ${JSON.stringify(name)} not defined`);
      if (st.depth >= MAX_EXEC_DEPTH) execError(st, `exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
      // Without a pipeline the called template's dot is nil, not the caller's dot.
      const newDot = evaluate ? evaluate(st, dot) : undefined;
      runTemplate(st, tmpl, name, newDot);
      return NEXT;
    };
  }

  // ---- pipelines and commands ------------------------------------------------------------------

  pipeline(pipe: PipeNode): Expr {
    const cmds = pipe.cmds.map((c) => this.command(c));
    // Declarations take effect after the pipeline is compiled: `$x := $x` reads the outer $x.
    const assign = pipe.decl.map((d) => {
      const name = d.ident[0] as string;
      return pipe.isAssign ? this.scope.lookup(name) : this.scope.declare(name);
    });
    const undeclared = pipe.decl.find((_d, i) => assign[i] === -1);
    if (cmds.length === 1 && assign.length === 0) {
      const only = cmds[0] as Cmd;
      return (st, dot) => {
        st.node = pipe;
        const v = only(st, dot, MISSING);
        return v === null ? undefined : v;
      };
    }
    return (st, dot) => {
      st.node = pipe;
      let v: Final = MISSING;
      for (let i = 0; i < cmds.length; i++) {
        v = (cmds[i] as Cmd)(st, dot, v);
        // A nil inside an interface{} is no value once it leaves its container.
        if (v === null) v = undefined;
      }
      if (undeclared) execError(st, `undefined variable: ${undeclared.ident[0]}`);
      for (const slot of assign) st.vars[slot] = v;
      return v;
    };
  }

  private command(cmd: CommandNode): Cmd {
    const first = cmd.args[0] as ArgNode;
    switch (first.kind) {
      case "field":
        return this.fieldCommand(first, cmd.args);
      case "chain":
        return this.chainCommand(first, cmd.args);
      case "identifier":
        return this.functionCommand(first, cmd);
      case "pipe": {
        const inner = this.pipeline(first);
        return (st, dot, final) => {
          notAFunction(st, cmd.args, final);
          return inner(st, dot);
        };
      }
      case "variable":
        return this.variableCommand(first, cmd.args);
    }
    const literal = first;
    return (st, dot, final) => {
      st.node = literal;
      notAFunction(st, cmd.args, final);
      switch (literal.kind) {
        case "bool":
          return literal.value;
        case "dot":
          return dot;
        case "nil":
          return execError(st, "nil is not a command");
        case "number":
          return ideal(st, literal);
        case "string":
          return literal.text;
      }
    };
  }

  private fieldCommand(field: FieldNode, args: ArgNode[]): Cmd {
    const idents = field.ident;
    const call = this.methodArgs(args);
    if (args.length === 1 && idents.length <= 3) {
      // The common case, `.A.B` with nothing piped in, without the general machinery.
      return (st, dot, final) => {
        st.node = field;
        if (final !== MISSING) return fieldChain(st, dot, dot, idents, field, call, final, st.dotIface);
        let r = dot;
        let iface = st.dotIface;
        for (let i = 0; i < idents.length; i++) {
          const name = idents[i] as string;
          if (r !== null && typeof r === "object" && isMap(r) && !(GO_TYPE in r)) {
            r = Object.hasOwn(r, name) ? r[name] : undefined;
            iface = true;
          } else {
            r = evalField(st, dot, name, field, call, MISSING, r, iface);
            iface = false;
          }
        }
        return r;
      };
    }
    return (st, dot, final) => {
      st.node = field;
      return fieldChain(st, dot, dot, idents, field, call, final, st.dotIface);
    };
  }

  private chainCommand(chain: ChainNode, args: ArgNode[]): Cmd {
    const base = this.argEval(chain.node, "value");
    const call = this.methodArgs(args);
    return (st, dot, final) => {
      st.node = chain;
      if (chain.node.kind === "nil") execError(st, `indirection through explicit nil in ${nodeString(chain)}`);
      const receiver = base(st, dot);
      return fieldChain(st, dot, receiver, chain.fields, chain, call, final, false);
    };
  }

  private variableCommand(v: VariableNode, args: ArgNode[]): Cmd {
    const name = v.ident[0] as string;
    const slot = this.scope.lookup(name);
    const call = this.methodArgs(args);
    const fields = v.ident.slice(1);
    return (st, dot, final) => {
      st.node = v;
      if (slot < 0) execError(st, `undefined variable: ${name}`);
      const value = st.vars[slot];
      if (fields.length === 0) {
        notAFunction(st, args, final);
        return value;
      }
      return fieldChain(st, dot, value, fields, v, call, final, false);
    };
  }

  /** The arguments of a command whose first word may turn out to be a method (compiled per parameter type on demand). */
  private methodArgs(args: ArgNode[]): CallArgs {
    return { nodes: args.slice(1), compiled: new Map(), compiler: this };
  }

  private functionCommand(id: IdentifierNode, cmd: CommandNode): Cmd {
    const name = id.ident;
    const user = this.env.funcs[name];
    const fn = user ?? this.env.builtins[name];
    const isBuiltin = user === undefined && fn !== undefined;
    if (fn === undefined) {
      return (st) => {
        st.node = id;
        return execError(st, `${JSON.stringify(name)} is not a defined function`);
      };
    }
    const argNodes = cmd.args.slice(1);
    if (isBuiltin && (name === "and" || name === "or")) return this.andOr(id, name, argNodes);
    return this.call(id, cmd, fn, name, argNodes);
  }

  /** A call of a known function: arguments compiled against its parameter types. */
  private call(at: Node, errorNode: Node, fn: GoFunc, name: string, argNodes: ArgNode[]): Cmd {
    const numFixed = fn.variadic !== undefined ? fn.params.length : argNodes.length;
    // Surplus arguments get no parameter type ("value"): collectArgs rejects the count before evaluating them.
    const evals = argNodes.map((a, i) =>
      this.argEval(a, i < numFixed ? (fn.params[i] ?? "value") : (fn.variadic as ParamType)),
    );
    return (st, dot, final) => {
      st.node = at;
      const argv = collectArgs(st, dot, fn, name, evals, final);
      return safeCall(st, errorNode, fn, name, argv);
    };
  }

  /** `and` / `or`: evaluate left to right, stop at the first operand that decides, return it. */
  private andOr(id: IdentifierNode, name: "and" | "or", argNodes: ArgNode[]): Cmd {
    const evals = argNodes.map((a) => this.argEval(a, "value"));
    const stopWhen = name === "or";
    return (st, dot, final) => {
      st.node = id;
      const numIn = evals.length + (final === MISSING ? 0 : 1);
      if (numIn < 1) execError(st, `wrong number of args for ${name}: want at least 1 got ${evals.length}`);
      let v: GoValue;
      for (const e of evals) {
        v = e(st, dot);
        if (isTrue(v) === stopWhen) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    };
  }

  /** Compiles an argument for a parameter of type t (Go's evalArg). */
  argEval(a: ArgNode, t: ParamType): Expr {
    switch (a.kind) {
      case "dot":
        return (st, dot) => {
          st.node = a;
          return checked(st, dot, t);
        };
      case "field": {
        const cmd = this.fieldCommand(a, [a]);
        return (st, dot) => {
          st.node = a;
          return checked(st, cmd(st, dot, MISSING), t);
        };
      }
      case "variable": {
        const cmd = this.variableCommand(a, [a]);
        return (st, dot) => {
          st.node = a;
          return checked(st, cmd(st, dot, MISSING), t);
        };
      }
      case "pipe": {
        const p = this.pipeline(a);
        return (st, dot) => {
          st.node = a;
          return checked(st, p(st, dot), t);
        };
      }
      case "chain": {
        const cmd = this.chainCommand(a, [a]);
        return (st, dot) => {
          st.node = a;
          return checked(st, cmd(st, dot, MISSING), t);
        };
      }
      case "identifier": {
        const cmd = this.functionCommand(a, { kind: "command", pos: a.pos, args: [a] });
        const callNode = a;
        return (st, dot) => {
          st.node = callNode;
          return checked(st, cmd(st, dot, MISSING), t);
        };
      }
      default: {
        const literal = a as LiteralNode & ArgNode;
        const text = nodeString(a);
        try {
          // Literals are constant: convert once, unless the conversion fails (then fail when executed).
          const value = literalArg(literal, t, text);
          return (st) => {
            st.node = a;
            return value;
          };
        } catch (e) {
          if (!(e instanceof ArgError)) throw e;
          const message = e.message;
          return (st) => {
            st.node = a;
            return execError(st, message);
          };
        }
      }
    }
  }
}

interface CallArgs {
  readonly nodes: ArgNode[];
  readonly compiled: Map<string, Expr[]>;
  readonly compiler: Compiler;
}

const NO_ARGS: CallArgs = { nodes: [], compiled: new Map(), compiler: null as unknown as Compiler };

function checked(st: ExecState, v: GoValue, t: ParamType): GoValue {
  if (t === "value") return v;
  if (t === "any") return v === undefined ? null : v;
  try {
    return validateArg(v, t);
  } catch (e) {
    if (e instanceof ArgError) execError(st, e.message);
    throw e;
  }
}

function ideal(st: ExecState, n: Extract<Node, { kind: "number" }>): GoValue {
  try {
    return idealNumber(n);
  } catch (e) {
    if (e instanceof ArgError) execError(st, e.message);
    throw e;
  }
}

function notAFunction(st: ExecState, args: ArgNode[], final: Final): void {
  if (args.length > 1 || final !== MISSING) {
    execError(st, `can't give argument to non-function ${nodeString(args[0] as ArgNode)}`);
  }
}

function collectArgs(st: ExecState, dot: GoValue, fn: GoFunc, name: string, evals: Expr[], final: Final): GoValue[] {
  const numIn = evals.length + (final === MISSING ? 0 : 1);
  const numParams = fn.params.length;
  if (fn.variadic !== undefined) {
    if (numIn < numParams) {
      execError(st, `wrong number of args for ${name}: want at least ${numParams} got ${evals.length}`);
    }
  } else if (numIn !== numParams) {
    execError(st, `wrong number of args for ${name}: want ${numParams} got ${numIn}`);
  }
  const argv = new Array<GoValue>(numIn);
  for (let i = 0; i < evals.length; i++) argv[i] = (evals[i] as Expr)(st, dot);
  if (final !== MISSING) {
    const t = numIn - 1 < numParams ? (fn.params[numIn - 1] as ParamType) : (fn.variadic as ParamType);
    argv[numIn - 1] = checked(st, final, t);
  }
  return argv;
}

/** Calls a function, turning a thrown error (Go: returned error or recovered panic) into "error calling NAME". */
function safeCall(st: ExecState, errorNode: Node, fn: GoFunc, name: string, argv: GoValue[]): GoValue {
  try {
    return fn.execution ? fn.fn(st.run, ...argv) : fn.fn(...argv);
  } catch (e) {
    st.node = errorNode;
    const message = e instanceof Error ? e.message : String(e);
    return execError(st, `error calling ${name}: ${message}`);
  }
}

function fieldChain(
  st: ExecState,
  dot: GoValue,
  receiver: GoValue,
  idents: readonly string[],
  node: Node,
  call: CallArgs,
  final: Final,
  iface: boolean,
): GoValue {
  let r = receiver;
  let rIface = iface;
  const last = idents.length - 1;
  for (let i = 0; i < last; i++) {
    const next = evalField(st, dot, idents[i] as string, node, NO_ARGS, MISSING, r, rIface);
    rIface = isMap(r) && !(GO_TYPE in r);
    r = next;
  }
  return evalField(st, dot, idents[last] as string, node, call, final, r, rIface);
}

/**
 * Evaluates `.name` on a receiver: a method call, a struct field or a map entry (Go's evalField).
 * `iface` says the receiver's static type is interface{}, which is what Go names in errors.
 */
function evalField(
  st: ExecState,
  dot: GoValue,
  name: string,
  node: Node,
  call: CallArgs,
  final: Final,
  receiver: GoValue,
  iface: boolean,
): GoValue {
  if (receiver === undefined) return undefined; // missing key: the value stays missing
  if (receiver === null) execError(st, `nil pointer evaluating interface {}.${name}`);
  const hasArgs = call.nodes.length > 0 || final !== MISSING;
  if (isGoObject(receiver)) {
    const method = receiver.goMethod?.(name);
    if (method !== undefined) return callMethod(st, dot, method, node, name, call, final);
    const field = receiver.goField(name);
    if (field !== undefined) {
      if (receiver.goIsNil?.()) execError(st, `nil pointer evaluating ${staticTypeOf(receiver, iface)}.${name}`);
      if (hasArgs) execError(st, `${name} has arguments but cannot be invoked as function`);
      return field;
    }
  } else if (typeof receiver === "object" && isMap(receiver)) {
    const type = (receiver as { [GO_TYPE]?: string })[GO_TYPE];
    if (type === undefined || type.startsWith("map[string]")) {
      if (hasArgs) execError(st, `${name} is not a method but has arguments`);
      return Object.hasOwn(receiver, name) ? receiver[name] : undefined;
    }
  } else if (receiver instanceof TypedNil) {
    if (receiver.type.startsWith("map[string]")) {
      if (hasArgs) execError(st, `${name} is not a method but has arguments`);
      return undefined;
    }
    if (receiver.type.startsWith("*")) execError(st, `nil pointer evaluating ${staticTypeOf(receiver, iface)}.${name}`);
  }
  return execError(st, `can't evaluate field ${name} in type ${staticTypeOf(receiver, iface)}`);
}

/** The static type of a receiver as Go's errors name it (worked out only for an error). */
function staticTypeOf(receiver: GoValue, iface: boolean): string {
  return iface ? "interface {}" : typeName(receiver);
}

function callMethod(
  st: ExecState,
  dot: GoValue,
  method: GoFunc,
  node: Node,
  name: string,
  call: CallArgs,
  final: Final,
): GoValue {
  const key = [...method.params, method.variadic ?? ""].join(",");
  let evals = call.compiled.get(key);
  if (evals === undefined) {
    const numFixed = method.variadic !== undefined ? method.params.length : call.nodes.length;
    evals = call.nodes.map((a, i) =>
      call.compiler.argEval(a, i < numFixed ? (method.params[i] as ParamType) : (method.variadic as ParamType)),
    );
    call.compiled.set(key, evals);
  }
  const argv = collectArgs(st, dot, method, name, evals, final);
  return safeCall(st, node, method, name, argv);
}

/** Writes a value as an action prints it (Go's printValue). */
function printValue(st: ExecState, node: Node, v: GoValue): void {
  st.node = node;
  if (v === undefined) {
    st.out += "<no value>";
    return;
  }
  if (isGoFunc(v)) execError(st, `can't print ${nodeString(node)} of type ${typeName(v)}`);
  st.out += formatTemplateValue(v);
}

/** Runs a compiled template with a fresh variable scope (`$` = dot), appending to st.out. */
export function runTemplate(st: ExecState, tmpl: CompiledTemplate, name: string, dot: GoValue): void {
  const saved = { vars: st.vars, tree: st.tree, name: st.name, dotIface: st.dotIface };
  st.vars = new Array(tmpl.slots);
  st.vars[0] = dot;
  st.tree = tmpl.tree;
  st.name = name;
  st.dotIface = false;
  st.depth++;
  try {
    tmpl.run(st, dot);
  } finally {
    st.depth--;
    st.vars = saved.vars;
    st.tree = saved.tree;
    st.name = saved.name;
    st.dotIface = saved.dotIface;
  }
}
