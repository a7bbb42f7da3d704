/**
 * Sprig's numeric functions (numeric.go and the arithmetic entries of functions.go).
 *
 * Result types are Go's: the integer arithmetic returns int64 (wrapping on overflow), `int`,
 * `atoi`, `randInt` return int, the float functions float64, `until`/`untilStep` []int.
 * Arguments typed interface{} go through spf13/cast (cast.ts), which turns anything unparseable into 0.
 * The `...f` functions compute in shopspring/decimal as Sprig does, so `addf 0.1 0.2` is 0.3.
 */

import { formatValue } from "../../go/fmt.js";
import { formatFloat, parseInt64 } from "../../go/strconv.js";
import { GoError, type GoFunc, type GoValue, goFunc, int64, type TypedNumber, withGoType } from "../../go/value.js";
import { toFloat64, toInt, toInt64 } from "./cast.js";
import { checkResultSize } from "./limits.js";
import { strslice, strval } from "./strings.js";

const wrap = (n: bigint): bigint => BigInt.asIntN(64, n);

/** Go's integer division: a zero divisor is a runtime panic the template reports as an error. */
function checkDivisor(b: bigint): void {
  if (b === 0n) throw new GoError("runtime error: integer divide by zero");
}

/** Sprig's untilStep: counts from start toward stop (exclusive); a step pointing away gives []. */
function untilStep(start: bigint, stop: bigint, step: bigint): bigint[] {
  const out: bigint[] = [];
  if (step !== 0n) checkResultSize("untilStep", (stop - start) / step);
  if (stop < start) {
    if (step >= 0n) return out;
    for (let i = start; i > stop; i = wrap(i + step)) out.push(i);
    return out;
  }
  if (step <= 0n) return out;
  for (let i = start; i < stop; i = wrap(i + step)) out.push(i);
  return out;
}

const intSlice = (xs: bigint[]): bigint[] => withGoType(xs, "[]int");

/** Sprig's seq, mirroring GNU seq: `seq END`, `seq START END`, `seq START STEP END`. */
function seq(...params: GoValue[]): string {
  const p = params as bigint[];
  const join = (xs: bigint[]) => xs.join(" ");
  switch (p.length) {
    case 1: {
      const end = p[0];
      const inc = end < 1n ? -1n : 1n;
      return join(untilStep(1n, end + inc, inc));
    }
    case 2: {
      const [start, end] = p;
      const step = end < start ? -1n : 1n;
      return join(untilStep(start, end + step, step));
    }
    case 3: {
      const [start, step, end] = p;
      let inc = 1n;
      if (end < start) {
        inc = -1n;
        if (step > 0n) return "";
      }
      return join(untilStep(start, end + inc, step));
    }
    default:
      return "";
  }
}

/** Sprig's round: away from zero at `roundOn` (default .5) — but by floor/ceil of the signed fraction, as Sprig does. */
function round(a: GoValue, p: GoValue, ...rOpt: GoValue[]): number {
  const roundOn = rOpt.length > 0 ? (rOpt[0] as number) : 0.5;
  const pow = 10 ** toFloat64(p);
  const digit = pow * toFloat64(a);
  const frac = digit - Math.trunc(digit);
  return (frac >= roundOn ? Math.ceil(digit) : Math.floor(digit)) / pow;
}

// ---- shopspring/decimal, just what execDecimalOp needs --------------------------------------

/** value × 10^exp, exact. */
interface Decimal {
  value: bigint;
  exp: number;
}

const DIVISION_PRECISION = 16;
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** decimal.NewFromFloat: the float's shortest decimal representation. */
function decimalFromFloat(f: number): Decimal {
  if (!Number.isFinite(f)) throw new GoError(`Cannot create a Decimal from ${formatFloat(f, "g", -1, 64)}`);
  if (f === 0) return { value: 0n, exp: 0 };
  const [mant, e] = f.toExponential().split("e");
  const digits = mant.replace(".", "").replace("-", "");
  const value = BigInt(digits) * (f < 0 ? -1n : 1n);
  return { value, exp: Number(e) - (digits.length - 1) };
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const exp = Math.min(a.exp, b.exp);
  return [a.value * pow10(a.exp - exp), b.value * pow10(b.exp - exp), exp];
}

