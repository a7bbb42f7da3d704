/**
 * `meshinject agent` as a user meets it: bad input gives one line on stderr and exit 1, never a
 * stack trace; `agent bootstrap` prints the bootstrap the agent would write, starting nothing.
 * What is refused before anything starts runs in process (main(argv, io)); what starts the agent's
 * servers or Envoy runs the real binary.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { repoRoot, runMeshinject } from "../../test/meshinject-cli.js";
import { writePodSecrets } from "../../test/pod-secrets.js";
import { splitOwnFlags } from "./agent.js";

const root = mkdtempSync(join(tmpdir(), "meshinject-agent-cli-"));
after(() => rmSync(root, { recursive: true, force: true }));

const POD = { POD_NAME: "web-1", POD_NAMESPACE: "shop", INSTANCE_IP: "10.0.0.5", PATH: process.env.PATH ?? "" };

/** `meshinject agent ARGS --root ROOT` in process, with `env` as its whole environment. */
function agent(args: string[], env: Record<string, string>) {
  return runMeshinject(["agent", ...args, "--root", root], { env });
}

/** The same as a process of its own, for runs that start the agent's servers or Envoy. */
function agentProcess(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", "agent", ...args, "--root", root], {
    cwd: repoRoot,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function oneLineError(r: { code: number | null; stderr: string }, pattern: RegExp) {
  assert.equal(r.code, 1);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0] as string, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
}

describe("meshinject agent", () => {
  it("refuses an unparsable PROXY_CONFIG in one line", async () => {
    const r = await agent(["proxy", "sidecar"], { ...POD, PROXY_CONFIG: "{drainDuration: [" });
    oneLineError(r, /^meshinject agent: .*PROXY_CONFIG/);
  });

  it("refuses a missing Envoy binary in one line", () => {
    // The SDS server and the XDS proxy start first (as pilot-agent's): they need the pod's CA root and token.
    writePodSecrets(root);
    const r = agentProcess(["proxy", "sidecar", "--status-host", "127.0.0.1"], {
      ...POD,
      PROXY_CONFIG: `{"statusPort": ${40000 + (process.pid % 20000)}, "binaryPath": "/nowhere/envoy"}`,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /meshinject agent: cannot start Envoy .*\/nowhere\/envoy: no such file\n$/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  it("reports a status port in use in one line", async () => {
    const { createServer } = await import("node:net");
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = agentProcess(["proxy", "--status-host", "127.0.0.1"], {
        ...POD,
        PROXY_CONFIG: `{"statusPort": ${port}}`,
      });
      oneLineError(r, new RegExp(`status server on port ${port}: .*EADDRINUSE`));
    } finally {
      busy.close();
    }
  });

  it("runs without POD_NAME and POD_NAMESPACE (a VM), as pilot-agent does", async () => {
    const r = await agent(["bootstrap"], { PATH: POD.PATH, INSTANCE_IP: "10.0.0.5" });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).node.id, "sidecar~10.0.0.5~.~.svc.cluster.local");
  });

  it("refuses what pilot-agent refuses", async () => {
    oneLineError(await agent(["proxy", "gateway"], POD), /Invalid proxy Type: gateway/);
    oneLineError(await agent(["proxy", "--concurrency=two"], POD), /--concurrency/);
    oneLineError(await agent(["proxy", "--log_output_level=default:loud"], POD), /invalid output level "loud"/);
  });

  it("prints the bootstrap it would write, from the built-in template", async () => {
    const r = await agent(["bootstrap", "sidecar", "--domain", "shop.svc.cluster.local"], {
      ...POD,
      ISTIO_META_CLUSTER_ID: "east",
      ISTIO_METAJSON_LABELS: '{"app":"web"}',
    });
    assert.equal(r.code, 0, r.stderr);
    const b = JSON.parse(r.stdout);
    assert.equal(b.node.id, "sidecar~10.0.0.5~web-1.shop~shop.svc.cluster.local");
    assert.equal(b.node.cluster, "web.shop");
    assert.equal(b.node.metadata.CLUSTER_ID, "east");
    assert.equal(b.node.metadata.NAMESPACE, "shop");
    assert.equal(b.admin.address.socket_address.port_value, 15000);
  });

  it("keeps --root and --status-host for itself", () => {
    assert.deepEqual(splitOwnFlags(["--domain", "d", `--root=${root}`, "--status-host", "127.0.0.1"]), {
      root,
      statusHost: "127.0.0.1",
      rest: ["--domain", "d"],
    });
  });

  it("refuses a --root that is not a folder in one line, naming it", async () => {
    const file = join(root, "a-file");
    writeFileSync(file, "");
    for (const [where, why] of [
      [file, "not a folder"],
      [join(root, "missing"), "no such folder"],
    ] as const) {
      const r = await runMeshinject(["agent", "bootstrap", "--root", where], { env: POD });
      oneLineError(r, new RegExp(`^meshinject agent: --root ${where}: ${why}$`));
    }
  });

  it("prints pilot-agent's proxy help and its own flags for --help and -h, exit 0", async () => {
    for (const args of [
      ["proxy", "--help"],
      ["bootstrap", "-h"],
      ["bootstrap", "sidecar", "--domain", "d", "-h"],
    ]) {
      const r = await runMeshinject(["agent", ...args], { env: {} });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, "");
      assert.match(r.stdout, /^Usage:\n {2}pilot-agent proxy \[flags\]$/m);
      assert.match(
        r.stdout,
        /^ {6}--meshConfig string +File name for Istio mesh configuration\..* \(default "\.\/etc\/istio\/config\/mesh"\)$/m,
      );
      assert.match(r.stdout, /^ {2}-h, --help +help for proxy$/m);
      assert.match(r.stdout, /^Global Flags:\n {6}--log_as_json /m);
      assert.match(r.stdout, /^ {6}--root string +the folder pilot-agent's paths resolve under/m);
    }
  });
});
