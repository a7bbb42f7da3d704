/**
 * The conversions Sprig borrows from spf13/cast (ToInt64, ToInt, ToFloat64, ...), ported onto the
 * Go value model. (Sprig's own `strval` is in strings.ts; the strconv parsers are in ../strconv.ts.)
 *
 * cast's conversions never fail inside Sprig: every error turns into the zero value. The edge cases
 * follow from the Go functions underneath: strings go through strconv.ParseInt with base 0 (so "010"
 * is octal 8, "0x1F" is 31, "1_000" is 1000) after cast strips a trailing ".0…"; strings with other
 * decimals or spaces fail and give 0; floats truncate toward zero, and out-of-range floats give
 * math.MinInt64 as Go's conversion does on amd64.
 */
import { formatFloat, type Parsed, parseBool, parseFloat64, parseInt64 } from "../../go/strconv.js";
import { GoError, type GoValue, isGoObject, TypedNumber } from "../../go/value.js";
import { stringerText } from "./strings.js";

const MIN_INT64 = -(1n << 63n);

/** Go's int64(f) conversion of a float64 on amd64: truncation, and MinInt64 when out of range or NaN. */
export function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 2 ** 63 || f < -(2 ** 63)) return MIN_INT64;
  return BigInt(Math.trunc(f));
}

/** cast.ToInt64 (errors become 0). */
export function toInt64(v: GoValue): bigint {
  switch (typeof v) {
    case "bigint":
      return v;
    case "number":
      return floatToInt64(v);
    case "boolean":
      return v ? 1n : 0n;
    case "string":
      return orZero(parseInt64(trimZeroDecimal(v)), 0n);
    case "object":
      if (v instanceof TypedNumber) {
        return typeof v.value === "bigint" ? BigInt.asIntN(64, v.value) : floatToInt64(v.value);
      }
      return 0n;
    default:
      return 0n;
  }
}

/** cast.ToInt: the same as ToInt64 on 64-bit platforms, but a Go `int`. */
export function toInt(v: GoValue): bigint {
  return toInt64(v);
}

/** cast.ToFloat64 (errors become 0). */
export function toFloat64(v: GoValue): number {
  switch (typeof v) {
    case "number":
      return v;
    case "bigint":
      return Number(v);
    case "boolean":
      return v ? 1 : 0;
    case "string":
      return orZero(parseFloat64(v), 0);
    case "object":
      if (v instanceof TypedNumber) return Number(v.value);
      return 0;
    default:
      return 0;
  }
}

/** cast.ToBool (errors become false). Only Go `int` counts as a number here, as in cast. */
export function toBool(v: GoValue): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "bigint") return v !== 0n;
  if (typeof v === "string") return parseBool(v) ?? false;
  return false;
}

/** cast.ToString (errors become ""). Floats print in 'f' form, unlike fmt's %v. */
export function castToString(v: GoValue): string {
  if (v === null || v === undefined) return "";
  switch (typeof v) {
    case "string":
      return v;
    case "boolean":
      return String(v);
    case "bigint":
      return v.toString();
    case "number":
      return formatFloat(v, "f", -1, 64);
    case "object":
      if (v instanceof TypedNumber) {
        if (typeof v.value === "bigint") return v.value.toString();
        return formatFloat(v.value, "f", -1, 32);
      }
      if (v instanceof Uint8Array) return Buffer.from(v).toString("utf8");
      if (isGoObject(v)) return stringerText(v) ?? "";
      return "";
    default:
      return "";
  }
}

/** cast gives up on any strconv error and returns the zero value instead. */
function orZero<T>(r: Parsed<T>, zero: T): T {
  return r.err === undefined ? r.value : zero;
}

/** cast's trimZeroDecimal: "12.000" becomes "12" (only an all-zero fraction is dropped). */
export function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === ".") {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === "0") foundZero = true;
    else return s;
  }
  return s;
}

/** Throws Go's runtime panic text for a nil-pointer dereference (reflect.TypeOf(nil).Kind()). */
export function nilDeref(): never {
  throw new GoError("runtime error: invalid memory address or nil pointer dereference");
}