const decAdd = (a: Decimal, b: Decimal): Decimal => {
  const [x, y, exp] = align(a, b);
  return { value: x + y, exp };
};
const decSub = (a: Decimal, b: Decimal): Decimal => {
  const [x, y, exp] = align(a, b);
  return { value: x - y, exp };
};
const decMul = (a: Decimal, b: Decimal): Decimal => ({ value: a.value * b.value, exp: a.exp + b.exp });

/** Decimal.Div: quotient to 16 decimal places, the last rounded half away from zero. */
function decDiv(d: Decimal, d2: Decimal): Decimal {
  if (d2.value === 0n) throw new GoError("decimal division by 0");
  const scale = -DIVISION_PRECISION;
  const e = d.exp - d2.exp - scale;
  let aa: bigint;
  let bb: bigint;
  let restExp: number;
  if (e < 0) {
    aa = d.value;
    bb = d2.value * pow10(-e);
    restExp = d.exp;
  } else {
    aa = d.value * pow10(e);
    bb = d2.value;
    restExp = scale + d2.exp;
  }
  const q: Decimal = { value: aa / bb, exp: scale };
  const r = aa % bb;
  // Round up in magnitude when 2·|r| ≥ |d2| (compared at a common exponent).
  const abs = (x: bigint) => (x < 0n ? -x : x);
  const [twiceR, absD2] = align(
    { value: abs(r) * 2n, exp: restExp + DIVISION_PRECISION },
    { value: abs(d2.value), exp: d2.exp },
  );
  if (twiceR < absD2) return q;
  const unit: Decimal = { value: 1n, exp: scale };
  return d.value < 0n !== d2.value < 0n ? decSub(q, unit) : decAdd(q, unit);
}

/** Decimal.Float64: the nearest float (JavaScript's string parsing rounds correctly). */
const decToFloat = (d: Decimal): number => Number(`${d.value}e${d.exp}`);

/** Sprig's execDecimalOp: fold the operands (all through cast.ToFloat64) in decimal arithmetic. */
function decimalFold(a: GoValue, rest: GoValue[], op: (x: Decimal, y: Decimal) => Decimal): number {
  let acc = decimalFromFloat(toFloat64(a));
  for (const x of rest) acc = op(acc, decimalFromFloat(toFloat64(x)));
  return decToFloat(acc);
}

// ---- the func map ------------------------------------------------------------------------------

function maxInt(a: GoValue, ...rest: GoValue[]): TypedNumber {
  let m = toInt64(a);
  for (const b of rest) {
    const x = toInt64(b);
    if (x > m) m = x;
  }
  return int64(m);
}

function minInt(a: GoValue, ...rest: GoValue[]): TypedNumber {
  let m = toInt64(a);
  for (const b of rest) {
    const x = toInt64(b);
    if (x < m) m = x;
  }
  return int64(m);
}

/** strconv.Atoi, ignoring the error: syntax errors give 0, out-of-range values clamp. */
function atoi(s: GoValue): bigint {
  return parseInt64(s as string, 10).value;
}

/** Sprig's toDecimal: fmt.Sprint(v) read as an octal int64; any error (range too) gives 0. */
function toDecimal(v: GoValue): TypedNumber {
  const r = parseInt64(formatValue(v), 8);
  return int64(r.err === undefined ? r.value : 0n);
}

