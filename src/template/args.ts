/**
 * How a value or a literal becomes a function argument: Go checks every argument against the
 * parameter's type (text/template's validateType and evalArg), and number literals take the type of
 * the parameter they are passed to. The error texts are Go's.
 */

import { Complex, type GoValue, type ParamType, TypedNil, TypedNumber, typeName } from "../go/value.js";
import type { NumberNode } from "./node.js";

/** Thrown for a Go-side argument error; the executor adds location and context. */
export class ArgError extends Error {}

/** Go types whose zero value is nil (so a missing value converts to a typed nil). */
export function canBeNil(t: ParamType): boolean {
  return (
    t === "any" ||
    t === "value" ||
    t.startsWith("[]") ||
    t.startsWith("map[") ||
    t.startsWith("*") ||
    t.startsWith("func") ||
    t === "error" ||
    t.startsWith("interface")
  );
}

/** Go's validateType: checks (and adapts) an evaluated value for a parameter of type t. */
export function validateArg(v: GoValue, t: ParamType): GoValue {
  if (t === "value") return v;
  if (t === "any") return v === undefined ? null : v;
  if (v === undefined) {
    if (canBeNil(t)) return new TypedNil(t);
    throw new ArgError(`invalid value; expected ${t}`);
  }
  if (v === null) throw new ArgError(`wrong type for value; expected ${t}; got interface {}`);
  const actual = typeName(v);
  if (actual === t) return v;
  // A pointer passed where its element type is wanted is dereferenced (Go tries one indirection).
  if (actual === `*${t}`) return v;
  throw new ArgError(`wrong type for value; expected ${t}; got ${actual}`);
}

const INT_TYPES = new Set(["int", "int8", "int16", "int32", "int64"]);
const UINT_TYPES = new Set(["uint", "uint8", "uint16", "uint32", "uint64", "uintptr"]);
const INT_BITS: Readonly<Record<string, number>> = {
  int: 64,
  int8: 8,
  int16: 16,
  int32: 32,
  int64: 64,
  uint: 64,
  uint8: 8,
  uint16: 16,
  uint32: 32,
  uint64: 64,
  uintptr: 64,
};

export type LiteralNode =
  | { kind: "bool"; value: boolean }
  | { kind: "string"; text: string }
  | NumberNode
  | { kind: "nil" };

/**
 * The value of a literal passed to a parameter of type t (Go's evalBool/evalInteger/evalFloat/...).
 * `literalString` is the literal's source text for error messages.
 */
export function literalArg(node: LiteralNode, t: ParamType, literalString: string): GoValue {
  if (node.kind === "nil") {
    if (t === "any") return null;
    if (t === "value") return undefined;
    if (canBeNil(t)) return new TypedNil(t);
    throw new ArgError(`cannot assign nil to ${t}`);
  }
  if (t === "any" || t === "value") return idealLiteral(node);
  if (t === "bool") {
    if (node.kind === "bool") return node.value;
    throw new ArgError(`expected bool; found ${literalString}`);
  }
  if (t === "string") {
    if (node.kind === "string") return node.text;
    throw new ArgError(`expected string; found ${literalString}`);
  }
  if (INT_TYPES.has(t)) {
    if (node.kind === "number" && node.isInt) {
      const v = BigInt.asIntN(INT_BITS[t] as number, node.int);
      return t === "int" ? v : new TypedNumber(t as "int64", v);
    }
    throw new ArgError(`expected integer; found ${literalString}`);
  }
  if (UINT_TYPES.has(t)) {
    if (node.kind === "number" && node.isUint) {
      return new TypedNumber(t as "uint", BigInt.asUintN(INT_BITS[t] as number, node.uint));
    }
    throw new ArgError(`expected unsigned integer; found ${literalString}`);
  }
  if (t === "float64" || t === "float32") {
    if (node.kind === "number" && node.isFloat) {
      return t === "float64" ? node.float : new TypedNumber("float32", Math.fround(node.float));
    }
    throw new ArgError(`expected float; found ${literalString}`);
  }
  throw new ArgError(`can't handle ${literalString} for arg of type ${t}`);
}

/** A literal in a context with no type to guide it (Go's idealConstant for numbers). */
export function idealLiteral(node: Exclude<LiteralNode, { kind: "nil" }>): GoValue {
  if (node.kind === "bool") return node.value;
  if (node.kind === "string") return node.text;
  return idealNumber(node);
}

export function idealNumber(n: NumberNode): GoValue {
  if (n.isComplex) return new Complex(n.complex[0], n.complex[1]);
  const hexInt = /^0[xX]/.test(n.text) && !/[pP]/.test(n.text);
  const runeInt = n.text.startsWith("'");
  if (n.isFloat && !hexInt && !runeInt && /[.eEpP]/.test(n.text)) return n.float;
  if (n.isInt) return n.int;
  if (n.isUint) throw new ArgError(`${n.text} overflows int`);
  return undefined;
}
