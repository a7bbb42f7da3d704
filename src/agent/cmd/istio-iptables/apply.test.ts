/**
 * `meshinject agent istio-iptables` applying the rules for real, as root, in a network namespace
 * of the test's own (`unshare -n`, loopback up with a pod address on it), checked with the
 * iptables and nft tools themselves (iptables-save, nft list): the istio-init arguments of an
 * injected pod programmed, proved by `--run-validation` (run as uid 1337, as the istio-validation
 * container runs: the rules capture only the proxy's own loopback traffic), applied again without
 * change, reconciled to new ports, removed by `--cleanup-only`; the same with `--native-nftables`;
 * and `--dry-run` changing nothing while recording (DRY_RUN_FILE_PATH) what Istio's recording stub
 * records. Skipped, saying why, where the test is not root or cannot make a network namespace
 * (CI runs as root).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { repoRoot } from "../../../../test/meshinject-cli.js";
import { injectYaml, loadInjectorConfig } from "../../../index.js";
import { splitYamlStream } from "../../../kube/stream.js";
import { parseCaptureArgs } from "../../capture/flags.js";
import { iptablesRestore, iptablesRun } from "../../capture/iptables.js";

type Json = Record<string, unknown>;

/** Why the namespace tests cannot run here, or undefined when they can. */
function netnsSkip(): string | undefined {
  if (process.getuid?.() !== 0)
    return "needs root: it makes a network namespace of its own and programs iptables and nft there (run the tests as root to include it)";
  const probe = spawnSync(
    "unshare",
    ["-n", "sh", "-c", "iptables-nft -t nat -L >/dev/null && nft list ruleset >/dev/null && command -v ip setpriv"],
    {
      encoding: "utf8",
    },
  );
  if (probe.status !== 0)
    return `cannot program iptables/nft in a network namespace here: ${probe.stderr.trim() || probe.error?.message}`;
  return undefined;
}
const skip = netnsSkip();

