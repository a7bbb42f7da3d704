/**
 * The template parser: recursive descent from lexer items to the syntax tree in node.ts, following
 * Go's text/template/parse grammar, scoping rules and error messages (`template: NAME:LINE: ...`).
 *
 * One call parses one text into a set of trees: the main one and each `{{define}}` / `{{block}}`.
 */

import { quote } from "../go/strconv.js";
import { unquoteChar, unquoteString } from "../go/unquote.js";
import { type Item, ItemType, itemString, lex } from "./lex.js";
import { parseGoNumber } from "./literal.js";
import type {
  ArgNode,
  ChainNode,
  CommandNode,
  ElseNode,
  EndNode,
  ListNode,
  Node,
  NumberNode,
  PipeNode,
  VariableNode,
} from "./node.js";
import { isEmptyTree, nodeString } from "./node.js";

/** A parsed template body. */
export interface Tree {
  /** The template's name (`main`, or the name given to define/block). */
  name: string;
  /** The name of the text it was parsed from: what error locations show. */
  readonly parseName: string;
  /** The full text it was parsed from, for error locations. */
  readonly text: string;
  root: ListNode;
}

/** A parse (or lex) error, in Go's form. */
export class ParseError extends Error {
  override name = "ParseError";
}

/** Deepest nesting of parentheses and control structures accepted, so that hostile input cannot exhaust the stack. */
export const MAX_PARSE_DEPTH = 1000;

export interface ParseOptions {
  /** Whether a function of this name is defined (Go checks at parse time). */
  hasFunction: (name: string) => boolean;
}

/** Parses `text` as template `name`; returns the trees by name (the main tree under `name`). */
export function parseTrees(name: string, text: string, options: ParseOptions): Map<string, Tree> {
  const items = lex(text, { breakOK: !options.hasFunction("break"), continueOK: !options.hasFunction("continue") });
  const treeSet = new Map<string, Tree>();
  const p = new Parser(name, text, items, options, treeSet);
  p.parseMain();
  return treeSet;
}

type Control = "if" | "with" | "range";

class Parser {
  /** Lookahead buffer as Go keeps it: token[0] is the item most recently read from the lexer. */
  private readonly token: Item[] = [];
  private peekCount = 0;
  private index = 0;
  /** Variables in scope, innermost last. */
  private vars: string[] = ["$"];
  private actionLine = 0;
  private rangeDepth = 0;
  private depth = 0;
  private tree: Tree;

  constructor(
    private readonly parseName: string,
    private readonly text: string,
    private readonly items: Item[],
    private readonly options: ParseOptions,
    private readonly treeSet: Map<string, Tree>,
  ) {
    this.tree = this.newTree(parseName);
  }

  private newTree(name: string): Tree {
    return { name, parseName: this.parseName, text: this.text, root: { kind: "list", pos: 0, nodes: [] } };
  }

  // ---- item access -------------------------------------------------------------------------------

  private lexNext(): Item {
    const item = this.items[this.index];
    if (this.index < this.items.length - 1) this.index++;
    return item as Item;
  }

  private next(): Item {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.lexNext();
    return this.token[this.peekCount] as Item;
  }

  private backup(): void {
    this.peekCount++;
  }

