/**
 * `meshinject agent istio-iptables` where no root is needed, in process: its help, a refused flag,
 * and `--dry-run`, which runs nothing and records (DRY_RUN_FILE_PATH) exactly what Istio's
 * recording stub records for the same config (capture/iptables.ts `iptablesRun`, checked against
 * Istio's iptables corpus). The namespace tests (apply.test.ts) program the rules for real.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runMeshinject } from "../../../../test/meshinject-cli.js";
import { parseCaptureArgs } from "../../capture/flags.js";
import { iptablesRun } from "../../capture/iptables.js";

const dir = mkdtempSync(join(tmpdir(), "meshinject-istio-iptables-cmd-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const ARGS = [
  "-p",
  "15001",
  "-z",
  "15006",
  "-u",
  "1337",
  "-m",
  "REDIRECT",
  "-i",
  "10.0.0.0/8",
  "-b",
  "*",
  "-d",
  "15090,15021,15020",
  "-q",
  "9000",
];

describe("agent istio-iptables", () => {
  it("prints cobra's help for -h, with the flags' shorthands and defaults, exit 0", async () => {
    const r = await runMeshinject(["agent", "istio-iptables", "-h"], { env: {} });
    assert.equal(r.code, 0);
    assert.match(
      r.stdout,
      /^istio-iptables is responsible for setting up port forwarding for Istio Sidecar\.\n\nUsage:\n {2}pilot-agent istio-iptables \[flags\]\n/,
    );
    assert.match(
      r.stdout,
      /^ {2}-p, --envoy-port string +Specify the envoy port to which redirect all TCP traffic\. \(default "15001"\)$/m,
    );
    assert.match(
      r.stdout,
      /^ {6}--iptables-probe-port uint16 +Set listen port for failure detection\. \(default 15002\)$/m,
    );
    assert.match(r.stdout, /^ {6}--probe-timeout duration +Failure detection timeout\. \(default 5s\)$/m);
    assert.match(r.stdout, /^ {2}-n, --dry-run +Do not call any external dependencies like iptables\.$/m);
  });

  it("refuses a flag it does not have as pilot-agent does (exit 255)", async () => {
    const r = await runMeshinject(["agent", "istio-iptables", "--no-such-flag"], { env: {} });
    assert.equal(r.code, 255);
    assert.match(r.stderr, /^Error: unknown flag: --no-such-flag/);
  });

  it("with --dry-run records what Istio's stub records, and logs the restore input", async () => {
    const record = join(dir, "record.txt");
    const r = await runMeshinject(["agent", "istio-iptables", ...ARGS, "--dry-run"], {
      env: { DRY_RUN_FILE_PATH: record },
    });
    assert.equal(r.code, 0, r.stdout);
    // Whether the host has IPv6 decides the config; the command prints what it found.
    const ipv6 = /^ENABLE_INBOUND_IPV6=(true|false)$/m.exec(r.stdout)?.[1] === "true";
    const config = { ...parseCaptureArgs(ARGS).config, EnableIPv6: ipv6 };
    assert.deepEqual(readFileSync(record, "utf8").split("\n").slice(0, -1), iptablesRun(config));
    assert.match(
      r.stdout,
      /\tinfo\tRunning iptables restore with: iptables-restore and the following input:\n\* nat\n-N ISTIO_INBOUND\n/,
    );
    assert.match(r.stdout, /^-A ISTIO_OUTPUT -p tcp --dport 9000 -j ISTIO_REDIRECT$/m);
    assert.match(r.stdout, /\tinfo\tskipping configuring routes due to dry run mode\n$/);
  });

  it("stops with exit 1 on a setting Istio refuses", async () => {
    const r = await runMeshinject(["agent", "istio-iptables", ...ARGS, "--dry-run"], {
      env: { ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR: "10.0.0.1/32" },
    });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /\terror\tHostIPv4LoopbackCidr \(ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR\): expected an IPv4 loopback address/,
    );
  });

  it("takes an empty proxy uid from ENVOY_USER's entry in /etc/passwd, 1337 without one", async () => {
    const withoutUid = ARGS.filter((_, i) => ARGS[i] !== "-u" && ARGS[i - 1] !== "-u");
    const root = await runMeshinject(["agent", "istio-iptables", ...withoutUid, "--dry-run"], {
      env: { ENVOY_USER: "root" },
    });
    assert.equal(root.code, 0, root.stdout);
    assert.match(root.stdout, /^PROXY_UID=0\nPROXY_GID=0$/m);
    const none = await runMeshinject(["agent", "istio-iptables", ...withoutUid, "--dry-run"], {
      env: { ENVOY_USER: "no-such-user-here" },
    });
    assert.match(none.stdout, /^PROXY_UID=1337\nPROXY_GID=1337$/m);
  });
});
