/**
 * A pod's life with our proxy image's command lines (issue 23): a Deployment with
 * `holdApplicationUntilProxyStarts` is injected by our kube-inject with native sidecars (istio-proxy
 * an init container with `restartPolicy: Always`, a startupProbe and the preStop drain) and without
 * them (the `postStart` hook `pilot-agent wait`; the template gives the hook only to non-native
 * sidecars). Then exactly the injected commands run as the image runs them (`pilot-agent` is
 * `meshinject agent`): the istio-init args through `istio-iptables --dry-run`, the istio-proxy
 * args as the agent (its env filled in as the kubelet would, the fake Envoy of
 * src/agent/envoy/testdata at the default binary path under --root), the postStart `wait`, the
 * kubelet's startupProbe, the application once they pass, and on shutdown the preStop `request`,
 * then SIGTERM. The order is the point: the application starts only after Envoy is ready; Envoy
 * drains (from the preStop hook on) before the agent exits.
 *
 * Everything runs in a network namespace of the test's own (so the fixed ports 15000, 15020 and
 * 15021 of the injected commands are free), entered with nsenter; the test talks to it with curl.
 * Envoy itself cannot be installed here, hence the fake. Skipped, saying why, where the test is not
 * root (CI runs as root).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { expandVars } from "../src/agent/expand.js";
import { injectYaml, loadInjectorConfig } from "../src/index.js";
import { splitYamlStream } from "../src/kube/stream.js";
import { containerEnv, writePodFiles } from "./kubelet.js";
import { type ChildOutput, childOutput, repoRoot } from "./meshinject-cli.js";

type Json = Record<string, unknown>;

function netnsSkip(): string | undefined {
  if (process.getuid?.() !== 0)
    return "needs root: it runs the pod in a network namespace of its own (run the tests as root to include it)";
  const probe = spawnSync("unshare", ["-n", "sh", "-c", "command -v nsenter curl ip"], { encoding: "utf8" });
  if (probe.status !== 0)
    return `cannot make a network namespace with nsenter and curl here: ${probe.stderr.trim() || probe.error?.message}`;
  return undefined;
}
const skip = netnsSkip();

const deployment = (native: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations:
        sidecar.istio.io/nativeSidecar: "${native}"
        proxy.istio.io/config: '{"holdApplicationUntilProxyStarts": true, "terminationDrainDuration": "2s"}'
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 8080}]
`;

/** The pod template of the injected Deployment. */
function injectedPod(native: boolean): Json {
  const docs = splitYamlStream(injectYaml(loadInjectorConfig(), deployment(native))).map((d) => parseYaml(d) as Json);
  const d = docs.find((x) => x?.kind === "Deployment") as Json;
  return (d.spec as Json).template as Json;
}

const containerNamed = (list: unknown, name: string) =>
  ((list as Json[] | undefined) ?? []).find((c) => c.name === name) as Json;

/** What happened, in order. */
const events: string[] = [];

