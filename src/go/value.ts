/**
 * The Go value model that templates run on.
 *
 * Go's text/template is defined over reflect.Value: every value has a Go type, and the template
 * language's answers (printing, comparison, truth, function-argument checks) depend on that type.
 * JavaScript values carry no such types, so this module fixes one representation for each Go kind:
 *
 * | Go                          | JavaScript                                                   |
 * | --------------------------- | ------------------------------------------------------------ |
 * | missing value (invalid)     | `undefined` — prints `<no value>`                            |
 * | nil interface               | `null` — prints `<nil>`                                      |
 * | string                      | `string`                                                     |
 * | bool                        | `boolean`                                                    |
 * | int                         | `bigint` (exact 64-bit arithmetic, distinct from float64)    |
 * | float64                     | `number`                                                     |
 * | other numeric types         | {@link TypedNumber} (`int64`, `uint8`, `float32`, ...)       |
 * | []interface{}               | `Array`; another element type is named by {@link GO_TYPE}    |
 * | []byte                      | `Uint8Array`                                                 |
 * | map[string]interface{}      | plain object; another map type is named by {@link GO_TYPE}   |
 * | typed nil (nil map, ptr...) | {@link TypedNil}                                             |
 * | struct / pointer to struct  | a {@link GoObject} (the host-object extension point)         |
 * | func                        | {@link GoFunc}                                               |
 *
 * JSON data decodes straight into this model (numbers as float64, the way Helm and Istio decode
 * values); {@link fromJSON} offers the "whole numbers are ints" reading as well.
 */

/** Names the Go type of an array or plain object when it is not `[]interface {}` / `map[string]interface {}`. */
export const GO_TYPE: unique symbol = Symbol.for("meshinject.template.goType");

/** Marks objects that implement {@link GoObject}. */
export const GO_OBJECT: unique symbol = Symbol.for("meshinject.template.goObject");

/** Marks callable values ({@link GoFunc}). */
export const GO_FUNC: unique symbol = Symbol.for("meshinject.template.goFunc");

/** Any value a template can see. */
export type GoValue = unknown;

export type IntType =
  | "int"
  | "int8"
  | "int16"
  | "int32"
  | "int64"
  | "uint"
  | "uint8"
  | "uint16"
  | "uint32"
  | "uint64"
  | "uintptr";
export type FloatType = "float32" | "float64";

/** A number whose Go type is not plain `int` (bigint) or `float64` (number). */
export class TypedNumber {
  constructor(
    readonly type: IntType | FloatType,
    /** bigint for integer types, number for float32. */
    readonly value: bigint | number,
  ) {}
}

/** A complex128 (template literals like `1+2i`; Go prints it as `(1+2i)`). */
export class Complex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
}

/** A nil of a concrete Go type: a nil map, slice, pointer, func or chan. Prints per its kind. */
export class TypedNil {
  constructor(
    /** The Go type name, e.g. `map[string]string`, `[]string`, `*v1.ProxyConfig`. */
    readonly type: string,
  ) {}
}

/**
 * The extension point through which host objects show Go-style fields and methods to templates,
 * as a Go struct (or pointer to one) would. The injector exposes Istio's data model this way:
 * `.ProxyConfig.HoldApplicationUntilProxyStarts.GetValue`, enums with `.String`, and so on.
 */
export interface GoObject {
  readonly [GO_OBJECT]: true;
  /** The Go type name as `%T` prints it, e.g. `*v1alpha1.ProxyConfig`. */
  goTypeName(): string;
  /** True for a nil pointer: fields then fail to evaluate, methods may still be called (as protobuf getters are). */
  goIsNil?(): boolean;
  /**
   * For a host value that is not a struct in Go (a protobuf enum is an int32 with methods): its
   * truth in `if`/`with`/`and`/`or`. Without it, a non-nil object is true, as a Go struct is.
   */
  goTruth?(): boolean;
  /** The value of an exported field, or `undefined` when the type has no such field. */
  goField(name: string): GoValue | undefined;
  /** A method by name, or `undefined`. Zero-argument methods are how `.Obj.Method` chains work. */
  goMethod?(name: string): GoFunc | undefined;
  /** The fields in declaration order, for `%v` / `%+v` printing. */
  goFields?(): ReadonlyArray<readonly [string, GoValue]>;
}

/**
 * How a function parameter receives its argument. Go checks each argument against the parameter's
 * type; the executor reproduces that check (and its error text) from these names.
 * - `any`: interface{} — anything; a missing value arrives as `null`; number literals arrive as ideal constants (int or float64).
 * - `value`: reflect.Value — the raw value, a missing value arriving as `undefined` (Go's builtins take these).
 * - a Go type name (`string`, `int`, `int64`, `float64`, `bool`, `[]interface {}`, `map[string]interface {}`, `[]string`, ...):
 *   the argument must have exactly that type; number literals are converted to it.
 */
export type ParamType = "any" | "value" | string;

