/**
 * The fake upstreams the agent-status vectors describe (see the corpus's FORMAT.md): Istio's test
 * applications, Envoy's admin and Prometheus endpoints, metric targets and a gRPC health server. Each
 * listens on loopback only (127.0.0.1 and ::1 on one port where the tests listen on every interface).
 */

import * as http from "node:http";
import * as http2 from "node:http2";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { parseMediaType } from "../../src/agent/status/metrics-format.js";
import { SERVING_STATUS_VALUE, startHealthServer } from "../../test/grpc-health.js";

type Json = Record<string, unknown>;
type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: Res) => void;
/** What the handlers use of an HTTP/1 or HTTP/2 response. */
interface Res {
  writeHead(status: number, headers?: Record<string, string>): unknown;
  end(body?: string): unknown;
}

export interface Fake {
  port: number;
  /** Protocol of the last request served ("" = none). */
  lastProtocol: string;
  /** Headers of the last request (Go's canonical names, values in order). */
  lastHeaders?: Record<string, string[]>;
  close(): Promise<void>;
}

type AnyServer = http.Server | https.Server | http2.Http2SecureServer;

function closeServer(s: AnyServer): Promise<void> {
  return new Promise((resolve) => {
    if ("closeAllConnections" in s) s.closeAllConnections();
    s.close(() => resolve());
  });
}

function listen(s: AnyServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    s.once("error", reject);
    s.listen(port, host, () => {
      s.off("error", reject);
      resolve((s.address() as AddressInfo).port);
    });
  });
}

/** Listens on 127.0.0.1 and, when `dual`, on ::1 with the same port (retrying on a clash). */
async function listenLoopback(make: () => AnyServer, dual: boolean): Promise<{ port: number; servers: AnyServer[] }> {
  for (let attempt = 0; ; attempt++) {
    const v4 = make();
    const port = await listen(v4, "127.0.0.1", 0);
    if (!dual) return { port, servers: [v4] };
    const v6 = make();
    try {
      await listen(v6, "::1", port);
      return { port, servers: [v4, v6] };
    } catch (e) {
      await closeServer(v4);
      if (attempt >= 5) throw e;
    }
  }
}

/** Go's textproto canonical header name. */
export function canonicalHeader(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

function headerMap(raw: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].startsWith(":")) continue;
    const name = canonicalHeader(raw[i]);
    if (name === "Host") continue;
    const list = out[name] ?? [];
    list.push(raw[i + 1]);
    out[name] = list;
  }
  return out;
}

function protocolOf(req: http.IncomingMessage | http2.Http2ServerRequest): string {
  return `HTTP/${req.httpVersion}`;
}

function hostOf(req: http.IncomingMessage | http2.Http2ServerRequest): string {
  return String(req.headers[":authority"] ?? req.headers.host ?? "");
}

/** Istio's TestAppProbe handler. */
function probeAppHandler(req: http.IncomingMessage | http2.Http2ServerRequest, res: Res): void {
  const path = (req.url ?? "/").split("?")[0];
  const segs = path.replace(/^\//, "").split("/");
  const redirect = (to: string) => {
    res.writeHead(301, { Location: to, "Content-Type": "text/html; charset=utf-8" });
    res.end(`<a href="${to}">Moved Permanently</a>.\n\n`);
  };
  switch (segs[0]) {
    case "header":
      if (hostOf(req) !== "test.com:9999" || req.headers["some-header"] !== "some-value") {
        res.writeHead(400);
        res.end();
      } else {
        res.writeHead(200);
        res.end();
      }
      return;
    case "redirect":
      redirect("/");
      return;
    case "redirect-loop":
      redirect("/redirect-loop");
      return;
    case "remote-redirect":
      redirect("http://example.com/foo");
      return;
    case "":
      res.writeHead(200);
      res.end("welcome, it works");
      return;
    case "status": {
      const code = Number.parseInt(segs[1] ?? "", 10);
      res.writeHead(code, { Location: "/" });
      res.end();
      return;
    }
    default:
      res.writeHead(200);
      res.end();
  }
}

function headerCheckHandler(expect: Record<string, string[]>, fake: Fake): Handler {
  return (req, res) => {
    const got = headerMap(req.rawHeaders);
    delete got["User-Agent"];
    delete got["Accept-Encoding"];
    fake.lastHeaders = got;
    const norm = (m: Record<string, string[]>) =>
      JSON.stringify(Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1))));
    const same =
      norm(got) === norm(Object.fromEntries(Object.entries(expect).map(([k, v]) => [canonicalHeader(k), v])));
    res.writeHead(same ? 200 : 400);
    res.end();
  };
}

