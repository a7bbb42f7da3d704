/**
 * End to end, the point of issue 12: a workload with HTTP, TCP and gRPC probes is injected with our
 * kube-inject; `meshinject agent` is started as its own process with the injected istio-proxy
 * container's command line and environment — downward-API values filled in as the kubelet would
 * (env fieldRefs, `$(VAR)` expansion, the podinfo annotations/labels files under --root) — with the
 * fake Envoy of src/agent/envoy/testdata at ProxyConfig.binaryPath and real application servers on
 * loopback. The test then probes the rewritten probe paths as the kubelet would, flips the
 * application's answers, flips the fake Envoy's readiness, and sends SIGTERM to watch the drain.
 * Ports are picked free first and written into the workload (probe ports, status port, admin port),
 * so several runs never collide; Envoy itself cannot be installed here, hence the fake.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, get } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { expandVars } from "../src/agent/expand.js";
import { injectYaml, loadInjectorConfig } from "../src/index.js";
import { splitYamlStream } from "../src/kube/stream.js";
import { startHealthServer } from "./grpc-health.js";
import { containerEnv, writePodFiles } from "./kubelet.js";
import { freePort, postLocal } from "./loopback.js";
import { repoRoot } from "./meshinject-cli.js";

type Json = Record<string, unknown>;

function httpGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path, headers, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

/** What the kubelet sends with an HTTP probe. */
const KUBELET = { "User-Agent": "kube-probe/1.30", Accept: "*/*" };

