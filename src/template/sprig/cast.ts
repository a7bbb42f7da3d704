/**
 * The conversions Sprig borrows from spf13/cast (ToInt64, ToInt, ToFloat64, ...) plus Sprig's own
 * `strval`, ported onto the Go value model.
 *
 * cast's conversions never fail inside Sprig: every error turns into the zero value. The edge cases
 * follow from the Go functions underneath: strings go through strconv.ParseInt with base 0 (so "010"
 * is octal 8, "0x1F" is 31, "1_000" is 1000) after cast strips a trailing ".0…"; strings with other
 * decimals or spaces fail and give 0; floats truncate toward zero, and out-of-range floats give
 * math.MinInt64 as Go's conversion does on amd64.
 */
import { GoError, type GoValue, isGoFunc, isGoObject, isMap, sortedKeys, TypedNil, TypedNumber } from "../value.js";

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;

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
      return parseGoInt(trimZeroDecimal(v)) ?? 0n;
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
      return parseGoFloat(v) ?? 0;
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
  if (typeof v === "string") return parseGoBool(v) ?? false;
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
      return formatFloatF(v);
    case "object":
      if (v instanceof TypedNumber) {
        if (typeof v.value === "bigint") return v.value.toString();
        return formatFloatF(v.value, 32);
      }
      if (v instanceof Uint8Array) return Buffer.from(v).toString("utf8");
      if (isGoObject(v)) return callStringer(v) ?? "";
      return "";
    default:
      return "";
  }
}

/** strconv.ParseBool. */
export function parseGoBool(s: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  return undefined;
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

/**
 * strconv.ParseInt(s, base, 64). Base 0 reads Go's prefixes (0x, 0o, 0b, a bare leading 0 for octal)
 * and allows underscores between digits. Returns undefined where Go returns an error (including overflow).
 */
export function parseGoInt(s: string, base = 0): bigint | undefined {
  if (s === "") return undefined;
  let neg = false;
  let body = s;
  if (body[0] === "+" || body[0] === "-") {
    neg = body[0] === "-";
    body = body.slice(1);
  }
  const unsigned = body;
  let b = base;
  if (b === 0) {
    b = 10;
    if (body[0] === "0") {
      const p = body.length >= 3 ? body[1].toLowerCase() : "";
      if (p === "b") [b, body] = [2, body.slice(2)];
      else if (p === "o") [b, body] = [8, body.slice(2)];
      else if (p === "x") [b, body] = [16, body.slice(2)];
      else [b, body] = [8, body.slice(1)];
    }
  }
  // "0" alone is octal zero; any other empty digit string ("", "-", "0x") is a syntax error.
  if (body === "" && unsigned !== "0") return undefined;
  let n = 0n;
  let underscores = false;
  for (const ch of body) {
    if (ch === "_" && base === 0) {
      underscores = true;
      continue;
    }
    const d = digitValue(ch);
    if (d < 0 || d >= b) return undefined;
    n = n * BigInt(b) + BigInt(d);
  }
  if (underscores && !underscoreOK(unsigned)) return undefined;
  if (neg) n = -n;
  if (n < MIN_INT64 || n > MAX_INT64) return undefined;
  return n;
}

function digitValue(ch: string): number {
  const c = ch.charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 122) return l - 97 + 10;
  return -1;
}

/** Go's rule for underscores in number literals: only between digits (a base prefix counts as a digit). */
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s[0] === "+" || s[0] === "-") s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1])) {
    i = 2;
    saw = "0";
    hex = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

const DECIMAL_FLOAT = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^0[xX](?:([0-9a-fA-F]+)\.?([0-9a-fA-F]*)|\.([0-9a-fA-F]+))[pP]([+-]?\d+)$/;

/**
 * strconv.ParseFloat(s, 64): Go float literal syntax (decimal or hex with a p exponent, underscores
 * between digits), "inf"/"infinity"/"nan" in any case. Out of range is an error in Go, so undefined here.
 */
export function parseGoFloat(s: string): number | undefined {
  let sign = 1;
  let body = s;
  if (body[0] === "+" || body[0] === "-") {
    sign = body[0] === "-" ? -1 : 1;
    body = body.slice(1);
  }
  const lower = body.toLowerCase();
  if (lower === "inf" || lower === "infinity") return sign * Infinity;
  if (lower === "nan" && body.length === s.length) return NaN;
  if (body.includes("_")) {
    if (!underscoreOK(body)) return undefined;
    body = body.replaceAll("_", "");
  }
  let v: number;
  if (DECIMAL_FLOAT.test(body)) {
    v = Number(body);
  } else {
    const m = HEX_FLOAT.exec(body);
    if (!m) return undefined;
    const intDigits = m[1] ?? "";
    const fracDigits = m[2] ?? m[3] ?? "";
    const mant = BigInt(`0x${intDigits}${fracDigits}`);
    v = Number(mant) * 2 ** (Number(m[4]) - 4 * fracDigits.length);
  }
  if (!Number.isFinite(v)) return undefined;
  return sign * v;
}

/** Shortest decimal digits and exponent of |f| (as strconv's shortest formatting finds them). */
export function shortestDigits(f: number, bits: 32 | 64 = 64): { digits: string; exp: number } {
  let e: string;
  if (bits === 32) {
    e = f.toExponential();
    for (let p = 1; p <= 9; p++) {
      const cand = f.toExponential(p - 1);
      if (Math.fround(Number(cand)) === f) {
        e = cand;
        break;
      }
    }
  } else {
    e = f.toExponential();
  }
  const [mant, ex] = e.split("e");
  return { digits: mant.replace(/[-.]/g, ""), exp: Number(ex) };
}

/** strconv.FormatFloat(f, 'f', -1, bits). */
export function formatFloatF(f: number, bits: 32 | 64 = 64): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? "NaN" : f > 0 ? "+Inf" : "-Inf";
  const sign = f < 0 || Object.is(f, -0) ? "-" : "";
  if (f === 0) return `${sign}0`;
  const { digits, exp } = shortestDigits(Math.abs(f), bits);
  return sign + placeDecimal(digits, exp);
}

