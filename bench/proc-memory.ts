/**
 * A process's memory as an operator reads it: VmRSS and VmHWM (its peak) from /proc/PID/status, in
 * MiB, and the statistics the footprint bench reports over a series of samples.
 */
import { readFileSync } from "node:fs";

export interface Memory {
  rssMiB: number;
  hwmMiB: number;
}

/** /proc/PID/status's VmRSS and VmHWM. */
export function readMemory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
    if (m === null) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(m[1]) / 1024;
  };
  return { rssMiB: kib("VmRSS"), hwmMiB: kib("VmHWM") };
}

/** The CPU time (user + system) a process has used, in seconds (/proc/PID/stat's utime and stime). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat(5), counted from the state (field 3) here; clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The median (the mean of the middle two for an even count). */
export function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The least-squares slope of `ys` over `xs` (units of y per unit of x). */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    den += ((xs[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