/** A function callable from templates (a FuncMap entry, a method, or a func-typed value for `call`). */
export interface GoFunc {
  readonly [GO_FUNC]: true;
  readonly name: string;
  /** Types of the fixed parameters. */
  readonly params: readonly ParamType[];
  /** Element type of the trailing `...` parameter, when the function is variadic. */
  readonly variadic?: ParamType;
  /** Go return types as printed by `%T` of the func (cosmetic), e.g. `string` or `(interface {}, error)`. */
  readonly returns?: string;
  /**
   * The implementation. It receives converted arguments (variadic ones spread) and returns the result.
   * It reports a Go error (second return value) or a recovered panic by throwing {@link GoError}.
   */
  readonly fn: (...args: GoValue[]) => GoValue;
  /** Set when `fn` takes the executor's per-execution context as its first argument (before `params`). */
  readonly execution?: true;
}

/** An error returned (or panicked) by a function; the executor reports it as `error calling NAME: MESSAGE`. */
export class GoError extends Error {
  override name = "GoError";
}

/** Builds a {@link GoFunc}. `params` may end with `...T` to declare a variadic parameter of element type T. */
export function goFunc<A extends GoValue[]>(
  name: string,
  params: readonly ParamType[],
  impl: (...args: A) => GoValue,
  returns?: string,
): GoFunc {
  // The executor checks arguments against `params` before calling, which is what makes the cast sound.
  const fn = impl as (...args: GoValue[]) => GoValue;
  const last = params.at(-1);
  if (last?.startsWith("...")) {
    return { [GO_FUNC]: true, name, params: params.slice(0, -1), variadic: last.slice(3), fn, returns };
  }
  return { [GO_FUNC]: true, name, params, fn, returns };
}

export function isGoFunc(v: unknown): v is GoFunc {
  return typeof v === "object" && v !== null && (v as Partial<GoFunc>)[GO_FUNC] === true;
}

export function isGoObject(v: unknown): v is GoObject {
  return typeof v === "object" && v !== null && (v as Partial<GoObject>)[GO_OBJECT] === true;
}

/** A plain object standing for a Go map. */
export function isMap(v: unknown): v is Record<string, GoValue> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  // Host objects and funcs may be object literals too; their marker keys tell them apart.
  return (proto === Object.prototype || proto === null) && !(GO_OBJECT in v) && !(GO_FUNC in v);
}

/** A new empty `map[string]interface {}` (no prototype, so every key is data). */
export function newMap(): Record<string, GoValue> {
  return Object.create(null) as Record<string, GoValue>;
}

/** Reads a map entry; `undefined` when the key is absent (Go's "no value"). */
export function mapGet(m: Record<string, GoValue>, key: string): GoValue {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

/** Sorted keys, in Go's order for strings (byte order of UTF-8, which equals UTF-16 code unit order except for surrogates). */
export function sortedKeys(m: Record<string, GoValue>): string[] {
  return Object.keys(m).sort(compareStrings);
}

/** Go's string comparison: by UTF-8 bytes. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // Code-point order equals UTF-8 byte order; plain < compares UTF-16 code units, which differs only
  // when a surrogate pair meets a code unit in U+E000..U+FFFF.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Tags an array or map with its Go type name (when it is not the default interface{} one). */
export function withGoType<T extends object>(v: T, type: string): T {
  Object.defineProperty(v, GO_TYPE, { value: type, enumerable: false, configurable: true, writable: true });
  return v;
}

/** The broad Go kind of a value, as reflect.Kind names it (`invalid` for a missing value and for nil interface). */
export type Kind =
  | "invalid"
  | "bool"
  | "int"
  | "uint"
  | "float"
  | "complex"
  | "string"
  | "slice"
  | "map"
  | "struct"
  | "ptr"
  | "func";

export function kindOf(v: GoValue): Kind {
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "float";
    case "undefined":
      return "invalid";
    case "object":
      if (v === null) return "invalid";
      if (Array.isArray(v) || v instanceof Uint8Array) return "slice";
      if (v instanceof Complex) return "complex";
      if (v instanceof TypedNumber) {
        if (v.type.startsWith("float")) return "float";
        return v.type.startsWith("u") ? "uint" : "int";
      }
      if (v instanceof TypedNil) return nilKind(v.type);
      if (isGoFunc(v)) return "func";
      if (isGoObject(v)) return v.goTypeName().startsWith("*") ? "ptr" : "struct";
      return "map";
    default:
      return "invalid";
  }
}

function nilKind(type: string): Kind {
  const k = kindOfTypeName(type);
  // Kind has no array, chan or interface; those nils (and any other) are treated like pointers.
  return k === "map" || k === "slice" || k === "func" ? k : "ptr";
}

/** The reflect.Kind named by a composite Go type name (`[]string` is a slice, `[3]int` an array, ...). */
function kindOfTypeName(t: string): string {
  if (t.startsWith("[]")) return "slice";
  if (t.startsWith("[")) return "array";
  if (t.startsWith("map[")) return "map";
  if (t.startsWith("func")) return "func";
  if (t.startsWith("chan") || t.startsWith("<-chan")) return "chan";
  if (t.startsWith("*")) return "ptr";
  if (t.startsWith("interface")) return "interface";
  return "struct";
}

