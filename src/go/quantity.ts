/**
 * Kubernetes' resource.Quantity (k8s.io/apimachinery/pkg/api/resource): parsing as ParseQuantity
 * does, the canonical text `Quantity.String()` prints (`2000m` → `2`, `1024Mi` → `1Gi`) and
 * `MilliValue()`. One parse serves all three, so what is valid for one is valid for all.
 *
 * ParseQuantity's scanner is looser than its documented regular expression: a bare sign, `.` or `1.G`
 * parse (a numerator without digits counts as 0), so this follows the scanner rather than a regex.
 * Values are exact: mantissa × 10^scale as bigint, the binary suffixes folded into the mantissa.
 */

/** The message of apimachinery's ErrFormatWrong. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** The message of apimachinery's ErrSuffix. */
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

/** A quantity that resource.ParseQuantity rejects. */
export class QuantityError extends Error {
  override name = "QuantityError";
}

type Format = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** A parsed quantity: value = mantissa × 10^scale (exact), and the format its suffix asked for. */
export interface Quantity {
  readonly mantissa: bigint;
  readonly scale: number;
  readonly format: Format;
}

const BINARY_SUFFIXES: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_BY_EXP = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXP = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const SUFFIX_CHARS = "eEinumkKMGTP";
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

interface Scanned {
  negative: boolean;
  num: string;
  denom: string;
  suffix: string;
}

/** apimachinery's parseQuantityString; undefined for ErrFormatWrong. */
function scan(str: string): Scanned | undefined {
  let pos = 0;
  const end = str.length;
  const negative = str[0] === "-";
  if (str[0] === "-" || str[0] === "+") pos++;
  // Leading zeros go; a string of only sign and zeros is zero.
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { negative, num: "0", denom: "", suffix: "" };
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  const num = str.slice(numStart, pos) || "0";
  let denom = "";
  if (pos < end && str[pos] === ".") {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos] as string)) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return undefined;
  return { negative, num, denom, suffix: str.slice(suffixStart) };
}

/** The suffix as a power of 10 or of 1024, as quantitySuffixer.interpret reads it. */
function interpret(suffix: string): { format: Format; exp10: number; exp1024: number } | undefined {
  if (suffix in BINARY_SUFFIXES) return { format: "BinarySI", exp10: 0, exp1024: BINARY_SUFFIXES[suffix] as number };
  if (suffix in DECIMAL_SUFFIXES) return { format: "DecimalSI", exp10: DECIMAL_SUFFIXES[suffix] as number, exp1024: 0 };
  if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    const n = BigInt(suffix.slice(1));
    // Go reads the exponent with ParseInt(…, 10, 64); the value itself is an int32 scale.
    if (n >= -(1n << 63n) && n < 1n << 63n) return { format: "DecimalExponent", exp10: Number(n), exp1024: 0 };
  }
  return undefined;
}

/** resource.ParseQuantity; throws {@link QuantityError} with apimachinery's message. */
export function parseQuantity(str: string): Quantity {
  const s = str.length === 0 ? undefined : scan(str);
  if (s === undefined) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  const suffix = interpret(s.suffix);
  if (suffix === undefined) throw new QuantityError(QUANTITY_SUFFIX_ERROR);
  let mantissa = BigInt(s.num + s.denom) * 1024n ** BigInt(suffix.exp1024);
  let scale = suffix.exp10 - s.denom.length;
  if (s.negative) mantissa = -mantissa;
  // Precision below 1n is rounded up (away from zero): asking for some resource gives some.
  if (scale < -9) {
    const div = 10n ** BigInt(-9 - scale);
    const q = mantissa / div;
    mantissa = q * div === mantissa ? q : q + (mantissa > 0n ? 1n : -1n);
    scale = -9;
  }
  return { mantissa, scale, format: suffix.format };
}

/** The ParseQuantity error message for `str`, or undefined when it is a valid quantity. */
export function quantityError(str: string): string | undefined {
  try {
    parseQuantity(str);
    return undefined;
  } catch (e) {
    if (e instanceof QuantityError) return e.message;
    throw e;
  }
}

/** Canonical texts already computed (quantities repeat: `100m`, `128Mi`...); bounded. */
const CANONICAL_CACHE = new Map<string, string>();

/** The canonical text of a quantity (what `Quantity.String()` prints); throws {@link QuantityError}. */
export function canonicalQuantity(text: string): string {
  let canonical = CANONICAL_CACHE.get(text);
  if (canonical === undefined) {
    canonical = canonicalText(parseQuantity(text));
    if (CANONICAL_CACHE.size >= 1024) CANONICAL_CACHE.clear();
    CANONICAL_CACHE.set(text, canonical);
  }
  return canonical;
}

function canonicalText(q: Quantity): string {
  let { mantissa, scale, format } = q;
  if (mantissa === 0n) return "0";
  if (format === "BinarySI") {
    const abs = mantissa < 0n ? -mantissa : mantissa;
    const lt1024 = scale >= 0 ? abs * 10n ** BigInt(scale) < 1024n : abs < 1024n * 10n ** BigInt(-scale);
    let integral = scale >= 0;
    let value = scale >= 0 ? mantissa * 10n ** BigInt(scale) : 0n;
    if (scale < 0) {
      const div = 10n ** BigInt(-scale);
      integral = mantissa % div === 0n;
      value = mantissa / div;
    }
    if (!lt1024 && integral) {
      let e = 0;
      while (e < 6 && value !== 0n && value % 1024n === 0n) {
        value /= 1024n;
        e++;
      }
      return `${value}${BINARY_BY_EXP[e]}`;
    }
    format = "DecimalSI";
  }
  // Decimal: strip factors of ten, then bring the exponent to a multiple of three.
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  const r = ((scale % 3) + 3) % 3;
  if (r !== 0) {
    mantissa *= 10n ** BigInt(r);
    scale -= r;
  }
  if (format === "DecimalExponent") return scale === 0 ? `${mantissa}` : `${mantissa}e${scale}`;
  const s = DECIMAL_BY_EXP.get(scale);
  if (s !== undefined) return `${mantissa}${s}`;
  // Beyond exa: no suffix exists, so the exponent form is used.
  return `${mantissa}e${scale}`;
}

/**
 * `Quantity.MilliValue()`: the quantity in thousandths, rounded up (toward +∞ for positive values,
 * toward zero for negative ones). Throws {@link QuantityError} naming the quantity.
 */
export function milliValue(quantity: string): bigint {
  let q: Quantity;
  try {
    q = parseQuantity(quantity);
  } catch (e) {
    if (e instanceof QuantityError) throw new QuantityError(`quantity ${JSON.stringify(quantity)}: ${e.message}`);
    throw e;
  }
  const exp = q.scale + 3;
  if (exp >= 0) return q.mantissa * 10n ** BigInt(exp);
  const den = 10n ** BigInt(-exp);
  const quotient = q.mantissa / den;
  return q.mantissa > 0n && quotient * den !== q.mantissa ? quotient + 1n : quotient;
}
