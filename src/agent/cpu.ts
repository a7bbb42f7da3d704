/**
 * CPU quantities as the downward API exposes them: `resourceFieldRef: {resource: limits.cpu, divisor}`
 * gives ceil(limit / divisor) as an integer (k8s.io/kubernetes pkg/api/v1/resource
 * convertResourceCPUToString over MilliValue, which rounds up).
 */
import { milliValue } from "../go/quantity.js";

/** The value of a downward-API `resourceFieldRef` on a CPU resource: ceil(cpu / divisor); divisor "1" when unset or zero. */
export function downwardCpu(cpu: string, divisor: string | undefined): number {
  let div = divisor === undefined || divisor === "" ? 1000n : milliValue(divisor);
  if (div === 0n) div = 1000n;
  return Math.ceil(Number(milliValue(cpu)) / Number(div));
}
