/**
 * google.protobuf.Duration in protobuf-JSON form. Istio's jsonpb reads durations with Go's
 * time.ParseDuration (so `1m`, `500ms` and `1h30m` are accepted) and writes them as seconds with 0, 3,
 * 6 or 9 fraction digits (`45s`, `0.500s`, `0.000010s`). Values are handled as nanoseconds (bigint).
 */

const NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5
  μs: 1_000n, // U+03BC
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const INT64_MAX = 2n ** 63n - 1n;

/** A Go time error, with Go's message. */
export class DurationError extends Error {
  override name = "DurationError";
}

/** Go's strconv.Quote for the ASCII text durations use (enough for error messages). */
function quote(s: string): string {
  return JSON.stringify(s);
}

/** time.ParseDuration: nanoseconds, or a DurationError with Go's message. */
export function parseGoDuration(text: string): bigint {
  const orig = text;
  let s = text;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw new DurationError(`time: invalid duration ${quote(orig)}`);
  let total = 0n;
  while (s !== "") {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s) as RegExpExecArray;
    const intPart = m[1] ?? "";
    const frac = m[2];
    if (intPart === "" && (frac === undefined || frac === "")) {
      throw new DurationError(`time: invalid duration ${quote(orig)}`);
    }
    s = s.slice(m[0].length);
    const u = /^[^0-9.]*/.exec(s)?.[0] ?? "";
    if (u === "") throw new DurationError(`time: missing unit in duration ${quote(orig)}`);
    const unit = NS[u];
    if (unit === undefined) throw new DurationError(`time: unknown unit ${quote(u)} in duration ${quote(orig)}`);
    s = s.slice(u.length);
    let v = BigInt(intPart === "" ? "0" : intPart) * unit;
    if (frac) {
      // Go scales the fraction with float math; exact rounding down is equivalent for sane inputs.
      v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    }
    total += v;
    if (total > INT64_MAX + (neg ? 1n : 0n)) throw new DurationError(`time: invalid duration ${quote(orig)}`);
  }
  return neg ? -total : total;
}

/** protobuf-JSON text of a duration (without quotes): `45s`, `1.500s`, `-0.000001s`. */
export function formatProtoDuration(nanos: bigint): string {
  const sign = nanos < 0n ? "-" : "";
  const abs = nanos < 0n ? -nanos : nanos;
  const secs = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, "0");
  // Trim "000" twice, then a bare ".000": 0, 3, 6 or 9 fraction digits remain.
  let text = `${sign}${secs}.${frac}`;
  for (let i = 0; i < 2 && text.endsWith("000"); i++) text = text.slice(0, -3);
  if (text.endsWith(".000")) text = text.slice(0, -4);
  return `${text}s`;
}

/** Reads a protobuf-JSON duration (as jsonpb does, via time.ParseDuration) into nanoseconds. */
export function parseProtoDuration(text: string): bigint {
  return parseGoDuration(text);
}

/** Seconds and nanos of a durationpb.Duration with the given nanoseconds. */
export function durationParts(nanos: bigint): { seconds: bigint; nanos: number } {
  const seconds = nanos / 1_000_000_000n; // truncates toward zero, as protobuf requires
  return { seconds, nanos: Number(nanos - seconds * 1_000_000_000n) };
}

/** Go's time.Duration.String: `45s`, `1m0s`, `1h0m0s`, `1.5s`, `500ms`, `10µs`, `0s`. */
export function goDurationString(d: bigint): string {
  if (d === 0n) return "0s";
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < 1_000_000_000n) {
    let unit: string;
    let scale: bigint;
    if (u < 1_000n) return `${neg ? "-" : ""}${u}ns`;
    if (u < 1_000_000n) {
      unit = "µs";
      scale = 1_000n;
    } else {
      unit = "ms";
      scale = 1_000_000n;
    }
    out = fixed(u, scale) + unit;
  } else {
    const h = u / 3_600_000_000_000n;
    u -= h * 3_600_000_000_000n;
    const m = u / 60_000_000_000n;
    u -= m * 60_000_000_000n;
    out = `${fixed(u, 1_000_000_000n)}s`;
    if (h > 0n) out = `${h}h${m}m${out}`;
    else if (m > 0n) out = `${m}m${out}`;
  }
  return (neg ? "-" : "") + out;
}

/** `v / scale` with the fraction's trailing zeros removed. */
function fixed(v: bigint, scale: bigint): string {
  const whole = v / scale;
  const digits = scale.toString().length - 1;
  const frac = (v % scale).toString().padStart(digits, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}