/**
 * reflect.Kind's String() for a value, finer than {@link kindOf}: numbers name their exact type
 * (`int64`, `uint8`, `float64`, `complex128`), and tagged arrays and typed nils give `array`,
 * `chan` or `interface` where their type says so. Sprig's `kindOf` and its error messages print this.
 */
export function reflectKindName(v: GoValue): string {
  if (Array.isArray(v)) return kindOfTypeName(typeName(v));
  if (v instanceof TypedNil) return kindOfTypeName(v.type);
  const k = kindOf(v);
  // A numeric kind's name is the name of its predeclared type.
  return k === "int" || k === "uint" || k === "float" || k === "complex" ? typeName(v) : k;
}

/** The Go type name, as `%T` prints it. */
export function typeName(v: GoValue): string {
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "float64";
    case "undefined":
      return "<nil>";
    case "object": {
      if (v === null) return "<nil>";
      if (v instanceof TypedNumber || v instanceof TypedNil) return v.type;
      if (v instanceof Complex) return "complex128";
      if (v instanceof Uint8Array) return "[]uint8";
      if (isGoFunc(v)) return funcTypeName(v);
      if (isGoObject(v)) return v.goTypeName();
      const tagged = (v as { [GO_TYPE]?: string })[GO_TYPE];
      if (tagged) return tagged;
      return Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
    }
    default:
      return "<nil>";
  }
}

function funcTypeName(f: GoFunc): string {
  const ps = f.params.map(paramTypeName);
  if (f.variadic !== undefined) ps.push(`...${paramTypeName(f.variadic)}`);
  const ret = f.returns ? ` ${f.returns}` : "";
  return `func(${ps.join(", ")})${ret}`;
}

function paramTypeName(p: ParamType): string {
  if (p === "any") return "interface {}";
  if (p === "value") return "reflect.Value";
  return p;
}

/** Go's notion of a value's truth in `if`, `with`, `and`, `or`, `not`. */
export function isTrue(v: GoValue): boolean {
  switch (typeof v) {
    case "string":
      return v.length > 0;
    case "boolean":
      return v;
    case "bigint":
      return v !== 0n;
    case "number":
      return v !== 0;
    case "undefined":
      return false;
    case "object":
      if (v === null) return false;
      if (Array.isArray(v)) return v.length > 0;
      if (v instanceof Uint8Array) return v.length > 0;
      if (v instanceof TypedNumber) return v.value !== 0n && v.value !== 0;
      if (v instanceof Complex) return v.re !== 0 || v.im !== 0;
      if (v instanceof TypedNil) return false;
      if (isGoFunc(v)) return true;
      if (isGoObject(v)) return v.goTruth ? v.goTruth() : !v.goIsNil?.();
      return Object.keys(v).length > 0;
    default:
      return false;
  }
}

/** The integer value of an int-kinded value, or undefined. */
export function intValue(v: GoValue): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (v instanceof TypedNumber && typeof v.value === "bigint") return v.value;
  return undefined;
}

/** The float value of a float-kinded value, or undefined. */
export function floatValue(v: GoValue): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof TypedNumber && typeof v.value === "number") return v.value;
  return undefined;
}

/** Wraps an int64 result (as many Sprig functions return) with two's-complement wrap-around. */
export function int64(v: bigint): TypedNumber {
  return new TypedNumber("int64", BigInt.asIntN(64, v));
}

/** A Go `int` (64-bit on the platforms Istio runs on) with wrap-around. */
export function int(v: bigint | number): bigint {
  return BigInt.asIntN(64, typeof v === "bigint" ? v : BigInt(Math.trunc(v)));
}

/** Length of a string in UTF-8 bytes, as Go's `len` counts it. */
export function byteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      // A surrogate pair is 2 code units and 4 bytes.
      n += 1;
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * Decodes JSON text into the Go value model. `numbers: "float"` reads every number as float64
 * (Helm, Istio); `"int"` reads whole numbers of magnitude up to 2^53 as int.
 */
export function fromJSON(text: string, numbers: "float" | "int" = "float"): GoValue {
  const parsed: unknown = JSON.parse(text);
  return numbers === "int" ? intsFromWholeNumbers(parsed) : parsed;
}

/** Converts whole-number floats (|n| ≤ 2^53) to ints throughout a JSON-shaped value. */
export function intsFromWholeNumbers(v: unknown): GoValue {
  if (typeof v === "number") {
    return Number.isInteger(v) && Math.abs(v) <= 2 ** 53 ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map(intsFromWholeNumbers);
  if (isMap(v)) {
    const out = newMap();
    for (const k of Object.keys(v)) out[k] = intsFromWholeNumbers(v[k]);
    return out;
  }
  return v;
}
