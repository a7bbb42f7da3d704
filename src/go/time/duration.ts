/** Go's time.Duration: ParseDuration and String, over nanoseconds as bigint. */
import { GoError } from "../value.js";
import { timeQuote } from "./quote.js";

/** A duration Go's time.ParseDuration rejects, with Go's message (a GoError, so templates report it as Go does). */
export class DurationError extends GoError {
  override name = "DurationError";
}

const isDigitAt = (s: string, i: number): boolean => i < s.length && s[i] >= "0" && s[i] <= "9";

const NS = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
} as Record<string, bigint>;
const MAX_DUR = 1n << 63n;

/** time.ParseDuration, in nanoseconds; throws {@link DurationError}. */
export function parseDuration(orig: string): bigint {
  const invalid = () => new DurationError(`time: invalid duration ${timeQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid();
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigitAt(s, 0))) throw invalid();
    const intPart = /^\d*/.exec(s)?.[0] ?? "";
    s = s.slice(intPart.length);
    let v = intPart === "" ? 0n : BigInt(intPart);
    if (v > MAX_DUR) throw invalid();
    let frac = "";
    if (s[0] === ".") {
      s = s.slice(1);
      frac = /^\d*/.exec(s)?.[0] ?? "";
      s = s.slice(frac.length);
      if (intPart === "" && frac === "") throw invalid();
    } else if (intPart === "") throw invalid();
    const unitText = /^[^.0-9]*/.exec(s)?.[0] ?? "";
    if (unitText === "") throw new DurationError(`time: missing unit in duration ${timeQuote(orig)}`);
    s = s.slice(unitText.length);
    const unit = NS[unitText];
    if (unit === undefined)
      throw new DurationError(`time: unknown unit ${timeQuote(unitText)} in duration ${timeQuote(orig)}`);
    if (v > MAX_DUR / unit) throw invalid();
    v *= unit;
    if (frac !== "") {
      // Go accumulates at most ~19 fraction digits, then scales in float64.
      const digits = frac.slice(0, 18);
      const f = Number(digits.replace(/^0+(?=\d)/, "")) * (Number(unit) / 10 ** digits.length);
      v += BigInt(Math.trunc(f));
      if (v > MAX_DUR) throw invalid();
    }
    d += v;
    if (d > MAX_DUR) throw invalid();
  }
  if (neg) return -d;
  if (d > MAX_DUR - 1n) throw invalid();
  return d;
}

/** time.Duration.String: `1h2m3.5s`, `1.5ms`, `0s`. */
export function durationString(d: bigint): string {
  d = BigInt.asIntN(64, d);
  const neg = d < 0n;
  let u = BigInt.asUintN(64, neg ? -d : d);
  if (u === 0n) return "0s";
  const frac = (v: bigint, prec: number): [string, bigint] => {
    let digits = "";
    for (let i = 0; i < prec; i++) {
      digits = String(v % 10n) + digits;
      v /= 10n;
    }
    digits = digits.replace(/0+$/, "");
    return [digits === "" ? "" : `.${digits}`, v];
  };
  let out: string;
  if (u < 1_000_000_000n) {
    const [prec, unit] = u < 1000n ? [0, "ns"] : u < 1_000_000n ? [3, "µs"] : [6, "ms"];
    const [f, whole] = frac(u, prec);
    out = `${whole}${f}${unit}`;
  } else {
    const [f, secs] = frac(u, 9);
    u = secs;
    out = `${u % 60n}${f}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** Duration.Round(time.Second): halves round away from zero. */
export function roundToSecond(d: bigint): bigint {
  const m = 1_000_000_000n;
  const r = d % m;
  if (d < 0n) {
    const nr = -r;
    return nr + nr < m ? d + nr : d - m + nr;
  }
  return r + r < m ? d - r : d + m - r;
}