/** strconv.FormatFloat(f, 'e', -1, bits): d.ddde±dd. */
export function formatFloatE(f: number, bits: 32 | 64 = 64): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? "NaN" : f > 0 ? "+Inf" : "-Inf";
  const sign = f < 0 || Object.is(f, -0) ? "-" : "";
  if (f === 0) return `${sign}0e+00`;
  const { digits, exp } = shortestDigits(Math.abs(f), bits);
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const ae = Math.abs(exp);
  return `${sign}${mant}e${exp < 0 ? "-" : "+"}${ae < 10 ? "0" : ""}${ae}`;
}

/** strconv.FormatFloat(f, 'g', -1, bits), which is what fmt's %v prints for floats. */
export function formatFloatG(f: number, bits: 32 | 64 = 64): string {
  if (!Number.isFinite(f) || f === 0) return f === 0 ? (Object.is(f, -0) ? "-0" : "0") : formatFloatF(f);
  const { exp } = shortestDigits(Math.abs(f), bits);
  // Shortest %g uses the exponent form when the decimal exponent is below -4 or at least 6 (so 1e+06).
  return exp < -4 || exp >= 6 ? formatFloatE(f, bits) : formatFloatF(f, bits);
}

function placeDecimal(digits: string, exp: number): string {
  if (exp < 0) return `0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return digits + "0".repeat(exp + 1 - digits.length);
  return `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** Calls a GoObject's String() or Error() method, as fmt does for Stringers and errors. */
export function callStringer(v: GoValue): string | undefined {
  if (!isGoObject(v) || !v.goMethod) return undefined;
  for (const name of ["Error", "String"]) {
    const m = v.goMethod(name);
    if (m && m.params.length === 0 && m.variadic === undefined) {
      const r = m.fn();
      if (typeof r === "string") return r;
    }
  }
  return undefined;
}

/**
 * fmt.Sprint(v) / `%v` for the value model. Sprig's `strval`, `dict` keys and `toDecimal` need it;
 * nested pointers print as an address in Go, shown here as a fixed placeholder.
 */
export function formatV(v: GoValue, depth = 0): string {
  switch (typeof v) {
    case "string":
      return v;
    case "boolean":
    case "bigint":
      return String(v);
    case "number":
      return formatFloatG(v);
    case "undefined":
      return "<nil>";
    case "object": {
      if (v === null) return "<nil>";
      if (v instanceof TypedNumber) {
        return typeof v.value === "bigint" ? v.value.toString() : formatFloatG(v.value, 32);
      }
      if (v instanceof TypedNil) {
        if (v.type.startsWith("map[")) return "map[]";
        if (v.type.startsWith("[]")) return "[]";
        return "<nil>";
      }
      if (v instanceof Uint8Array) return `[${Array.from(v).join(" ")}]`;
      if (Array.isArray(v)) return `[${v.map((x) => formatV(x, depth + 1)).join(" ")}]`;
      if (isGoFunc(v)) return "0x1";
      if (isGoObject(v)) {
        const s = callStringer(v);
        if (s !== undefined) return s;
        if (v.goIsNil?.()) return "<nil>";
        const isPtr = v.goTypeName().startsWith("*");
        if (isPtr && depth > 0) return "0xc000010000";
        const fields = (v.goFields?.() ?? []).map(([, x]) => formatV(x, depth + 1));
        return `${isPtr ? "&" : ""}{${fields.join(" ")}}`;
      }
      if (isMap(v)) {
        return `map[${sortedKeys(v)
          .map((k) => `${k}:${formatV(v[k], depth + 1)}`)
          .join(" ")}]`;
      }
      return String(v);
    }
    default:
      return String(v);
  }
}

/** Sprig's strval: strings and []byte as text, errors and Stringers by their method, the rest with %v. */
export function strval(v: GoValue): string {
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString("utf8");
  return formatV(v);
}

/** Throws Go's runtime panic text for a nil-pointer dereference (reflect.TypeOf(nil).Kind()). */
export function nilDeref(): never {
  throw new GoError("runtime error: invalid memory address or nil pointer dereference");
}