/** expfmt.NegotiateIncludingOpenMetrics, as FORMAT.md gives it. */
export function negotiateIncludingOpenMetrics(accept: string | undefined): string {
  const entries = (accept ?? "")
    .split(",")
    .map((e, i) => {
      try {
        const mt = parseMediaType(e);
        const q = mt.params.q === undefined ? 1 : Number(mt.params.q);
        return { mt, q: Number.isNaN(q) ? 0 : q, i };
      } catch {
        return undefined;
      }
    })
    .filter((e) => e !== undefined)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { mt } of entries) {
    const version = mt.params.version;
    const escaping = mt.params.escaping ?? "underscores";
    if (mt.type === "text/plain" && (version === "0.0.4" || version === undefined)) {
      return `text/plain; version=0.0.4; charset=utf-8; escaping=${escaping}`;
    }
    if (mt.type === "application/openmetrics-text") {
      if (version === "1.0.0")
        return `application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=${escaping}`;
      if (version === "0.0.1" || version === undefined) {
        return `application/openmetrics-text; version=0.0.1; charset=utf-8; escaping=${escaping}`;
      }
    }
  }
  return "text/plain; version=0.0.4; charset=utf-8; escaping=underscores";
}

/** The 2 MiB Envoy page of TestHTTPCompressionOnStats. */
export function envoyMetrics2MiB(prefix: string): string {
  const parts = [prefix];
  let size = prefix.length;
  for (let i = 0; size < 2097152; i++) {
    const line = `#TYPE my_other_metric_${i} counter\nmy_other_metric_${i} 0\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join("");
}

function cannedHandler(spec: Json, fixtures: Json): Handler {
  const status = Number(spec.status ?? 200);
  let body = "";
  if (typeof spec.body === "string") body = spec.body;
  else if (spec.body && (spec.body as Json).generate === "envoyMetrics2MiB") {
    body = envoyMetrics2MiB(String((fixtures.envoyMetrics2MiB as Json).prefix));
  }
  const contentType = spec.contentType;
  return (_req, res) => {
    if (status === 500) {
      res.writeHead(500);
      res.end();
      return;
    }
    const headers: Record<string, string> = {};
    if (typeof contentType === "string" && contentType !== "default") headers["Content-Type"] = contentType;
    else if (body !== "") headers["Content-Type"] = "text/plain; charset=utf-8";
    res.writeHead(status, headers);
    res.end(body);
  };
}

function negotiatingHandler(spec: Json): Handler {
  return (req, res) => {
    const format = negotiateIncludingOpenMetrics(req.headers.accept);
    res.writeHead(200, { "Content-Type": format });
    res.end(format.includes("text/plain") ? String(spec.textBody) : String(spec.openMetricsBody));
  };
}

function promhttpCounterHandler(spec: Json): Handler {
  const c = spec.counter as { name: string; help: string; value: number };
  return (req, res) => {
    const format = negotiateIncludingOpenMetrics(req.headers.accept);
    res.writeHead(200, { "Content-Type": format });
    res.end(
      format.includes("text/plain")
        ? `# HELP ${c.name} ${c.help}\n# TYPE ${c.name} counter\n${c.name} ${c.value}\n`
        : `# HELP ${c.name} ${c.help}\n# TYPE ${c.name} counter\n${c.name}_total ${c.value.toFixed(1)}\n# EOF\n`,
    );
  };
}

