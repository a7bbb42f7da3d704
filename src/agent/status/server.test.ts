import assert from "node:assert/strict";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as net from "node:net";
import { after, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { Registry } from "prom-client";
import { startHealthServer } from "../../../test/grpc-health.js";
import { serveLoopback } from "../../../test/loopback-server.js";
import { parseAgentArgs } from "../bootstrap/agent-args.js";
import { envReader } from "../options/env.js";
import { statusSlice } from "../options/status.js";
import { planAgent } from "../plan.js";
import { zstdDecompress } from "./compression.js";
import { type StatusServer, type StatusServerOptions, startStatusServer } from "./server.js";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const open: { close(): unknown }[] = [];
after(async () => {
  for (const s of open) await s.close();
});

async function fake(handler: Handler): Promise<number> {
  const server = await serveLoopback(handler);
  open.push(server);
  return server.port;
}

async function agent(options: Partial<StatusServerOptions>): Promise<StatusServer> {
  const s = await startStatusServer({ host: "127.0.0.1", port: 0, adminPort: 1, registry: new Registry(), ...options });
  open.push(s);
  return s;
}

/** A status server configured as the agent configures it from `env` (its slice of the options), on port 0. */
function agentFromEnv(env: Record<string, string>, options: Partial<StatusServerOptions> = {}) {
  const full = { POD_NAME: "web-1", POD_NAMESPACE: "shop", INSTANCE_IP: "", ...env };
  const plan = planAgent({
    args: parseAgentArgs([], ["proxy", "sidecar"]),
    env: full,
    files: {},
    hostIPs: [],
    binaryVersion: "v",
  });
  const slice = statusSlice(plan, envReader(full), "127.0.0.1");
  return agent({ ...slice, podIP: "", port: 0, ...options });
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, headers, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("status server", () => {
  it("refuses to start on a bad ISTIO_KUBE_APP_PROBERS, naming the problem", async () => {
    await assert.rejects(
      startStatusServer({
        port: 0,
        adminPort: 1,
        kubeAppProbers: '{"/app-health/c/readyz":{"tcpSocket":{"port":"x"}}}',
      }),
      /must be int type/,
    );
  });

  it("proxies an HTTP probe with the kubelet's headers and the application's status and body", async () => {
    let seen: http.IncomingHttpHeaders = {};
    let source = "";
    const app = await fake((req, res) => {
      seen = req.headers;
      source = req.socket.remoteAddress ?? "";
      res.writeHead(req.url === "/healthz" ? 503 : 404);
      res.end("app says no");
    });
    const s = await agent({
      kubeAppProbers: JSON.stringify({ "/app-health/web/readyz": { httpGet: { path: "healthz", port: app } } }),
    });
    const r = await get(s.port, "/app-health/web/readyz", { "X-Probe": "kube", Host: `pod:${s.port}` });
    assert.equal(r.status, 503);
    assert.equal(r.body.toString(), "app says no");
    assert.equal(seen["x-probe"], "kube");
    assert.equal(seen.host, `pod:${app}`);
    assert.equal(seen.connection, "close");
    assert.equal(source, "127.0.0.6");
    const missing = await get(s.port, "/app-health/other/readyz");
    assert.equal(missing.status, 400);
    assert.equal((await get(s.port, "/nothing")).status, 404);
  });

  it("answers 500 when the application cannot be reached, 200 for a TCP probe that connects", async () => {
    const listening = net.createServer((c) => c.destroy());
    await new Promise<void>((r) => listening.listen(0, "127.0.0.1", r));
    open.push({ close: () => new Promise((r) => listening.close(r)) });
    const up = (listening.address() as AddressInfo).port;
    const closed = await fake(() => {});
    const s = await agent({
      kubeAppProbers: JSON.stringify({
        "/app-health/a/livez": { tcpSocket: { port: up } },
        "/app-health/b/livez": { httpGet: { port: 1 } },
      }),
    });
    assert.equal((await get(s.port, "/app-health/a/livez")).status, 200);
    assert.equal((await get(s.port, "/app-health/b/livez")).status, 500);
    assert.ok(closed > 0);
  });

  it("probes a gRPC application from 127.0.0.6, as the HTTP and TCP probes", async () => {
    // The application's health server is @grpc/grpc-js with protos from @grpc/proto-loader.
    const statuses: Record<string, number> = { "": 1, down: 2 };
    const app = await startHealthServer((service) => statuses[service]);
    open.push({ close: () => app.close() });
    const s = await agent({
      kubeAppProbers: JSON.stringify({
        "/app-health/g/readyz": { grpc: { port: app.port }, timeoutSeconds: 5 },
        "/app-health/g/livez": { grpc: { port: app.port, service: "down" }, timeoutSeconds: 5 },
      }),
    });
    const ready = await get(s.port, "/app-health/g/readyz", { "User-Agent": "kube-probe/1.30" });
    assert.equal(ready.status, 200);
    assert.equal((await get(s.port, "/app-health/g/livez")).status, 500);
    assert.equal(app.peers.length, 2);
    for (const peer of app.peers) assert.match(peer, /^127\.0\.0\.6:\d+$/);
  });

  it("refuses to start when the legacy scrape port is the agent's or Envoy's, by number", async () => {
    for (const port of ["15090", "015020", "http-metrics", "0", "65536"]) {
      // A server that does start (the bug) is closed again, so the test ends either way.
      const started = startStatusServer({
        host: "127.0.0.1",
        port: 15020,
        adminPort: 1,
        nodeType: "sidecar",
        prometheusAnnotations: JSON.stringify({ scrape: "true", port, path: "/metrics" }),
      }).then(async (s) => {
        await s.close();
        return "started";
      });
      await assert.rejects(started, /invalid prometheus scrape configuration/, port);
    }
  });

  it("gives Envoy's admin 3 s for the whole readiness answer, as Istio's readinessTimeout (a trickle included)", async () => {
    // The admin server answers at once, then trickles its body: only a deadline on the whole request stops it.
    const admin = await fake((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      let sent = 0;
      const tick = setInterval(() => {
        if (++sent > 60 || res.destroyed) {
          clearInterval(tick);
          res.end("\n");
        } else res.write("x");
      }, 250);
      res.once("close", () => clearInterval(tick));
    });
    const s = await agent({ adminPort: admin });
    assert.match((await s.isReady()) ?? "", /timed out after 3000 ms/);
  });

  it("stops probing the application when the kubelet goes away (no timeout given)", async () => {
    let closed: () => void = () => {};
    const appClosed = new Promise<void>((r) => {
      closed = r;
    });
    const app = await fake((req) => req.socket.once("close", () => closed()));
    const s = await agent({
      kubeAppProbers: JSON.stringify({ "/app-health/slow/livez": { httpGet: { path: "/", port: app } } }),
    });
    const req = http.get({ host: "127.0.0.1", port: s.port, path: "/app-health/slow/livez", agent: false });
    req.on("error", () => {});
    setTimeout(() => req.destroy(), 100);
    const timedOut = new Promise<string>((r) => setTimeout(() => r("still open"), 3000).unref());
    assert.equal(await Promise.race([appClosed.then(() => "closed"), timedOut]), "closed");
  });

  it("is ready only once Envoy has its config and is live, then asks the agent's own check", async () => {
    let stats = "cluster_manager.cds.update_success: 1\n";
    let asked = 0;
    const admin = await fake((req, res) => {
      asked++;
      assert.match(req.url ?? "", /^\/stats\?usedonly&filter=/);
      res.end(stats);
    });
    let own: string | undefined = "agent not ready";
    const s = await agent({ adminPort: admin, agentReady: () => own });
    assert.equal((await get(s.port, "/healthz/ready")).status, 503);
    assert.match((await s.isReady()) ?? "", /config not fully received from XDS server: cds updates: 1 successful/);
    stats =
      "cluster_manager.cds.update_success: 1\nlistener_manager.lds.update_success: 2\nserver.state: 0\nlistener_manager.workers_started: 1\n";
    assert.equal(await s.isReady(), "agent not ready");
    own = undefined;
    assert.equal((await get(s.port, "/healthz/ready")).status, 200);
    const before = asked;
    stats = "";
    assert.equal((await get(s.port, "/healthz/ready")).status, 200);
    assert.equal(asked, before, "Envoy is not asked again once it has been ready");
  });

  it("reuses one probe connection per prober with ENABLE_PROBE_KEEPALIVE_CONNECTIONS, else closes each", async () => {
    const seen: { port: number; connection: string }[] = [];
    const app = await fake((req, res) => {
      seen.push({ port: req.socket.remotePort ?? 0, connection: String(req.headers.connection) });
      res.end("ok");
    });
    const probers = JSON.stringify({ "/app-health/web/readyz": { httpGet: { path: "/", port: app } } });
    for (const keep of ["true", "false"]) {
      seen.length = 0;
      const s = await agentFromEnv({ ISTIO_KUBE_APP_PROBERS: probers, ENABLE_PROBE_KEEPALIVE_CONNECTIONS: keep });
      for (let i = 0; i < 3; i++) assert.equal((await get(s.port, "/app-health/web/readyz")).status, 200);
      assert.equal(seen.length, 3);
      if (keep === "true") {
        assert.equal(new Set(seen.map((x) => x.port)).size, 1, "one connection for all three probes");
        assert.ok(seen.every((x) => x.connection !== "close"));
      } else {
        assert.equal(new Set(seen.map((x) => x.port)).size, 3, "a connection per probe");
        assert.ok(seen.every((x) => x.connection === "close"));
      }
      await s.close();
    }
  });

  it("leaves Envoy's metrics out of the merged page with PILOT_AGENT_MERGE_ENVOY_STATS=false", async () => {
    let envoyScrapes = 0;
    const envoy = await fake((_req, res) => {
      envoyScrapes++;
      res.end("# TYPE envoy_x counter\nenvoy_x 1\n");
    });
    const merged = await agentFromEnv({ ENVOY_PROMETHEUS_PORT: String(envoy) });
    assert.match((await get(merged.port, "/stats/prometheus")).body.toString(), /envoy_x 1/);
    assert.equal(envoyScrapes, 1);
    const apart = await agentFromEnv({ ENVOY_PROMETHEUS_PORT: String(envoy), PILOT_AGENT_MERGE_ENVOY_STATS: "false" });
    const r = await get(apart.port, "/stats/prometheus");
    assert.equal(r.status, 200);
    assert.doesNotMatch(r.body.toString(), /envoy_x/);
    assert.match(r.body.toString(), /istio_agent_/);
    assert.equal(envoyScrapes, 1);
  });

  it("merges agent, Envoy and application metrics and counts failed scrapes", async () => {
    let appAccept = "";
    const envoy = await fake((_req, res) => res.end("# TYPE envoy_x counter\nenvoy_x 1\n"));
    const app = await fake((req, res) => {
      appAccept = String(req.headers.accept);
      res.setHeader("Content-Type", "application/openmetrics-text; version=1.0.0");
      res.end("# TYPE app_y counter\napp_y_total 2\n# EOF\n");
    });
    const s = await agent({
      envoyPrometheusPort: envoy,
      nodeType: "sidecar",
      prometheusAnnotations: JSON.stringify({ scrape: "true", port: String(app) }),
    });
    const r = await get(s.port, "/stats/prometheus", {
      Accept: "application/vnd.google.protobuf;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1",
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/openmetrics-text; version=1.0.0; charset=utf-8");
    const body = r.body.toString();
    assert.ok(body.indexOf("istio_agent_scrapes_total 1") < body.indexOf("envoy_x 1"));
    assert.ok(body.indexOf("envoy_x 1") < body.indexOf("app_y_total 2"));
    assert.ok(body.endsWith("# EOF\n"));
    assert.equal(appAccept, "application/openmetrics-text; q=0.2; version=1.0.0, text/plain; q=0.1; version=0.0.4");

    const broken = await agent({
      envoyPrometheusPort: envoy,
      nodeType: "sidecar",
      prometheusAnnotations: JSON.stringify({ scrape: "true", port: "1" }),
    });
    const r2 = await get(broken.port, "/metrics");
    assert.equal(r2.status, 200);
    assert.match(r2.body.toString(), /istio_agent_scrape_failures_total\{type="application"\} 1/);
    assert.equal(r2.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  });

  it("compresses a large page with zstd or gzip as asked", async () => {
    const page = "# TYPE m counter\n".concat("m 1\n".repeat(5000));
    const envoy = await fake((_req, res) => res.end(page));
    const s = await agent({ envoyPrometheusPort: envoy });
    const z = await get(s.port, "/stats/prometheus", { "Accept-Encoding": "gzip, zstd" });
    assert.equal(z.headers["content-encoding"], "zstd");
    assert.ok((await zstdDecompress(z.body)).toString().includes(page));
    const g = await get(s.port, "/stats/prometheus", { "Accept-Encoding": "deflate, gzip;q=1.0, zstd;q=0.5" });
    assert.equal(g.headers["content-encoding"], "gzip");
    assert.ok(gunzipSync(g.body).toString().includes(page));
    const plain = await get(s.port, "/stats/prometheus", { "Accept-Encoding": "br" });
    assert.equal(plain.headers["content-encoding"], undefined);
  });

  it("takes /quitquitquit only as a POST from loopback", async () => {
    const calls: string[] = [];
    const s = await agent({ onQuit: (why) => calls.push(`quit ${why}`), disableDrain: () => calls.push("no drain") });
    assert.equal((await get(s.port, "/quitquitquit")).status, 405);
    const ok = await get(s.port, "/quitquitquit", {}, "POST");
    assert.equal(ok.status, 200);
    assert.equal(ok.body.toString(), "OK");
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls, ["no drain", "quit /quitquitquit called"]);
    const remote = await agent({ remoteAddressOverride: "10.0.0.1", onQuit: () => calls.push("remote") });
    assert.equal((await get(remote.port, "/quitquitquit", {}, "POST")).status, 403);
    assert.equal(calls.length, 2);
  });

  it("takes /drain only as a POST from loopback and then drains", async () => {
    const calls: string[] = [];
    const s = await agent({ onDrain: () => calls.push("drain") });
    assert.equal((await get(s.port, "/drain")).status, 405);
    const ok = await get(s.port, "/drain", {}, "POST");
    assert.equal(ok.status, 200);
    assert.equal(ok.body.toString(), "OK");
    for (let i = 0; i < 100 && calls.length === 0; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls, ["drain"]);
    // Istio's tests forge RemoteAddr the same way: no traffic leaves loopback.
    const remote = await agent({ remoteAddressOverride: "10.0.0.1", onDrain: () => calls.push("remote") });
    assert.equal((await get(remote.port, "/drain", {}, "POST")).status, 403);
    assert.deepEqual(calls, ["drain"]);
  });

  it("serves metrics to pod-network clients unless METRICS_LOCALHOST_ACCESS_ONLY", async () => {
    const podNet = await agentFromEnv({}, { remoteAddressOverride: "10.0.0.1" });
    assert.equal((await get(podNet.port, "/stats/prometheus")).status, 200);
    const closed = await agentFromEnv({ METRICS_LOCALHOST_ACCESS_ONLY: "true" }, { remoteAddressOverride: "10.0.0.1" });
    const r = await get(closed.port, "/stats/prometheus");
    assert.equal(r.status, 403);
    assert.equal(r.body.toString(), "Only requests from localhost are allowed\n");
    const local = await agentFromEnv({ METRICS_LOCALHOST_ACCESS_ONLY: "true" });
    assert.equal((await get(local.port, "/metrics")).status, 200);
  });

  it("probes the pod IP, or localhost with REWRITE_PROBE_LEGACY_LOCALHOST_DESTINATION", async () => {
    // The application listens on 127.0.0.1 only; the pod IP (INSTANCE_IP) is 127.0.0.2, where nothing listens.
    const app = await fake((_req, res) => res.end("ok"));
    const env = {
      INSTANCE_IP: "127.0.0.2",
      ISTIO_KUBE_APP_PROBERS: JSON.stringify({
        "/app-health/web/readyz": { httpGet: { path: "/", port: app }, timeoutSeconds: 5 },
      }),
    };
    const byPodIP = await agentFromEnv(env, { podIP: "127.0.0.2" });
    assert.equal((await get(byPodIP.port, "/app-health/web/readyz")).status, 500);
    const legacy = await agentFromEnv(
      { ...env, REWRITE_PROBE_LEGACY_LOCALHOST_DESTINATION: "true" },
      { podIP: "127.0.0.2" },
    );
    assert.equal((await get(legacy.port, "/app-health/web/readyz")).status, 200);
  });

  it("serves a CPU profile to localhost only (Node's in place of pprof)", async () => {
    const s = await agent({ enableProfiling: true });
    const r = await get(s.port, "/debug/pprof/profile?seconds=1");
    assert.equal(r.status, 200);
    const profile = JSON.parse(r.body.toString()) as { nodes: unknown[]; startTime: number };
    assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0);
    const remote = await agent({ enableProfiling: true, remoteAddressOverride: "10.0.0.1" });
    for (const path of ["/debug/pprof/", "/debug/pprof/profile?seconds=1", "/debug/pprof/heap"]) {
      assert.equal((await get(remote.port, path)).status, 403, path);
    }
  });

  it("redirects unclean paths as Go's ServeMux does and serves pprof's cmdline with profiling on", async () => {
    const s = await agent({ enableProfiling: true });
    const r = await get(s.port, "//debug/pprof/cmdline");
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, "/debug/pprof/cmdline");
    const c = await get(s.port, "/debug/pprof/cmdline");
    assert.equal(c.status, 200);
    assert.ok(c.body.toString().includes(process.argv[1]));
    const off = await agent({});
    assert.equal((await get(off.port, "/debug/pprof/cmdline")).status, 404);
  });
});
