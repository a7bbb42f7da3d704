/**
 * How many CPUs this container is given: the CPUs the process may run on
 * (`os.availableParallelism()`, which follows the affinity mask / cpuset) capped by the cgroup's CPU
 * quota (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), rounded up, at least 1.
 * A Kubernetes CPU limit of 1500m is a quota of 150000 per 100000 µs: 2 CPUs' worth of workers.
 */

import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** The CPUs' worth of a cgroup v2 `cpu.max` ("QUOTA PERIOD" or "max PERIOD"); undefined: no limit. */
export function cgroupV2Limit(cpuMax: string): number | undefined {
  const [quota, period] = cpuMax.trim().split(/\s+/);
  if (quota === undefined || quota === "max") return undefined;
  return quotaOverPeriod(Number(quota), Number(period ?? 100000));
}

/** The CPUs' worth of cgroup v1 `cpu.cfs_quota_us` (-1: no limit) over `cpu.cfs_period_us`. */
export function cgroupV1Limit(quotaUs: string, periodUs: string): number | undefined {
  return quotaOverPeriod(Number(quotaUs.trim()), Number(periodUs.trim()));
}

function quotaOverPeriod(quota: number, period: number): number | undefined {
  if (!Number.isFinite(quota) || !Number.isFinite(period) || quota <= 0 || period <= 0) return undefined;
  return quota / period;
}

/** Reads a file, or undefined when it is not there (not on Linux, no such cgroup controller). */
function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The cgroup CPU limit of this process (CPUs' worth, may be fractional), or undefined when none. */
export function cgroupCpuLimit(read: (path: string) => string | undefined = readOptional): number | undefined {
  const v2 = read("/sys/fs/cgroup/cpu.max");
  if (v2 !== undefined) return cgroupV2Limit(v2);
  for (const dir of ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"]) {
    const quota = read(`${dir}/cpu.cfs_quota_us`);
    const period = read(`${dir}/cpu.cfs_period_us`);
    if (quota !== undefined && period !== undefined) return cgroupV1Limit(quota, period);
  }
  return undefined;
}

/** The CPU count the container is given: the usable CPUs, capped by the cgroup quota rounded up; ≥ 1. */
export function containerCpuCount(
  cpus: number = availableParallelism(),
  limit: number | undefined = cgroupCpuLimit(),
): number {
  const capped = limit === undefined ? cpus : Math.min(cpus, Math.ceil(limit));
  return Math.max(1, capped);
}
