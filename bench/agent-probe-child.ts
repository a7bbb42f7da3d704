/**
 * The processes of bench/agent.ts's probe section, each run as a child (`fork`) so that the kubelet (the
 * bench itself), the agent and the application do not share an event loop, as in a pod:
 *
 *   agent-probe-child.ts app              the application: an HTTP server ("ok") and a gRPC health server
 *                                         (@grpc/grpc-js, SERVING); sends { http, grpc } (ports)
 *   agent-probe-child.ts agent '<json>'   the agent's status server with the HTTP, TCP and gRPC probers of
 *                                         the application's ports in <json> ({ http, grpc, envoy }); sends
 *                                         { port }
 *   agent-probe-child.ts floor '<json>'   bare node:http proxies of an HTTP and a TCP probe (see bareHop);
 *                                         sends { http, tcp }
 *
 * The message "cpu" is answered with process.cpuUsage() (µs of user and system CPU so far); "close"
 * closes the servers and exits. A child exits by itself when the bench goes away (IPC disconnect).
 */
import * as http from "node:http";
import * as net from "node:net";
import { Registry } from "prom-client";
import { startStatusServer } from "../src/agent/status/server.js";
import { startHealthServer } from "../test/grpc-health.js";
import { serveLoopback } from "../test/loopback-server.js";

/**
 * The floor of a probe proxy written on node:http: each GET answered after one probe of the application
 * from 127.0.0.6 on a new connection — a GET whose answer is copied back, or a TCP connect — with no
 * routing, deadline, header forwarding or redirects. What the agent adds above the direct path can come
 * down to this, not below it.
 */
function bareHop(appPort: number, kind: "http" | "tcp") {
  return serveLoopback((_req, res) => {
    if (kind === "tcp") {
      const socket = net.connect({ host: "127.0.0.1", port: appPort, localAddress: "127.0.0.6" }, () => {
        socket.destroy();
        res.end();
      });
      socket.on("error", () => res.destroy());
      return;
    }
    const up = http.request(
      { host: "127.0.0.1", port: appPort, path: "/ready", agent: false, localAddress: "127.0.0.6" },
      (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => {
          res.writeHead(r.statusCode ?? 500);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    up.on("error", () => res.destroy());
    up.end();
  });
}

const send = (m: unknown) => process.send?.(m);
const closers: (() => unknown)[] = [];
const [role, arg] = process.argv.slice(2);
const ports = arg ? (JSON.parse(arg) as { http: number; grpc: number; envoy: number }) : undefined;

if (role === "app") {
  const app = await serveLoopback((_req, res) => res.end("ok"));
  const grpc = await startHealthServer(() => 1);
  closers.push(
    () => app.close(),
    () => grpc.close(),
  );
  send({ http: app.port, grpc: grpc.port });
} else if (role === "agent" && ports) {
  // The probers as the injector writes them into ISTIO_KUBE_APP_PROBERS.
  const agent = await startStatusServer({
    host: "127.0.0.1",
    port: 0,
    adminPort: 1,
    envoyPrometheusPort: ports.envoy,
    registry: new Registry(),
    kubeAppProbers: JSON.stringify({
      "/app-health/http/livez": { httpGet: { path: "/ready", port: ports.http }, timeoutSeconds: 1 },
      "/app-health/tcp/livez": { tcpSocket: { port: ports.http }, timeoutSeconds: 1 },
      "/app-health/grpc/livez": { grpc: { port: ports.grpc, service: null }, timeoutSeconds: 1 },
    }),
  });
  closers.push(() => agent.close());
  send({ port: agent.port });
} else if (role === "floor" && ports) {
  const h = await bareHop(ports.http, "http");
  const t = await bareHop(ports.http, "tcp");
  closers.push(
    () => h.close(),
    () => t.close(),
  );
  send({ http: h.port, tcp: t.port });
} else {
  throw new Error(`usage: agent-probe-child.ts app | agent '<ports>' | floor '<ports>'`);
}

process.on("disconnect", () => process.exit(0));
process.on("message", async (m) => {
  if (m === "cpu") {
    const u = process.cpuUsage();
    send({ cpu: u.user + u.system });
    return;
  }
  for (const c of closers) await c();
  process.exit(0);
});
