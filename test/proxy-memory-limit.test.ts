// The proxy image's heap limit (deploy/proxy/memory-limit.sh, sourced by deploy/proxy/pilot-agent):
// pilot-agent's GOMEMLIMIT / automemlimit policy over fake cgroup trees (a mountinfo and a
// /proc/self/cgroup of the test's own, their mount points in a temporary folder), run by sh as the
// image runs it; and the flag reaching the node process the wrapper starts (V8's heap limit as the
// process itself reports it).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { repoRoot } from "./meshinject-cli.js";
import { writeProxyWrapper } from "./proxy-wrapper.js";

const MIB = 1048576;
const LIB = join(repoRoot, "deploy", "proxy", "memory-limit.sh");

describe("the proxy image's heap limit from the container's memory limit", () => {
  const base = mkdtempSync(join(tmpdir(), "meshinject-memlimit-"));
  after(() => rmSync(base, { recursive: true, force: true }));
  let n = 0;

  /** A fake tree: `files` (paths relative to its folder, `MNT` standing for it in mountinfo). */
  function tree(mountinfo: string, cgroup: string, files: Record<string, string>) {
    const dir = join(base, `t${n++}`);
    for (const [rel, text] of Object.entries({ ...files, mountinfo: mountinfo.replaceAll("MNT", dir), cgroup })) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    return dir;
  }

  /** memory_limit_old_space_mib over a tree, with only `env` set: its output, error and status. */
  function oldSpace(dir: string, env: Record<string, string> = {}) {
    const r = spawnSync(
      "sh",
      ["-c", `. "${LIB}" && memory_limit_old_space_mib "$1" "$2"`, "sh", join(dir, "mountinfo"), join(dir, "cgroup")],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env } },
    );
    return { out: r.stdout.trim(), err: r.stderr.trim(), status: r.status };
  }

  /** What V8 gets for a Go limit of `bytes`: the limit less 64 MiB, never below half of it nor 16 MiB. */
  const expected = (bytes: number) => String(Math.floor(Math.max(bytes / MIB - 64, bytes / MIB / 2, 16)));

  const V2_MOUNT = "30 22 0:27 / MNT/sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate\n";
  const v2Pod = (max: string) => tree(V2_MOUNT, "0::/\n", { "sys/fs/cgroup/memory.max": `${max}\n` });

  it("cgroup v2: 90% of memory.max (automemlimit's default ratio)", () => {
    assert.deepEqual(oldSpace(v2Pod(String(512 * MIB))), {
      out: expected(0.9 * 512 * MIB),
      err: "",
      status: 0,
    });
  });

  it("cgroup v2: the lowest memory.max from the process's cgroup up to the mount", () => {
    const dir = tree("30 22 0:27 / MNT/cg rw - cgroup2 cgroup2 rw\n", "0::/kubepods/pod1/ctr\n", {
      "cg/memory.max": "max\n",
      "cg/kubepods/memory.max": `${4096 * MIB}\n`,
      "cg/kubepods/pod1/memory.max": `${300 * MIB}\n`,
      "cg/kubepods/pod1/ctr/memory.max": "max\n",
    });
    assert.equal(oldSpace(dir).out, expected(Math.floor(0.9 * 300 * MIB)));
  });

  it("no limit anywhere, or a cgroup outside the mount's root: no flag", () => {
    assert.deepEqual(oldSpace(v2Pod("max")), { out: "", err: "", status: 0 });
    const outside = tree("30 22 0:27 /kubepods MNT/cg rw - cgroup2 cgroup2 rw\n", "0::/system.slice/x\n", {
      "cg/memory.max": `${100 * MIB}\n`,
    });
    assert.equal(oldSpace(outside).out, "");
    assert.equal(oldSpace(tree("30 22 0:27 / MNT/proc rw - proc proc rw\n", "0::/\n", {})).out, "");
  });

  it("cgroup v1 (and hybrid, v2 without the memory controller): memory.limit_in_bytes, or a lower hierarchical limit", () => {
    const mounts =
      "40 30 0:37 / MNT/sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n" +
      "34 30 0:31 / MNT/sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
      "31 30 0:28 / MNT/sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n";
    const cgroup = "4:memory:/pod/ctr\n1:cpu:/\n0::/\n";
    const limited = tree(mounts, cgroup, {
      "sys/fs/cgroup/memory/pod/ctr/memory.limit_in_bytes": `${1024 * MIB}\n`,
      "sys/fs/cgroup/memory/pod/ctr/memory.stat": `cache 0\nhierarchical_memory_limit ${256 * MIB}\nrss 0\n`,
    });
    assert.equal(oldSpace(limited).out, expected(Math.floor(0.9 * 256 * MIB)));
    const unlimited = tree(mounts, cgroup, {
      "sys/fs/cgroup/memory/pod/ctr/memory.limit_in_bytes": "9223372036854771712\n",
      "sys/fs/cgroup/memory/pod/ctr/memory.stat": "hierarchical_memory_limit 9223372036854771712\n",
    });
    assert.equal(oldSpace(unlimited).out, "");
  });

  it("GOMEMLIMIT (the injected limits.memory) wins over the cgroup, in Go's byte-count syntax", () => {
    const pod = v2Pod(String(512 * MIB));
    assert.equal(oldSpace(pod, { GOMEMLIMIT: String(1024 * MIB) }).out, expected(1024 * MIB));
    assert.equal(oldSpace(pod, { GOMEMLIMIT: "256MiB" }).out, expected(256 * MIB));
    assert.equal(oldSpace(pod, { GOMEMLIMIT: "2GiB" }).out, expected(2048 * MIB));
    assert.equal(oldSpace(pod, { GOMEMLIMIT: "100MiB" }).out, expected(100 * MIB), "never below half");
    assert.deepEqual(oldSpace(pod, { GOMEMLIMIT: "off" }), { out: "", err: "", status: 0 });
    assert.deepEqual(oldSpace(pod, { GOMEMLIMIT: "" }), { out: "", err: "", status: 0 });
  });

  it("a malformed GOMEMLIMIT stops the start with one line, as the Go runtime does", () => {
    const r = oldSpace(v2Pod(String(512 * MIB)), { GOMEMLIMIT: "1g" });
    assert.equal(r.status, 2);
    assert.equal(r.out, "");
    assert.match(r.err, /^pilot-agent: GOMEMLIMIT=1g: malformed GOMEMLIMIT/);
    assert.equal(r.err.split("\n").length, 1);
  });

  it("odd values: an overflowing GOMEMLIMIT is malformed, a zero limit still starts, memory.max is trimmed", () => {
    const overflow = oldSpace(v2Pod(String(512 * MIB)), { GOMEMLIMIT: "99999999999999999999" });
    assert.equal(overflow.status, 2);
    assert.match(overflow.err, /^pilot-agent: GOMEMLIMIT=99999999999999999999: malformed GOMEMLIMIT/);
    assert.equal(oldSpace(v2Pod(String(512 * MIB)), { GOMEMLIMIT: "0" }).out, "16");
    assert.equal(oldSpace(v2Pod(String(512 * MIB)), { GOMEMLIMIT: "1B" }).out, "16");
    assert.equal(oldSpace(v2Pod(`  ${512 * MIB}`)).out, expected(Math.floor(512 * MIB * 0.9)));
  });

  it("AUTOMEMLIMIT: the ratio, off, and a bad ratio reported with no limit set", () => {
    const pod = v2Pod(String(1000 * MIB));
    assert.equal(oldSpace(pod, { AUTOMEMLIMIT: "0.5" }).out, expected(500 * MIB));
    assert.equal(oldSpace(pod, { AUTOMEMLIMIT: "off" }).out, "");
    const bad = oldSpace(pod, { AUTOMEMLIMIT: "lots" });
    assert.deepEqual([bad.out, bad.status], ["", 0]);
    assert.match(bad.err, /cannot parse AUTOMEMLIMIT: lots/);
    const outOfRange = oldSpace(pod, { AUTOMEMLIMIT: "1.5" });
    assert.deepEqual([outOfRange.out, outOfRange.status], ["", 0]);
    assert.match(outOfRange.err, /ratio should be in the range \(0\.0,1\.0\]/);
  });

  it("the wrapper passes it to node: V8's heap limit follows GOMEMLIMIT", () => {
    const report = join(base, "heap-limit.cjs");
    writeFileSync(report, 'console.log(require("node:v8").getHeapStatistics().heap_size_limit);\n');
    const wrapper = writeProxyWrapper(join(base, "pilot-agent"), report);
    const heapLimit = (env: Record<string, string>) => {
      const r = spawnSync(wrapper, [], {
        encoding: "utf8",
        env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, ...env },
      });
      assert.equal(r.status, 0, r.stderr);
      return Number(r.stdout) / MIB;
    };
    const limited = heapLimit({ GOMEMLIMIT: String(512 * MIB) });
    // --max-old-space-size=448 and the young generation (three 1 MiB semi-spaces at most).
    assert.ok(limited >= 448 && limited <= 448 + 8, `heap limit ${limited} MiB for GOMEMLIMIT=512MiB`);
    assert.ok(heapLimit({ GOMEMLIMIT: "off", AUTOMEMLIMIT: "off" }) > 1024, "no limit: V8's own default");
    const refused = spawnSync(wrapper, [], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", GOMEMLIMIT: "x" },
    });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /malformed GOMEMLIMIT/);
  });
});