/** An HTTP fake for an upstream spec: a fixture name, `{fixture, …}` or a canned answer. */
export async function startHttpFake(spec: unknown, fixtures: Json, testCert?: Json): Promise<Fake> {
  const s = (typeof spec === "string" ? { fixture: spec } : spec) as Json;
  const fake: Fake = { port: 0, lastProtocol: "", close: async () => {} };
  let handler: Handler;
  switch (s.fixture) {
    case "probeApp":
      handler = probeAppHandler;
      break;
    case "headerCheckApp":
      handler = headerCheckHandler(s.expectHeaders as Record<string, string[]>, fake);
      break;
    case "negotiatingApp":
      handler = negotiatingHandler(s);
      break;
    case "promhttpCounter":
      handler = promhttpCounterHandler(s);
      break;
    case undefined:
      handler = cannedHandler(s, fixtures);
      break;
    default:
      throw new Error(`unknown fixture ${String(s.fixture)}`);
  }
  const recorded = (req: http.IncomingMessage | http2.Http2ServerRequest, res: unknown) => {
    fake.lastProtocol = protocolOf(req);
    handler(req, res as Res);
  };
  const tlsSpec = s.tls as Json | undefined;
  let make: () => AnyServer;
  if (tlsSpec) {
    const cert = { cert: String(testCert?.certPem), key: String(testCert?.keyPem), minVersion: "TLSv1.2" as const };
    const alpn = tlsSpec.alpn as string[] | null;
    if (alpn?.includes("h2")) {
      make = () =>
        http2.createSecureServer({ ...cert, allowHTTP1: alpn.includes("http/1.1"), ALPNProtocols: alpn }, recorded);
    } else {
      make = () => https.createServer({ ...cert, ...(alpn ? { ALPNProtocols: alpn } : {}) }, recorded);
    }
  } else {
    make = () => http.createServer(recorded);
  }
  const { port, servers } = await listenLoopback(make, true);
  fake.port = port;
  fake.close = async () => {
    await Promise.all(servers.map(closeServer));
  };
  return fake;
}

/** Envoy's admin API as Istio's testserver fakes it: /stats answers `body()`. */
export async function startEnvoyAdmin(body: () => string): Promise<Fake> {
  const fake: Fake = { port: 0, lastProtocol: "", close: async () => {} };
  const { port, servers } = await listenLoopback(
    () =>
      http.createServer((req, res: Res) => {
        fake.lastProtocol = protocolOf(req);
        if ((req.url ?? "").split("?")[0] === "/stats") {
          res.writeHead(200);
          res.end(body());
        } else {
          res.writeHead(404);
          res.end("404 page not found\n");
        }
      }),
    true,
  );
  fake.port = port;
  fake.close = async () => {
    await Promise.all(servers.map(closeServer));
  };
  return fake;
}

/**
 * A grpc-go style health server: "" is SERVING, listed services as given, others NOT_FOUND. Its
 * messages are encoded by @grpc/proto-loader (test/grpc-health.ts), not by the agent's grpc-health.ts.
 */
export async function startGrpcHealth(servingStatus: Record<string, string>): Promise<Fake> {
  const statuses = new Map<string, number>([["", SERVING_STATUS_VALUE.SERVING]]);
  for (const [svc, st] of Object.entries(servingStatus)) {
    statuses.set(svc, SERVING_STATUS_VALUE[st as keyof typeof SERVING_STATUS_VALUE] ?? -1);
  }
  const server = await startHealthServer((service) => statuses.get(service), ["127.0.0.1", "::1"]);
  return {
    port: server.port,
    lastProtocol: "",
    close: async () => server.close(),
  };
}
