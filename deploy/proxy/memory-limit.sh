# The agent's heap limit from the container's memory limit (sourced by deploy/proxy/pilot-agent, which
# passes the result to node as --max-old-space-size), so that V8 collects harder as the heap nears the
# limit instead of the kubelet killing the container. pilot-agent's policy, ported:
#   - GOMEMLIMIT, when set, is the limit (Istio's injection template sets it to the container's
#     limits.memory, in bytes); "" and "off" mean none, and anything else but a byte count (digits, with
#     B, KiB, MiB, GiB or TiB) stops the start, as the Go runtime does (runtime/mgcpacer.go
#     readGOMEMLIMIT: "malformed GOMEMLIMIT");
#   - otherwise automemlimit (pilot/cmd/pilot-agent/main.go imports github.com/KimMachineGun/
#     automemlimit; memlimit.SetGoMemLimitWithOpts): AUTOMEMLIMIT's ratio (default 0.9; "off": none; a
#     bad ratio is reported and no limit is set) of the cgroup's limit (memlimit.FromCgroup: cgroup v2's
#     memory.max, the lowest on the way up from the process's cgroup to the mount, then cgroup v1's
#     memory.limit_in_bytes and memory.stat's hierarchical_memory_limit; "no limit" when none is set).
# Go's limit covers all of the runtime's memory; V8's --max-old-space-size covers only its old
# generation, so the heap gets the limit less what the agent uses outside it (RESERVE_MIB: Node's
# binary and libraries, the young generation, native memory; bench:agent-footprint measures it), and
# never less than half the limit.
#
# memory_limit_old_space_mib MOUNTINFO CGROUP: prints the --max-old-space-size in MiB, or nothing
# when there is no limit; exits 2 (the reason on stderr) for a malformed GOMEMLIMIT. MOUNTINFO and
# CGROUP are /proc/self/mountinfo and /proc/self/cgroup (files of a test's own in the tests).
memory_limit_old_space_mib() {
  awk -v mountinfo="$1" -v cgroupfile="$2" \
    -v gomemlimit_set="${GOMEMLIMIT+set}" -v gomemlimit="${GOMEMLIMIT-}" \
    -v automemlimit_set="${AUTOMEMLIMIT+set}" -v automemlimit="${AUTOMEMLIMIT-}" '
    # filepath.Clean for the absolute paths met here.
    function clean(p,    n, parts, out, i) {
      n = split(p, parts, "/"); out = ""
      for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == "..") { sub(/\/[^\/]*$/, "", out); continue }
        out = out "/" parts[i]
      }
      return out == "" ? "/" : out
    }
    # resolveCgroupPath: the cgroup path under the mount, "" when it is outside the mount'"'"'s root.
    function resolve(mountpoint, root, rel) {
      root = clean(root); rel = clean(rel)
      if (rel == root) return mountpoint
      if (root == "/") return clean(mountpoint "/" rel)
      if (index(rel, root "/") != 1) return ""
      return clean(mountpoint "/" substr(rel, length(root) + 2))
    }
    # The first line of a file, "" when it cannot be read.
    function firstline(file,    line) {
      line = ""
      if ((getline line < file) <= 0) line = ""
      close(file)
      gsub(/^[ \t\r]+|[ \t\r]+$/, "", line)
      return line
    }
    # walkCgroupV2Hierarchy: the lowest memory.max from the cgroup up to the mount point; -1: none.
    # A memory.max that is neither missing, "max" nor a number fails the lookup (no limit is set).
    function v2limit(path, mountpoint,    best, v, parent) {
      best = -1
      for (;;) {
        v = firstline(path "/memory.max")
        if (v != "" && v != "max" && v !~ /^[0-9]+$/) return -1
        if (v ~ /^[0-9]+$/ && (best < 0 || v + 0 < best)) best = v + 0
        if (path == mountpoint || path == "/") break
        parent = path; sub(/\/[^\/]*$/, "", parent); if (parent == "") parent = "/"
        path = parent
      }
      return best
    }
    # readMemoryLimitV1FromPath: min(memory.stat hierarchical_memory_limit, memory.limit_in_bytes); -1: none.
    function v1limit(path,    line, f, hml, lib) {
      hml = -1
      while ((getline line < (path "/memory.stat")) > 0) {
        split(line, f, " ")
        if (f[1] == "hierarchical_memory_limit") { hml = f[2] + 0; break }
      }
      close(path "/memory.stat")
      lib = firstline(path "/memory.limit_in_bytes")
      if (lib !~ /^[0-9]+$/) return -1
      lib = lib + 0
      if (lib == 0) hml = -1
      if (hml > 0 && hml < lib) lib = hml
      # getCgroupV1NoLimit: math.MaxInt64 rounded down to the page size means no limit.
      return lib >= 9223372036854771712 ? -1 : lib
    }
    function cgrouplimit(    line, n, f, head, tail, i, v1, v2, path2, path1, mp2, root2, mp1, root1, limit) {
      v1 = 0; v2 = 0
      while ((getline line < mountinfo) > 0) {
        i = index(line, " - "); if (i == 0) continue
        split(substr(line, 1, i - 1), head, " "); split(substr(line, i + 3), tail, " ")
        if (tail[1] == "cgroup2" && !v2) { v2 = 1; root2 = head[4]; mp2 = head[5] }
        if (tail[1] == "cgroup" && ("," tail[3] ",") ~ /,memory,/ && !v1) { v1 = 1; root1 = head[4]; mp1 = head[5] }
        if (tail[1] == "cgroup") v1 = v1 ? v1 : 2
      }
      close(mountinfo)
      if (!v1 && !v2) return -1
      while ((getline line < cgroupfile) > 0) {
        n = split(line, f, ":")
        if (n != 3) continue
        if (f[1] == "0" && f[2] == "") path2 = f[3]
        if (("," f[2] ",") ~ /,memory,/) path1 = f[3]
      }
      close(cgroupfile)
      if (v2 && path2 != "") {
        limit = resolve(mp2, root2, path2)
        if (limit != "") { limit = v2limit(limit, mp2); if (limit >= 0) return limit }
      }
      if (v1 == 1 && path1 != "") {
        limit = resolve(mp1, root1, path1)
        if (limit != "") return v1limit(limit)
      }
      return -1
    }
    BEGIN {
      MIB = 1048576; RESERVE_MIB = 64; MIN_OLD_MIB = 16
      if (gomemlimit_set == "set") {
        if (gomemlimit == "" || gomemlimit == "off") exit 0
        if (gomemlimit !~ /^[0-9]+(B|KiB|MiB|GiB|TiB)?$/) {
          print "pilot-agent: GOMEMLIMIT=" gomemlimit ": malformed GOMEMLIMIT (a byte count: digits, then B, KiB, MiB, GiB or TiB)" > "/dev/stderr"
          exit 2
        }
        unit = 1
        if (gomemlimit ~ /KiB$/) unit = 1024
        if (gomemlimit ~ /MiB$/) unit = MIB
        if (gomemlimit ~ /GiB$/) unit = 1024 * MIB
        if (gomemlimit ~ /TiB$/) unit = MIB * MIB
        n = gomemlimit; sub(/[A-Za-z]+$/, "", n); sub(/^0+/, "", n)
        limit = n * unit
        # Go refuses a byte count that overflows an int64.
        if (length(n) > 19 || limit > 9223372036854775807) {
          print "pilot-agent: GOMEMLIMIT=" gomemlimit ": malformed GOMEMLIMIT (the byte count overflows)" > "/dev/stderr"
          exit 2
        }
      } else {
        ratio = 0.9
        if (automemlimit_set == "set") {
          if (automemlimit == "off") exit 0
          if (automemlimit !~ /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/) {
            print "pilot-agent: cannot parse AUTOMEMLIMIT: " automemlimit > "/dev/stderr"
            exit 0
          }
          ratio = automemlimit + 0
        }
        if (ratio <= 0 || ratio > 1) {
          print "pilot-agent: invalid ratio: " automemlimit ", ratio should be in the range (0.0,1.0]" > "/dev/stderr"
          exit 0
        }
        limit = cgrouplimit()
        if (limit < 0) exit 0
        limit = int(limit * ratio)
      }
      if (limit >= 9223372036854775807) exit 0
      old = limit / MIB - RESERVE_MIB
      if (old < limit / MIB / 2) old = limit / MIB / 2
      # Go runs under any limit, collecting all the time; V8 aborts at start with an old space below a
      # few MiB, so a tiny (or zero) limit gets the smallest heap the agent starts with.
      if (old < MIN_OLD_MIB) old = MIN_OLD_MIB
      printf "%d\n", old
    }'
}