  /** Backs up two items; t1 is the one before token[0]. */
  private backup2(t1: Item): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }

  /** Backs up three items; t2 precedes t1, which precedes token[0]. */
  private backup3(t2: Item, t1: Item): void {
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }

  private peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1] as Item;
    this.peekCount = 1;
    this.token[0] = this.lexNext();
    return this.token[0];
  }

  private nextNonSpace(): Item {
    let item: Item;
    do item = this.next();
    while (item.type === ItemType.Space);
    return item;
  }

  private peekNonSpace(): Item {
    const item = this.nextNonSpace();
    this.backup();
    return item;
  }

  // ---- errors -----------------------------------------------------------------------------------

  private errorf(message: string): never {
    const line = this.token[0]?.line ?? 1;
    throw new ParseError(`template: ${this.parseName}:${line}: ${message}`);
  }

  private unexpected(item: Item, context: string): never {
    if (item.type === ItemType.Error) {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== item.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (item.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${item.val}${extra}`);
    }
    this.errorf(`unexpected ${itemString(item, quote)} in ${context}`);
  }

  private expect(type: ItemType, context: string): Item {
    const item = this.nextNonSpace();
    if (item.type !== type) this.unexpected(item, context);
    return item;
  }

  private enter(): void {
    if (++this.depth > MAX_PARSE_DEPTH) this.errorf("max expression depth exceeded");
  }

  // ---- structure --------------------------------------------------------------------------------

  parseMain(): void {
    const root = this.tree.root;
    while (this.peek().type !== ItemType.EOF) {
      if (this.peek().type === ItemType.LeftDelim) {
        const delim = this.next();
        if (this.nextNonSpace().type === ItemType.Define) {
          this.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") this.errorf(`unexpected ${nodeString(n)}`);
      root.nodes.push(n);
    }
    this.addTree(this.tree);
  }

  /** Adds a finished tree to the set; a non-empty redefinition is an error. */
  private addTree(tree: Tree): void {
    const existing = this.treeSet.get(tree.name);
    if (existing === undefined || isEmptyTree(existing.root)) {
      this.treeSet.set(tree.name, tree);
      return;
    }
    if (!isEmptyTree(tree.root)) this.errorf(`template: multiple definition of template ${quote(tree.name)}`);
  }

  /** Parses `{{define "name"}} ... {{end}}`; the `define` keyword has been read. */
  private parseDefinition(): void {
    const context = "define clause";
    const nameItem = this.nextNonSpace();
    if (nameItem.type !== ItemType.String && nameItem.type !== ItemType.RawString) this.unexpected(nameItem, context);
    const name = this.unquote(nameItem.val);
    this.expect(ItemType.RightDelim, context);
    this.withTree(this.newTree(name), () => {
      const [list, end] = this.itemList();
      if (end.kind !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
      this.tree.root = list;
    });
  }

  /** Runs `body` with `tree` as the current tree and a fresh variable scope, then adds the tree. */
  private withTree(tree: Tree, body: () => void): void {
    const saved = { tree: this.tree, vars: this.vars, rangeDepth: this.rangeDepth };
    this.tree = tree;
    this.vars = ["$"];
    this.rangeDepth = 0;
    body();
    this.addTree(tree);
    this.tree = saved.tree;
    this.vars = saved.vars;
    this.rangeDepth = saved.rangeDepth;
  }

  /** Parses nodes up to `{{end}}` or `{{else}}`, returning that terminator too. */
  private itemList(): [ListNode, EndNode | ElseNode] {
    const list: ListNode = { kind: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== ItemType.EOF) {
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") return [list, n];
      list.nodes.push(n);
    }
    this.errorf("unexpected EOF");
  }

  private textOrAction(): Node {
    const item = this.nextNonSpace();
    switch (item.type) {
      case ItemType.Text:
        return { kind: "text", pos: item.pos, text: item.val };
      case ItemType.LeftDelim: {
        this.actionLine = item.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      case ItemType.Comment:
        return { kind: "comment", pos: item.pos, text: item.val };
      default:
        this.unexpected(item, "input");
    }
  }

  private action(): Node {
    const item = this.nextNonSpace();
    switch (item.type) {
      case ItemType.Block:
        return this.blockControl();
      case ItemType.Break:
        return this.loopControl("break", item);
      case ItemType.Continue:
        return this.loopControl("continue", item);
      case ItemType.Else:
        return this.elseControl();
      case ItemType.End:
        return { kind: "end", pos: this.expect(ItemType.RightDelim, "end").pos };
      case ItemType.If:
        return this.control("if");
      case ItemType.Range:
        return this.control("range");
      case ItemType.Template:
        return this.templateControl();
      case ItemType.With:
        return this.control("with");
    }
    this.backup();
    const start = this.peek();
    // Variables declared here persist until the enclosing {{end}}.
    return { kind: "action", pos: start.pos, line: start.line, pipe: this.pipeline("command", ItemType.RightDelim) };
  }

  private loopControl(kind: "break" | "continue", item: Item): Node {
    const next = this.nextNonSpace();
    if (next.type !== ItemType.RightDelim) this.unexpected(next, `{{${kind}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${kind}}} outside {{range}}`);
    return { kind, pos: item.pos, line: item.line };
  }

  private elseControl(): ElseNode {
    const peek = this.peekNonSpace();
    // "{{else if ...}}" and "{{else with ...}}" read as "{{else}}{{if ...}}": leave the keyword pending.
    if (peek.type === ItemType.If || peek.type === ItemType.With) {
      return { kind: "else", pos: peek.pos, line: peek.line };
    }
    const item = this.expect(ItemType.RightDelim, "else");
    return { kind: "else", pos: item.pos, line: item.line };
  }

  /** Parses the rest of `{{if}}`, `{{with}}` or `{{range}}`, through its `{{end}}`. */
  private control(kind: Control): Node {
    this.enter();
    const varCount = this.vars.length;
    const pipe = this.pipeline(kind, ItemType.RightDelim);
    if (kind === "range") this.rangeDepth++;
    let [list, next] = this.itemList();
    if (kind === "range") this.rangeDepth--;
    let elseList: ListNode | null = null;
    if (next.kind === "else") {
      const chained = this.peek().type;
      if ((kind === "if" && chained === ItemType.If) || (kind === "with" && chained === ItemType.With)) {
        // An else-if (else-with) chain: parse the inner control, which consumes the single {{end}}.
        this.next();
        elseList = { kind: "list", pos: next.pos, nodes: [this.control(kind)] };
      } else {
        [elseList, next] = this.itemList();
        if (next.kind !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
      }
    }
    this.vars.length = varCount;
    this.depth--;
    return { kind, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
  }

  private templateName(item: Item, context: string): string {
    if (item.type !== ItemType.String && item.type !== ItemType.RawString) this.unexpected(item, context);
    return this.unquote(item.val);
  }

  private templateControl(): Node {
    const context = "template clause";
    const item = this.nextNonSpace();
    const name = this.templateName(item, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().type !== ItemType.RightDelim) {
      this.backup();
      // Variables declared here persist until the enclosing {{end}}.
      pipe = this.pipeline(context, ItemType.RightDelim);
    }
    return { kind: "template", pos: item.pos, line: item.line, name, pipe };
  }

  /** `{{block "name" pipeline}} body {{end}}`: defines `name` and invokes it here. */
  private blockControl(): Node {
    const context = "block clause";
    const item = this.nextNonSpace();
    const name = this.templateName(item, context);
    const pipe = this.pipeline(context, ItemType.RightDelim);
    this.withTree(this.newTree(name), () => {
      const [list, end] = this.itemList();
      if (end.kind !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
      this.tree.root = list;
    });
    return { kind: "template", pos: item.pos, line: item.line, name, pipe };
  }

  // ---- pipelines ---------------------------------------------------------------------------------

  private pipeline(context: string, end: ItemType): PipeNode {
    const start = this.peekNonSpace();
    const pipe: PipeNode = { kind: "pipe", pos: start.pos, line: start.line, isAssign: false, decl: [], cmds: [] };
    this.declarations(pipe, context);
    for (;;) {
      const item = this.nextNonSpace();
      if (item.type === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (item.type) {
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Complex:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(item, context);
      }
    }
  }

  /** Reads `$x :=`, `$x =` or (in range) `$i, $e :=` at the start of a pipeline. */
  private declarations(pipe: PipeNode, context: string): void {
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== ItemType.Variable) return;
      this.next();
      // Spaces are items, so "$x foo" needs three items of lookahead to tell from "$x := foo".
      const afterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.type === ItemType.Assign || next.type === ItemType.Declare) {
        pipe.isAssign = next.type === ItemType.Assign;
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
        return;
      }
      if (next.type === ItemType.Char && next.val === ",") {
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const t = this.peekNonSpace().type;
          if (t === ItemType.Variable || t === ItemType.RightDelim || t === ItemType.RightParen) continue;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      }
      if (afterVariable.type === ItemType.Space) this.backup3(v, afterVariable);
      else this.backup2(v);
      return;
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    // Only the first command may start with a non-executable operand.
    for (let i = 1; i < pipe.cmds.length; i++) {
      const first = (pipe.cmds[i] as CommandNode).args[0] as ArgNode;
      switch (first.kind) {
        case "bool":
        case "dot":
        case "nil":
        case "number":
        case "string":
          this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  private command(): CommandNode {
    const cmd: CommandNode = { kind: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace(); // skip leading spaces
      const operand = this.operand();
      if (operand !== null) cmd.args.push(operand);
      const item = this.next();
      if (item.type === ItemType.Space) continue;
      if (item.type === ItemType.RightDelim || item.type === ItemType.RightParen) this.backup();
      else if (item.type !== ItemType.Pipe) this.unexpected(item, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  private operand(): ArgNode | null {
    const term = this.term();
    if (term === null) return null;
    if (this.peek().type !== ItemType.Field) return term;
    const chain: ChainNode = { kind: "chain", pos: this.peek().pos, node: term, fields: [] };
    while (this.peek().type === ItemType.Field) chain.fields.push(this.next().val.slice(1));
    // Field and variable chains are flattened into the node, as Go's API has always done.
    switch (term.kind) {
      case "field":
        return { kind: "field", pos: chain.pos, ident: [...term.ident, ...chain.fields] };
      case "variable":
        return { kind: "variable", pos: chain.pos, ident: [...term.ident, ...chain.fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        this.errorf(`unexpected . after term ${quote(nodeString(term))}`);
    }
    return chain;
  }

  private term(): ArgNode | null {
    const item = this.nextNonSpace();
    switch (item.type) {
      case ItemType.Identifier:
        if (!this.options.hasFunction(item.val)) this.errorf(`function ${quote(item.val)} not defined`);
        return { kind: "identifier", pos: item.pos, ident: item.val };
      case ItemType.Dot:
        return { kind: "dot", pos: item.pos };
      case ItemType.Nil:
        return { kind: "nil", pos: item.pos };
      case ItemType.Variable:
        return this.useVar(item.pos, item.val);
      case ItemType.Field:
        return { kind: "field", pos: item.pos, ident: item.val.slice(1).split(".") };
      case ItemType.Bool:
        return { kind: "bool", pos: item.pos, value: item.val === "true" };
      case ItemType.CharConstant:
      case ItemType.Complex:
      case ItemType.Number:
        return this.number(item);
      case ItemType.LeftParen: {
        this.enter();
        const pipe = this.pipeline("parenthesized pipeline", ItemType.RightParen);
        this.depth--;
        return pipe;
      }
      case ItemType.String:
      case ItemType.RawString:
        return { kind: "string", pos: item.pos, quoted: item.val, text: this.unquote(item.val) };
    }
    this.backup();
    return null;
  }

  private number(item: Item): NumberNode {
    const result =
      item.type === ItemType.CharConstant
        ? charNumber(item.val)
        : parseGoNumber(item.val, item.type === ItemType.Complex);
    if (typeof result === "string") this.errorf(result);
    return { kind: "number", pos: item.pos, ...result };
  }

  private variable(pos: number, name: string): VariableNode {
    return { kind: "variable", pos, ident: name.split(".") };
  }

  private useVar(pos: number, name: string): VariableNode {
    const v = this.variable(pos, name);
    if (!this.vars.includes(v.ident[0] as string)) this.errorf(`undefined variable ${quote(v.ident[0] as string)}`);
    return v;
  }

  private unquote(literal: string): string {
    const s = unquoteString(literal);
    if (s === undefined) this.errorf("invalid syntax");
    return s;
  }
}

function charNumber(text: string): Omit<NumberNode, "kind" | "pos"> | string {
  const r = unquoteChar(text);
  if (r === undefined) return "invalid syntax";
  if (r === "malformed") return `malformed character constant: ${text}`;
  const v = BigInt(r);
  return {
    text,
    isInt: true,
    isUint: true,
    isFloat: true,
    isComplex: false,
    int: v,
    uint: v,
    float: r,
    complex: [0, 0],
  };
}