const dir = mkdtempSync(join(tmpdir(), "meshinject-istio-iptables-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The istio-init container's args as our kube-inject writes them for a Deployment (after `istio-iptables`). */
function injectedInitArgs(): string[] {
  const workload =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n" +
    "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n" +
    "    spec:\n      containers: [{name: web, image: nginx}]\n";
  const doc = splitYamlStream(injectYaml(loadInjectorConfig(), workload))
    .map((d) => parseYaml(d) as Json)
    .find((d) => d?.kind === "Deployment") as Json;
  const spec = ((doc.spec as Json).template as Json).spec as Json;
  const init = (spec.initContainers as Json[]).find((c) => c.name === "istio-init") as Json;
  const args = init.args as string[];
  assert.equal(args[0], "istio-iptables");
  return args.slice(1);
}
const INIT_ARGS = injectedInitArgs();

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const agentLine = (args: readonly string[]) =>
  [process.execPath, "--import", "tsx", "src/cli/main.ts", "agent", "istio-iptables", ...args].map(q).join(" ");

interface Step {
  name: string;
  /** A shell command run in the namespace; its output goes to <name>.out, its exit code to <name>.rc. */
  sh: string;
}

/** Runs the steps in one new network namespace (loopback up, 10.1.2.3 on it as the pod's address). */
function inNetns(
  steps: Step[],
  env: Record<string, string> = {},
  podAddress = "10.1.2.3/24",
): Map<string, { rc: number; out: string }> {
  const script = [
    "ip link set lo up",
    `ip addr add ${podAddress} dev lo`,
    ...steps.map(
      (s) => `( ${s.sh} ) > ${q(join(dir, `${s.name}.out`))} 2>&1; echo $? > ${q(join(dir, `${s.name}.rc`))}`,
    ),
  ].join("\n");
  const r = spawnSync("unshare", ["-n", "bash", "-c", script], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
    timeout: 180_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const results = new Map<string, { rc: number; out: string }>();
  for (const s of steps) {
    results.set(s.name, {
      rc: Number(readFileSync(join(dir, `${s.name}.rc`), "utf8")),
      out: readFileSync(join(dir, `${s.name}.out`), "utf8"),
    });
  }
  return results;
}

const asProxy = (line: string) => `setpriv --reuid 1337 --regid 1337 --clear-groups ${line}`;
/** The rules of iptables-save's nat table, without counters and comments. */
const natRules = (save: string) => save.split("\n").filter((l) => l.startsWith("-A "));

describe("agent istio-iptables in a network namespace", { skip }, () => {
  it("programs the injected pod's rules, proves them, keeps them on a second run, reconciles and cleans up", () => {
    const nft = ["--force-iptables-binary", "nft"];
    const r = inNetns([
      {
        name: "validate-before",
        sh: asProxy(agentLine([...INIT_ARGS, "--skip-rule-apply", "--run-validation", "--probe-timeout=2s"])),
      },
      { name: "apply", sh: agentLine([...INIT_ARGS, ...nft]) },
      { name: "saved", sh: "iptables-nft-save -t nat" },
      {
        name: "validate",
        sh: asProxy(agentLine([...INIT_ARGS, "--skip-rule-apply", "--run-validation", "--probe-timeout=30s"])),
      },
      { name: "again", sh: agentLine([...INIT_ARGS, ...nft]) },
      { name: "saved-again", sh: "iptables-nft-save -t nat" },
      {
        name: "reconcile",
        sh: agentLine([...INIT_ARGS.map((a) => (a === "15001" ? "15009" : a)), ...nft, "--reconcile"]),
      },
      { name: "saved-reconciled", sh: "iptables-nft-save -t nat; iptables-nft-save -t filter" },
      {
        name: "cleanup",
        sh: agentLine([...INIT_ARGS.map((a) => (a === "15001" ? "15009" : a)), ...nft, "--cleanup-only"]),
      },
      { name: "saved-clean", sh: "iptables-nft-save" },
    ]);
    const get = (name: string) => r.get(name) as { rc: number; out: string };

    // Before any rule, the probe is refused: validation fails with Istio's code.
    assert.equal(get("validate-before").rc, 126, get("validate-before").out);
    assert.match(get("validate-before").out, /\terror\tiptables validation failed; workload is not ready for Istio\./);

    assert.equal(get("apply").rc, 0, get("apply").out);
    assert.match(get("apply").out, /\tinfo\tClean-state detected, new iptables are needed\n/);
    // What iptables itself reports is the planned rule set: the same chains, the same number of rules.
    const config = parseCaptureArgs(INIT_ARGS).config;
    const planned = iptablesRestore(config).v4.filter((l) => l.startsWith("-A "));
    const saved = natRules(get("saved").out);
    assert.equal(saved.length, planned.length, get("saved").out);
    const chainsOf = (rules: string[]) => rules.map((l) => l.split(" ")[1]).sort();
    assert.deepEqual(chainsOf(saved), chainsOf(planned));
    assert.ok(saved.includes("-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001"), get("saved").out);
    assert.ok(saved.includes("-A ISTIO_INBOUND -p tcp -m tcp --dport 15020 -j RETURN"), get("saved").out);

    assert.equal(get("validate").rc, 0, get("validate").out);
    assert.match(get("validate").out, /\tinfo\tValidation passed, iptables rules established\n/);

    assert.equal(get("again").rc, 0, get("again").out);
    assert.match(
      get("again").out,
      /Found compatible residues of old iptables rules\/chains, reconciliation not needed/,
    );
    assert.doesNotMatch(get("again").out, /Running iptables restore/);
    assert.deepEqual(natRules(get("saved-again").out), saved);

    assert.equal(get("reconcile").rc, 0, get("reconcile").out);
    assert.match(
      get("reconcile").out,
      /reconciliation is recommended[\s\S]*Setting up guardrails[\s\S]*Performing cleanup[\s\S]*Applying iptables chains and rules[\s\S]*Removing guardrails/,
    );
    const reconciled = get("saved-reconciled").out;
    assert.match(reconciled, /^-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15009$/m);
    assert.doesNotMatch(reconciled, /--to-ports 15001/);
    assert.doesNotMatch(reconciled, /-j DROP/, "the guardrails are gone");
    assert.equal(natRules(reconciled).length, planned.length);

    assert.equal(get("cleanup").rc, 0, get("cleanup").out);
    assert.doesNotMatch(get("saved-clean").out, /ISTIO/);
  });

  it("applies and removes the nftables transaction with --native-nftables", () => {
    const r = inNetns([
      { name: "nft-apply", sh: agentLine([...INIT_ARGS, "--native-nftables"]) },
      { name: "nft-list", sh: "nft list ruleset" },
      { name: "nft-cleanup", sh: agentLine([...INIT_ARGS, "--native-nftables", "--cleanup-only"]) },
      { name: "nft-list-clean", sh: "nft list ruleset" },
    ]);
    const get = (name: string) => r.get(name) as { rc: number; out: string };
    assert.equal(get("nft-apply").rc, 0, get("nft-apply").out);
    const listed = get("nft-list").out;
    assert.match(listed, /table inet istio-proxy-nat \{/);
    assert.match(listed, /chain istio-redirect \{[^}]*redirect to :15001/);
    assert.match(listed, /chain istio-inbound \{[^}]*tcp dport 15020 counter packets 0 bytes 0 return/);
    assert.equal(get("nft-cleanup").rc, 0, get("nft-cleanup").out);
    assert.doesNotMatch(get("nft-list-clean").out, /istio-proxy/);
  });

  it("with --dry-run changes nothing and records what Istio's stub records", () => {
    const record = join(dir, "dry-run.txt");
    writeFileSync(record, "");
    const r = inNetns(
      [
        { name: "dry", sh: agentLine([...INIT_ARGS, "--dry-run"]) },
        { name: "dry-saved", sh: "iptables-nft-save; iptables-legacy-save" },
      ],
      { DRY_RUN_FILE_PATH: record },
    );
    const get = (name: string) => r.get(name) as { rc: number; out: string };
    assert.equal(get("dry").rc, 0, get("dry").out);
    assert.match(get("dry").out, /running iptables in dry-run mode, no rule changes will be made/);
    assert.doesNotMatch(get("dry-saved").out, /ISTIO/);
    const config = { ...parseCaptureArgs(INIT_ARGS).config, HostIP: "10.1.2.3" };
    assert.deepEqual(readFileSync(record, "utf8").split("\n").slice(0, -1), iptablesRun(config));
  });

  it("sets TPROXY's policy routing, and for an IPv6 pod ::6 on lo and the ip6tables rules", () => {
    const tproxyArgs = INIT_ARGS.map((a) => (a === "REDIRECT" ? "TPROXY" : a));
    const r = inNetns(
      [
        { name: "tproxy", sh: agentLine([...tproxyArgs, "--force-iptables-binary", "nft"]) },
        {
          name: "routes",
          sh: "ip -6 rule; ip -6 route show table 133; ip -6 addr show dev lo; ip6tables-nft-save -t mangle",
        },
      ],
      {},
      "fd00::3/64",
    );
    const get = (name: string) => r.get(name) as { rc: number; out: string };
    assert.equal(get("tproxy").rc, 0, get("tproxy").out);
    assert.match(get("tproxy").out, /^ENABLE_INBOUND_IPV6=true$/m);
    const routes = get("routes").out;
    assert.match(routes, /from all fwmark 0x539 lookup 133/);
    assert.match(routes, /^local default dev lo /m);
    assert.match(routes, /inet6 ::6\/128 scope global/);
    assert.match(
      routes,
      /^-A ISTIO_TPROXY ! -d ::1\/128 -p tcp -j TPROXY --on-port 15006 --on-ip :: --tproxy-mark 0x539\/0xffffffff$/m,
    );
  });
});