export const numbersFuncs: Record<string, GoFunc> = {
  atoi: goFunc("atoi", ["string"], atoi, "int"),
  int64: goFunc("int64", ["any"], (v) => int64(toInt64(v)), "int64"),
  int: goFunc("int", ["any"], (v) => toInt(v), "int"),
  float64: goFunc("float64", ["any"], (v) => toFloat64(v), "float64"),
  seq: goFunc("seq", ["...int"], seq, "string"),
  toDecimal: goFunc("toDecimal", ["any"], toDecimal, "int64"),
  toString: goFunc("toString", ["any"], (v) => strval(v), "string"),
  toStrings: goFunc("toStrings", ["any"], strslice, "[]string"),
  until: goFunc(
    "until",
    ["int"],
    (count) => intSlice(untilStep(0n, count as bigint, (count as bigint) < 0n ? -1n : 1n)),
    "[]int",
  ),
  untilStep: goFunc(
    "untilStep",
    ["int", "int", "int"],
    (start, stop, step) => intSlice(untilStep(start as bigint, stop as bigint, step as bigint)),
    "[]int",
  ),
  add1: goFunc("add1", ["any"], (i) => int64(toInt64(i) + 1n), "int64"),
  add: goFunc("add", ["...any"], (...xs) => int64(xs.reduce<bigint>((acc, x) => wrap(acc + toInt64(x)), 0n)), "int64"),
  sub: goFunc("sub", ["any", "any"], (a, b) => int64(toInt64(a) - toInt64(b)), "int64"),
  div: goFunc(
    "div",
    ["any", "any"],
    (a, b) => {
      const d = toInt64(b);
      checkDivisor(d);
      return int64(toInt64(a) / d);
    },
    "int64",
  ),
  mod: goFunc(
    "mod",
    ["any", "any"],
    (a, b) => {
      const d = toInt64(b);
      checkDivisor(d);
      return int64(toInt64(a) % d);
    },
    "int64",
  ),
  mul: goFunc(
    "mul",
    ["any", "...any"],
    (a, ...xs) => int64(xs.reduce<bigint>((acc, x) => wrap(acc * toInt64(x)), toInt64(a))),
    "int64",
  ),
  randInt: goFunc(
    "randInt",
    ["int", "int"],
    (min, max) => {
      const n = wrap((max as bigint) - (min as bigint));
      if (n <= 0n) throw new GoError("invalid argument to Intn");
      return wrap(BigInt(Math.floor(Math.random() * Number(n))) + (min as bigint));
    },
    "int",
  ),
  add1f: goFunc("add1f", ["any"], (i) => decimalFold(i, [1n], decAdd), "float64"),
  addf: goFunc("addf", ["...any"], (...xs) => decimalFold(0, xs, decAdd), "float64"),
  subf: goFunc("subf", ["any", "...any"], (a, ...xs) => decimalFold(a, xs, decSub), "float64"),
  divf: goFunc("divf", ["any", "...any"], (a, ...xs) => decimalFold(a, xs, decDiv), "float64"),
  mulf: goFunc("mulf", ["any", "...any"], (a, ...xs) => decimalFold(a, xs, decMul), "float64"),
  biggest: goFunc("biggest", ["any", "...any"], maxInt, "int64"),
  max: goFunc("max", ["any", "...any"], maxInt, "int64"),
  min: goFunc("min", ["any", "...any"], minInt, "int64"),
  maxf: goFunc(
    "maxf",
    ["any", "...any"],
    (a, ...xs) => xs.reduce<number>((m, x) => Math.max(m, toFloat64(x)), toFloat64(a)),
    "float64",
  ),
  minf: goFunc(
    "minf",
    ["any", "...any"],
    (a, ...xs) => xs.reduce<number>((m, x) => Math.min(m, toFloat64(x)), toFloat64(a)),
    "float64",
  ),
  ceil: goFunc("ceil", ["any"], (a) => Math.ceil(toFloat64(a)), "float64"),
  floor: goFunc("floor", ["any"], (a) => Math.floor(toFloat64(a)), "float64"),
  round: goFunc("round", ["any", "int", "...float64"], round, "float64"),
};
