import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { describe, test } from "node:test";
import { cgroupCpuLimit, cgroupV1Limit, cgroupV2Limit, containerCpuCount } from "./cpu-count.js";

describe("the container's CPU count", () => {
  test("cgroup v2 cpu.max: quota over period; max is no limit", () => {
    assert.equal(cgroupV2Limit("max 100000\n"), undefined);
    assert.equal(cgroupV2Limit("150000 100000\n"), 1.5);
    assert.equal(cgroupV2Limit("50000 100000"), 0.5);
    assert.equal(cgroupV2Limit("garbage"), undefined);
  });

  test("cgroup v1: cfs_quota_us over cfs_period_us; -1 is no limit", () => {
    assert.equal(cgroupV1Limit("-1\n", "100000\n"), undefined);
    assert.equal(cgroupV1Limit("200000\n", "100000\n"), 2);
  });

  test("v2 is read first, then the v1 controllers' folders", () => {
    const files: Record<string, string> = {
      "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "300000",
      "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000",
    };
    assert.equal(
      cgroupCpuLimit((p) => files[p]),
      3,
    );
    assert.equal(
      cgroupCpuLimit((p) => ({ ...files, "/sys/fs/cgroup/cpu.max": "250000 100000" })[p]),
      2.5,
    );
    assert.equal(
      cgroupCpuLimit(() => undefined),
      undefined,
    );
  });

  test("the usable CPUs, capped by the quota rounded up, at least 1", () => {
    assert.equal(containerCpuCount(8, undefined), 8);
    assert.equal(containerCpuCount(8, 1.5), 2);
    assert.equal(containerCpuCount(8, 0.25), 1);
    assert.equal(containerCpuCount(2, 16), 2);
    assert.equal(containerCpuCount(0, undefined), 1);
  });

  test("on this machine: between 1 and the usable CPUs", () => {
    const n = containerCpuCount();
    assert.ok(n >= 1 && n <= availableParallelism(), String(n));
  });
});