async function eventually<T>(what: string, f: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  let error: unknown;
  while (Date.now() < deadline) {
    try {
      last = await f();
      if (ok(last)) return last;
    } catch (e) {
      error = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: last ${JSON.stringify(last)} ${error ?? ""}`);
}

describe("meshinject agent, end to end with an injected workload", () => {
  const root = mkdtempSync(join(tmpdir(), "meshinject-agent-e2e-"));
  let agent: ChildProcess;
  let output = "";
  let appReady = 200;
  let grpcStatus = 1; // SERVING
  const ports = { http: 0, tcp: 0, grpc: 0, status: 0, admin: 0 };
  const closers: (() => Promise<void>)[] = [];
  let tcpServer: ReturnType<typeof createTcpServer>;
  let probes: Record<string, Json> = {};
  let agentExit: Promise<number | null>;

  before(async () => {
    for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
    // The application: HTTP readiness, a TCP liveness port, gRPC health for the startup probe.
    const http = createHttpServer((req, res) => {
      const seen = { host: req.headers.host, ua: req.headers["user-agent"], custom: req.headers["x-probe"] };
      res.writeHead(req.url === "/ready" ? appReady : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(seen));
    });
    await new Promise<void>((r) => http.listen(ports.http, "127.0.0.1", r));
    closers.push(() => new Promise((r) => http.close(() => r())));
    tcpServer = createTcpServer((s) => s.end());
    await new Promise<void>((r) => tcpServer.listen(ports.tcp, "127.0.0.1", r));
    // gRPC health encoded by @grpc/proto-loader, not by the agent's own grpc-health.ts.
    const g = await startHealthServer(() => grpcStatus, ["127.0.0.1"], ports.grpc);
    closers.push(async () => g.close());

    // The workload, injected by our kube-inject.
    const workload = `apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: shop}
spec:
  selector: {matchLabels: {app: shop}}
  template:
    metadata:
      labels: {app: shop, version: v1}
      annotations:
        status.sidecar.istio.io/port: "${ports.status}"
        proxy.istio.io/config: '{"proxyAdminPort": ${ports.admin}, "terminationDrainDuration": "2s"}'
    spec:
      serviceAccountName: shop
      containers:
      - name: app
        image: shop:1
        readinessProbe:
          httpGet: {path: /ready, port: ${ports.http}, httpHeaders: [{name: X-Probe, value: kubelet}]}
          timeoutSeconds: 1
        livenessProbe:
          tcpSocket: {port: ${ports.tcp}}
          timeoutSeconds: 1
        startupProbe:
          grpc: {port: ${ports.grpc}}
          timeoutSeconds: 1
`;
    // timeoutSeconds as the API server defaults it before the webhook sees the pod: pilot-agent
    // gives a gRPC probe exactly that long (0 fails at once).
    const injected = injectYaml(loadInjectorConfig(), workload);
    const deployment = splitYamlStream(injected)
      .map((d) => parseYaml(d) as Json)
      .find((d) => d?.kind === "Deployment") as Json;
    const pod = (deployment.spec as Json).template as Json as Json;
    const spec = pod.spec as Json;
    const containers = spec.containers as Json[];
    const app = containers.find((c) => c.name === "app") as Json;
    const proxy = [...containers, ...((spec.initContainers as Json[] | undefined) ?? [])].find(
      (c) => c.name === "istio-proxy",
    ) as Json;
    probes = {
      readiness: app.readinessProbe as Json,
      liveness: app.livenessProbe as Json,
      startup: app.startupProbe as Json,
    };

    // The kubelet's part: env fieldRefs, then $(VAR) expansion, then the podinfo files.
    const meta = pod.metadata as Json;
    const field: Record<string, string> = {
      "metadata.name": "shop-7d4c9b-x2x7z",
      "metadata.namespace": "shop",
      "status.podIP": "127.0.0.1",
      "status.hostIP": "127.0.0.1",
      "spec.serviceAccountName": "shop",
      "spec.nodeName": "node-1",
    };
    const env = containerEnv(proxy, field, { PATH: process.env.PATH ?? "", FAKE_ENVOY_READY: "false" });
    const args = ((proxy.args as string[]) ?? []).map((a) => expandVars(a, (n) => env[n]));
    writePodFiles(root, meta);

    agent = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "agent", ...args, "--root", root, "--status-host", "127.0.0.1"],
      {
        cwd: repoRoot,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    agent.stdout?.on("data", (c) => {
      output += c;
    });
    agent.stderr?.on("data", (c) => {
      output += c;
    });
    agentExit = new Promise((resolve) => agent.once("exit", (code) => resolve(code)));
    await eventually(
      "the status server",
      () => httpGet(ports.status, "/healthz/ready"),
      (r) => r.status > 0,
      60_000,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${output}`);
    });
  });

  after(async () => {
    if (agent.exitCode === null) agent.kill("SIGKILL");
    tcpServer.close();
    for (const c of closers) await c();
    rmSync(root, { recursive: true, force: true });
  });

  const probePath = (kind: string) => {
    const p = probes[kind] as Json;
    const h = p.httpGet as Json;
    assert.equal(h.port, ports.status, `${kind} probe rewritten to the status port`);
    return h.path as string;
  };

  it("starts Envoy with pilot-agent's command line and the pod's identity", async () => {
    await eventually(
      "Envoy's output",
      async () => output,
      (o) => o.includes("fake-envoy argv"),
    );
    assert.match(output, /fake-envoy argv \["-c","etc\/istio\/proxy\/envoy-rev.json","--drain-time-s","45"/);
    assert.match(output, /agent started: sidecar~127\.0\.0\.1~shop-7d4c9b-x2x7z\.shop~shop\.svc\.cluster\.local/);
  });

  it("reaches the application's HTTP endpoint through the rewritten readiness probe, failures included", async () => {
    const path = probePath("readiness");
    assert.equal(path, "/app-health/app/readyz");
    // The kubelet sends the rewritten probe's headers; the agent forwards the request's headers.
    const probeHeaders = Object.fromEntries(
      (((probes.readiness as Json).httpGet as Json).httpHeaders as { name: string; value: string }[]).map((h) => [
        h.name,
        h.value,
      ]),
    );
    const ok = await httpGet(ports.status, path, { ...KUBELET, ...probeHeaders });
    assert.equal(ok.status, 200);
    const seen = JSON.parse(ok.body);
    assert.equal(seen.custom, "kubelet", "the probe's own header reaches the app");
    appReady = 503;
    assert.equal((await httpGet(ports.status, path, KUBELET)).status, 503);
    appReady = 200;
  });

  it("checks the TCP port through the rewritten liveness probe", async () => {
    const path = probePath("liveness");
    assert.equal(path, "/app-health/app/livez");
    assert.equal((await httpGet(ports.status, path, KUBELET)).status, 200);
    await new Promise<void>((r) => tcpServer.close(() => r()));
    assert.notEqual((await httpGet(ports.status, path, KUBELET)).status, 200);
    tcpServer = createTcpServer((s) => s.end());
    await new Promise<void>((r) => tcpServer.listen(ports.tcp, "127.0.0.1", r));
    assert.equal((await httpGet(ports.status, path, KUBELET)).status, 200);
  });

  it("asks gRPC health through the rewritten startup probe", async () => {
    const path = probePath("startup");
    assert.equal(path, "/app-health/app/startupz");
    assert.equal((await httpGet(ports.status, path, KUBELET)).status, 200, output);
    grpcStatus = 2; // NOT_SERVING
    assert.notEqual((await httpGet(ports.status, path, KUBELET)).status, 200);
    grpcStatus = 1;
  });

  it("turns ready when the fake Envoy does", async () => {
    assert.equal((await httpGet(ports.status, "/healthz/ready")).status, 503);
    assert.equal(await postLocal(ports.admin, "/fake/ready?value=true"), 200);
    await eventually(
      "ready",
      () => httpGet(ports.status, "/healthz/ready"),
      (r) => r.status === 200,
    );
    const metrics = await httpGet(ports.status, "/stats/prometheus");
    assert.match(metrics.body, /istio_agent_startup_duration_seconds \d/);
  });

  it("drains Envoy on SIGTERM, answers not-ready meanwhile, then exits 0", async () => {
    agent.kill("SIGTERM");
    await eventually(
      "drain",
      async () => output,
      (o) => o.includes("drain_listeners ?inboundonly&graceful"),
    );
    assert.equal((await httpGet(ports.status, "/healthz/ready")).status, 503);
    assert.equal(await agentExit, 0);
    assert.match(output, /Graceful termination period is 2000 ms/);
  });
});
