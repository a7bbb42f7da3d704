/**
 * The template syntax tree: plain data, as Go's text/template/parse defines it. Each node knows its
 * position (a UTF-16 offset into the template text) and renders itself back to template source the
 * way Go's `Node.String()` does, because Go quotes that rendering in execution errors.
 */

export type Node =
  | ListNode
  | TextNode
  | ActionNode
  | CommentNode
  | PipeNode
  | CommandNode
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | FieldNode
  | ChainNode
  | BoolNode
  | NumberNode
  | StringNode
  | EndNode
  | ElseNode
  | IfNode
  | WithNode
  | RangeNode
  | BreakNode
  | ContinueNode
  | TemplateNode;

/** Nodes that may stand as a command argument (operands). */
export type ArgNode =
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | FieldNode
  | ChainNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode;

export interface ListNode {
  readonly kind: "list";
  readonly pos: number;
  readonly nodes: Node[];
}

export interface TextNode {
  readonly kind: "text";
  readonly pos: number;
  readonly text: string;
}

export interface CommentNode {
  readonly kind: "comment";
  readonly pos: number;
  readonly text: string;
}

export interface ActionNode {
  readonly kind: "action";
  readonly pos: number;
  readonly line: number;
  readonly pipe: PipeNode;
}

export interface PipeNode {
  readonly kind: "pipe";
  readonly pos: number;
  readonly line: number;
  isAssign: boolean;
  readonly decl: VariableNode[];
  readonly cmds: CommandNode[];
}

export interface CommandNode {
  readonly kind: "command";
  readonly pos: number;
  readonly args: ArgNode[];
}

export interface IdentifierNode {
  readonly kind: "identifier";
  readonly pos: number;
  readonly ident: string;
}

/** `$x` or `$x.Field.Chain`; ident[0] is the variable name including `$`. */
export interface VariableNode {
  readonly kind: "variable";
  readonly pos: number;
  readonly ident: string[];
}

export interface DotNode {
  readonly kind: "dot";
  readonly pos: number;
}

export interface NilNode {
  readonly kind: "nil";
  readonly pos: number;
}

/** `.A.B.C`, with ident `["A","B","C"]`. */
export interface FieldNode {
  readonly kind: "field";
  readonly pos: number;
  readonly ident: string[];
}

/** `(pipeline).A.B`: field access on a term that is not a field or variable. */
export interface ChainNode {
  readonly kind: "chain";
  readonly pos: number;
  readonly node: ArgNode;
  readonly fields: string[];
}

export interface BoolNode {
  readonly kind: "bool";
  readonly pos: number;
  readonly value: boolean;
}

/** A number literal with every reading of it that fits, as Go's parser computes them. */
export interface NumberNode {
  readonly kind: "number";
  readonly pos: number;
  readonly text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int: bigint;
  uint: bigint;
  float: number;
  /** Real and imaginary parts when isComplex. */
  complex: readonly [number, number];
}

export interface StringNode {
  readonly kind: "string";
  readonly pos: number;
  /** The literal as written, quotes included. */
  readonly quoted: string;
  readonly text: string;
}

export interface EndNode {
  readonly kind: "end";
  readonly pos: number;
}

export interface ElseNode {
  readonly kind: "else";
  readonly pos: number;
  readonly line: number;
}

interface BranchFields {
  readonly pos: number;
  readonly line: number;
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | null;
}

export interface IfNode extends BranchFields {
  readonly kind: "if";
}

export interface WithNode extends BranchFields {
  readonly kind: "with";
}

export interface RangeNode extends BranchFields {
  readonly kind: "range";
}

export interface BreakNode {
  readonly kind: "break";
  readonly pos: number;
  readonly line: number;
}

export interface ContinueNode {
  readonly kind: "continue";
  readonly pos: number;
  readonly line: number;
}

export interface TemplateNode {
  readonly kind: "template";
  readonly pos: number;
  readonly line: number;
  readonly name: string;
  readonly pipe: PipeNode | null;
}

/** Renders a node as Go's `String()` does. `quote` is strconv.Quote (for template names). */
export function nodeString(n: Node, quote: (s: string) => string = JSON.stringify): string {
  const str = (x: Node): string => nodeString(x, quote);
  switch (n.kind) {
    case "list":
      return n.nodes.map(str).join("");
    case "text":
      return n.text;
    case "comment":
      return `{{${n.text}}}`;
    case "action":
      return `{{${str(n.pipe)}}}`;
    case "pipe": {
      const decl = n.decl.length > 0 ? `${n.decl.map(str).join(", ")} := ` : "";
      return decl + n.cmds.map(str).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.kind === "pipe" ? `(${str(a)})` : str(a))).join(" ");
    case "identifier":
      return n.ident;
    case "variable":
      return n.ident.join(".");
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "field":
      return `.${n.ident.join(".")}`;
    case "chain": {
      const base = n.node.kind === "pipe" ? `(${str(n.node)})` : str(n.node);
      return [base, ...n.fields].join(".");
    }
    case "bool":
      return n.value ? "true" : "false";
    case "number":
      return n.text;
    case "string":
      return n.quoted;
    case "end":
      return "{{end}}";
    case "else":
      return "{{else}}";
    case "if":
    case "with":
    case "range": {
      const elsePart = n.elseList ? `{{else}}${str(n.elseList)}` : "";
      return `{{${n.kind} ${str(n.pipe)}}}${str(n.list)}${elsePart}{{end}}`;
    }
    case "break":
      return "{{break}}";
    case "continue":
      return "{{continue}}";
    case "template":
      return n.pipe ? `{{template ${quote(n.name)} ${str(n.pipe)}}}` : `{{template ${quote(n.name)}}}`;
  }
}

/** True when a tree holds nothing but white space text (Go's IsEmptyTree): such a definition may be replaced. */
export function isEmptyTree(n: Node): boolean {
  switch (n.kind) {
    case "list":
      return n.nodes.every(isEmptyTree);
    case "text":
      return n.text.trim().length === 0;
    case "comment":
      return true;
    default:
      return false;
  }
}
