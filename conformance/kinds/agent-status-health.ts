/**
 * health-checkers.json: the agent's WorkloadEntry health checking (src/agent/health), judged at unit level
 * against real loopback upstreams. The gRPC vectors name fixed ports (the server on 50051, a wrong port
 * 50052); the runner maps them to ephemeral ports (the server's, and one known to be closed) so that
 * parallel runs cannot clash, and maps the port back in error texts.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as net from "node:net";
import { type ProbeEvent, type ReadinessProbe, WorkloadHealthChecker } from "../../src/agent/health/checker.js";
import { ExecProber, GRPCProber, HTTPProber, TCPProber, type WorkloadProber } from "../../src/agent/health/probers.js";
import { startGrpcHealth } from "./agent-status-fakes.js";

type Json = Record<string, unknown>;

/** A vector's outcome, with what differed. */
export interface Verdict {
  pass: boolean;
  reason?: string;
  expected?: string;
  got?: string;
}

/** Go durations as the vectors write them ("1s", "200ms", "1ms"). */
function durationMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text);
  if (!m) throw new Error(`unsupported duration ${text}`);
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60000 } as Record<string, number>)[m[2]];
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
}

interface Upstream {
  port: number;
  close(): Promise<void>;
  /** Config port → port actually used. */
  portMap: Map<number, number>;
}

async function startApp(spec: Json | undefined): Promise<Upstream> {
  const none: Upstream = { port: 0, close: async () => {}, portMap: new Map() };
  if (!spec) return none;
  if (spec.closed === true || spec.listening === false) return { ...none, port: await closedPort() };
  if (typeof spec.grpcHealthOn === "string") {
    const fake = await startGrpcHealth((spec.servingStatus ?? {}) as Record<string, string>);
    const fixed = Number(spec.grpcHealthOn.replace(/^.*:/, ""));
    return { port: fake.port, close: () => fake.close(), portMap: new Map([[fixed, fake.port]]) };
  }
  if (spec.listening === true) {
    const s = net.createServer((c) => c.destroy());
    const port = await listen(s);
    return { port, close: () => new Promise((r) => s.close(() => r())), portMap: new Map() };
  }
  const queue = [...((spec.responsesInOrder ?? []) as Json[])];
  const always = (spec.afterwards ?? spec) as Json;
  const s = http.createServer((_req, res) => {
    const r = queue.shift() ?? always;
    res.writeHead(Number(r.status ?? 200));
    res.end(typeof r.body === "string" ? r.body : undefined);
  });
  const port = await listen(s);
  return {
    port,
    close: () =>
      new Promise((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
    portMap: new Map(),
  };
}

function withAppPort<T>(config: T, port: number): T {
  return JSON.parse(
    JSON.stringify(config)
      .replace(/"\{\{app\.port\}\}"/g, String(port))
      .replace(/\{\{app\.host\}\}/g, "127.0.0.1"),
  ) as T;
}

async function judgeProber(v: Json, app: Upstream): Promise<Verdict> {
  const config = withAppPort(v.config as ReadinessProbe, app.port);
  const host = String(v.defaultHost ?? "localhost");
  let prober: WorkloadProber;
  let usedPort: number | undefined;
  let configPort: number | undefined;
  if (v.prober === "HTTPProber" && config.httpGet) {
    prober = new HTTPProber({ ...config.httpGet, host: config.httpGet.host || host }, v.ipv6 ? "::6" : "127.0.0.6");
  } else if (v.prober === "TCPProber" && config.tcpSocket) {
    prober = new TCPProber({ ...config.tcpSocket, host: config.tcpSocket.host || host });
  } else if (v.prober === "ExecProber" && config.exec) {
    prober = new ExecProber(config.exec);
  } else if (v.prober === "GRPCProber" && config.grpc) {
    configPort = config.grpc.port;
    usedPort = app.portMap.get(configPort) ?? (await closedPort());
    prober = new GRPCProber({ ...config.grpc, port: usedPort }, host);
  } else {
    return { pass: false, reason: "unknown prober", expected: "a known prober", got: String(v.prober) };
  }
  const o = await prober.probe(durationMs(String(v.timeout ?? "1s")));
  const want = v.want as Json;
  let error = o.error;
  if (error !== undefined && usedPort !== undefined && configPort !== undefined) {
    error = error.replaceAll(`port ${usedPort}`, `port ${configPort}`);
  }
  if (o.result !== want.result)
    return { pass: false, reason: "result", expected: String(want.result), got: `${o.result} ${error ?? ""}` };
  if (want.errorPresent !== undefined && (error !== undefined) !== want.errorPresent) {
    return { pass: false, reason: "error presence", expected: String(want.errorPresent), got: error ?? "no error" };
  }
  if (typeof want.errorText === "string" && error !== want.errorText) {
    return { pass: false, reason: "error text", expected: want.errorText, got: error ?? "" };
  }
  return { pass: true };
}

async function judgeChecker(v: Json, app: Upstream): Promise<Verdict> {
  const config = withAppPort(v.config as ReadinessProbe, app.port);
  const want = v.want as { events: { healthy: boolean }[]; withinSeconds: number };
  const overrides = (v.overrides ?? {}) as Json;
  const checker = new WorkloadHealthChecker(config, {
    proxyAddrs: (v.proxyAddrs ?? []) as string[],
    ipv6: v.ipv6 === true,
    checkFrequencyMs: typeof overrides.checkFrequency === "string" ? durationMs(overrides.checkFrequency) : undefined,
  });
  const events: ProbeEvent[] = [];
  await new Promise<void>((resolve) => {
    const deadline = setTimeout(done, want.withinSeconds * 1000);
    const stop = checker.start((e) => {
      events.push(e);
      if (events.length >= want.events.length) done();
    });
    function done() {
      clearTimeout(deadline);
      stop();
      resolve();
    }
  });
  const got = events.map((e) => e.healthy);
  const expected = want.events.map((e) => e.healthy);
  return JSON.stringify(got) === JSON.stringify(expected)
    ? { pass: true }
    : { pass: false, reason: "events", expected: JSON.stringify(expected), got: JSON.stringify(got) };
}

export async function judgeHealthChecker(v: Json): Promise<Verdict> {
  const app = await startApp((v.upstreams as Json | undefined)?.app as Json | undefined);
  try {
    return v.prober === "WorkloadHealthChecker" ? await judgeChecker(v, app) : await judgeProber(v, app);
  } finally {
    await app.close();
  }
}