describe("a pod's life with the proxy image's command lines", { skip }, () => {
  const root = mkdtempSync(join(tmpdir(), "meshinject-pod-life-"));
  let holder: ChildProcess;
  let agent: ChildProcess;
  let agentOut: ChildOutput;
  let nativePod: Json;
  let holdPod: Json;
  let proxyEnv: Record<string, string>;

  /** A command in the pod's network namespace. */
  const inPod = (argv: readonly string[], env: Record<string, string>) =>
    spawn("nsenter", ["-t", String(holder.pid), "-n", "--", ...argv], {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
  /** `pilot-agent ARGS` as the image runs it: /usr/local/bin/pilot-agent execs `meshinject agent`. */
  const pilotAgent = (args: readonly string[], env: Record<string, string>) =>
    inPod([process.execPath, "--import", "tsx", "src/cli/main.ts", "agent", ...args], env);
  /** curl in the pod's network namespace: the status code. */
  const curl = (args: readonly string[]): number => {
    const r = spawnSync(
      "nsenter",
      [
        "-t",
        String(holder.pid),
        "-n",
        "--",
        "curl",
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "--max-time",
        "5",
        ...args,
      ],
      // No proxy variables: curl speaks to the pod's loopback directly.
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } },
    );
    return Number(r.stdout);
  };
  const untilTrue = async (what: string, check: () => boolean, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}\n${agentOut?.stdout ?? ""}${agentOut?.stderr ?? ""}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  before(async () => {
    nativePod = injectedPod(true);
    holdPod = injectedPod(false);
    holder = spawn(
      "unshare",
      ["-n", "sh", "-c", "ip link set lo up && ip addr add 10.1.2.3/24 dev lo && echo up && exec sleep 600"],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const up = childOutput(holder);
    await untilTrue("the pod's network namespace", () => up.stdout.includes("up"));

    // The kubelet's part for istio-proxy: env fieldRefs, $(VAR) expansion, the podinfo files.
    const spec = nativePod.spec as Json;
    const proxy = containerNamed(spec.initContainers, "istio-proxy");
    const field: Record<string, string> = {
      "metadata.name": "web-7d4c9b-x2x7z",
      "metadata.namespace": "shop",
      "status.podIP": "10.1.2.3",
      "status.hostIP": "127.0.0.1",
      "spec.serviceAccountName": "default",
      "spec.nodeName": "node-1",
    };
    // The fake Envoy serves the bootstrap's 15021 listener too (the startupProbe's and wait's target).
    proxyEnv = containerEnv(proxy, field, {
      PATH: process.env.PATH ?? "",
      FAKE_ENVOY_READY: "false",
      FAKE_ENVOY_STATIC_LISTENERS: "true",
    });
    writePodFiles(root, nativePod.metadata as Json);
  });

  after(() => {
    if (agent !== undefined && agent.exitCode === null) agent.kill("SIGKILL");
    if (holder !== undefined && holder.exitCode === null) holder.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("injects the hold and the drain as pilot-agent commands", () => {
    const native = nativePod.spec as Json;
    const proxy = containerNamed(native.initContainers, "istio-proxy");
    assert.equal(proxy.restartPolicy, "Always");
    assert.deepEqual((proxy.lifecycle as Json).preStop, {
      exec: { command: ["pilot-agent", "request", "--debug-port=15020", "POST", "drain"] },
    });
    assert.deepEqual((proxy.startupProbe as Json).httpGet, { path: "/healthz/ready", port: 15021 });
    const held = containerNamed((holdPod.spec as Json).containers, "istio-proxy");
    assert.deepEqual((held.lifecycle as Json).postStart, { exec: { command: ["pilot-agent", "wait"] } });
  });

  it("runs istio-init's args through istio-iptables --dry-run", async () => {
    const init = containerNamed((nativePod.spec as Json).initContainers, "istio-init");
    assert.equal(init.command, undefined, "the image's entrypoint, pilot-agent, runs the args");
    const args = init.args as string[];
    assert.equal(args[0], "istio-iptables");
    const run = pilotAgent([...args, "--dry-run"], { PATH: process.env.PATH ?? "" });
    const out = childOutput(run);
    assert.equal(await out.exited, 0, out.stdout + out.stderr);
    assert.match(out.stdout, /Running iptables restore with: iptables-restore and the following input:\n\* nat\n/);
    assert.match(out.stdout, /^-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001$/m);
    events.push("istio-init done");
  });

  it("holds the application until Envoy is ready: postStart wait and the startupProbe", async () => {
    const proxy = containerNamed((nativePod.spec as Json).initContainers, "istio-proxy");
    agent = pilotAgent(
      [...((proxy.args as string[]) ?? []).map((a) => expandVars(a, (n) => proxyEnv[n])), "--root", root],
      proxyEnv,
    );
    agentOut = childOutput(agent);
    agentOut.exited.then((code) => events.push(`agent exited ${code}`));
    events.push("istio-proxy started");
    let readiness = 0;
    await untilTrue("the status server", () => {
      readiness = curl(["http://127.0.0.1:15021/healthz/ready"]);
      return readiness === 503;
    }).catch((e) => {
      throw new Error(`readiness ${readiness}: ${(e as Error).message}`);
    });

    // The postStart hook of the non-native variant, exactly as injected.
    const held = containerNamed((holdPod.spec as Json).containers, "istio-proxy");
    const hook = ((held.lifecycle as Json).postStart as Json).exec as { command: string[] };
    const wait = pilotAgent(hook.command.slice(1), { PATH: process.env.PATH ?? "" });
    const waitOut = childOutput(wait);
    waitOut.exited.then((code) => events.push(`postStart wait exited ${code}`));
    await untilTrue("wait's first line", () =>
      waitOut.stdout.includes("Waiting for Envoy proxy to be ready (timeout: 60 seconds)..."),
    );
    // Not ready: the startupProbe fails and the hook has not returned.
    assert.equal(curl(["http://127.0.0.1:15021/healthz/ready"]), 503);
    assert.equal(wait.exitCode, null, "the hook is still waiting");

    events.push("Envoy ready");
    assert.equal(curl(["-X", "POST", "http://127.0.0.1:15000/fake/ready?value=true"]), 200);
    // The kubelet starts the application after the hook returns, and after the startupProbe passes.
    await untilTrue("the postStart hook", () => wait.exitCode !== null);
    assert.equal(wait.exitCode, 0, waitOut.stdout + waitOut.stderr);
    assert.match(waitOut.stdout, /\tinfo\tEnvoy is ready!\n/);
    const startup = (proxy.startupProbe as Json).httpGet as { path: string; port: number };
    await untilTrue("the startupProbe", () => curl([`http://127.0.0.1:${startup.port}${startup.path}`]) === 200);
    events.push("application started");
  });

  it("drains on the preStop request, then exits 0 on SIGTERM", async () => {
    const proxy = containerNamed((nativePod.spec as Json).initContainers, "istio-proxy");
    const preStop = ((proxy.lifecycle as Json).preStop as Json).exec as { command: string[] };
    const request = pilotAgent(preStop.command.slice(1), { PATH: process.env.PATH ?? "" });
    const requestOut = childOutput(request);
    assert.equal(await requestOut.exited, 0, requestOut.stdout + requestOut.stderr);
    assert.equal(requestOut.stdout, "OK\n", "request prints the status server's answer and nothing else");
    events.push("preStop request done");
    // The status server's /drain starts Envoy's drain at once (pilot-agent's DrainNow), while the
    // application is still being stopped.
    await untilTrue("Envoy's drain", () => agentOut.stdout.includes("drain_listeners ?inboundonly&graceful"));
    events.push("Envoy draining");
    events.push("application stopped");
    // The kubelet stops the sidecar last.
    agent.kill("SIGTERM");
    events.push("SIGTERM");
    assert.equal(await agentOut.exited, 0, agentOut.stdout + agentOut.stderr);
    assert.deepEqual(events, [
      "istio-init done",
      "istio-proxy started",
      "Envoy ready",
      "postStart wait exited 0",
      "application started",
      "preStop request done",
      "Envoy draining",
      "application stopped",
      "SIGTERM",
      "agent exited 0",
    ]);
  });
});
