/**
 * Whether a string is a Kubernetes resource quantity, as `resource.ParseQuantity`
 * (k8s.io/apimachinery/pkg/api/resource) decides it: the `sidecar.istio.io/proxyCPU`-style annotations
 * become the proxy's resource requests and limits, so the injector refuses what the API server would.
 *
 * ParseQuantity's grammar is looser than its documented regular expression (a bare sign, `.` or
 * `1.G` parse), so this follows its scanner rather than a regex.
 */

/** The message of apimachinery's ErrFormatWrong. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** The message of apimachinery's ErrSuffix. */
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

const SUFFIXES = new Set(["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]);
const SUFFIX_CHARS = "eEinumkKMGTP";
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/** Splits off the suffix the way apimachinery's parseQuantityString does; undefined for ErrFormatWrong. */
function quantitySuffix(str: string): string | undefined {
  let pos = 0;
  const end = str.length;
  if (str[0] === "-" || str[0] === "+") pos++;
  // A string of only sign and zeros is zero with no suffix.
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return "";
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return "";
  if (str[pos] === ".") {
    pos++;
    while (pos < end && isDigit(str[pos])) pos++;
    if (pos >= end) return "";
  }
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos] as string)) pos++;
  if (pos >= end) return str.slice(suffixStart);
  if (str[pos] === "-" || str[pos] === "+") pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return str.slice(suffixStart);
  return undefined;
}

/** Whether a decimal-exponent suffix (`e3`, `E-2`) holds an int64 exponent, as Go's ParseInt checks. */
function isExponentSuffix(suffix: string): boolean {
  if (suffix.length < 2 || (suffix[0] !== "e" && suffix[0] !== "E")) return false;
  const digits = suffix.slice(1);
  if (!/^[+-]?[0-9]+$/.test(digits)) return false;
  const n = BigInt(digits);
  return n >= -(1n << 63n) && n < 1n << 63n;
}

/** The ParseQuantity error message for `str`, or undefined when it is a valid quantity. */
export function quantityError(str: string): string | undefined {
  if (str.length === 0) return QUANTITY_FORMAT_ERROR;
  const suffix = quantitySuffix(str);
  if (suffix === undefined) return QUANTITY_FORMAT_ERROR;
  if (!SUFFIXES.has(suffix) && !isExponentSuffix(suffix)) return QUANTITY_SUFFIX_ERROR;
  return undefined;
}
