/**
 * CPU quantities as the downward API exposes them: `resourceFieldRef: {resource: limits.cpu, divisor}`
 * gives ceil(limit / divisor) as an integer (k8s.io/kubernetes pkg/api/v1/resource
 * convertResourceCPUToString over MilliValue, which rounds up).
 */
import { quantityError } from "../inject/annotations-quantity.js";

/** A quantity Kubernetes would refuse; the message quotes it and says why. */
export class QuantityError extends Error {
  override name = "QuantityError";
}

const SI: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, bigint> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };

/** `resource.Quantity.MilliValue()`: the quantity in thousandths, rounded up. Throws on a malformed quantity. */
export function milliValue(quantity: string): bigint {
  const error = quantityError(quantity);
  if (error !== undefined) throw new QuantityError(`quantity ${JSON.stringify(quantity)}: ${error}`);
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(quantity) as RegExpExecArray;
  const [, sign, whole = "", fraction = "", suffix = ""] = m;
  let num = BigInt(`${whole}${fraction}` || "0");
  let den = 10n ** BigInt(fraction.length);
  let exp10 = 3; // milli
  if (suffix in BINARY) num *= 1n << (BINARY[suffix] as bigint);
  else if (suffix in SI) exp10 += SI[suffix] as number;
  else exp10 += Number(suffix.slice(1)); // e/E exponent
  if (exp10 >= 0) num *= 10n ** BigInt(exp10);
  else den *= 10n ** BigInt(-exp10);
  const negative = sign === "-";
  const q = num / den;
  const rounded = num % den === 0n || negative ? q : q + 1n;
  return negative ? -rounded : rounded;
}

/** The value of a downward-API `resourceFieldRef` on a CPU resource: ceil(cpu / divisor); divisor "1" when unset or zero. */
export function downwardCpu(cpu: string, divisor: string | undefined): number {
  let div = divisor === undefined || divisor === "" ? 1000n : milliValue(divisor);
  if (div === 0n) div = 1000n;
  return Math.ceil(Number(milliValue(cpu)) / Number(div));
}
