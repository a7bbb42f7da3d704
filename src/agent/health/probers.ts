/**
 * The probers the agent runs for a workload's readiness probe (WorkloadGroup `probe`, reported as
 * WorkloadEntry health): HTTP GET (2xx and 3xx healthy), TCP connect, a command, and the gRPC health
 * check, as pilot-agent's pkg/istio-agent/health (health_probers.go). Each answers HEALTHY, UNHEALTHY or
 * UNKNOWN with the error. The probing itself is the agent's one probe module (../probe), shared with the
 * status server's probe proxy; what differs is each caller's Istio semantics (here: results, not statuses).
 */
import { durationString } from "../../go/time/duration.js";
import { joinHostPort } from "../../mesh/validate-net.js";
import { runCommand } from "../probe/exec.js";
import { checkHealth } from "../probe/grpc-health.js";
import { grpcCodeName, HealthCheckError } from "../probe/grpc-health-codec.js";
import { ProbeClient } from "../probe/http-client.js";
import { type HTTPProbeError, httpProbe } from "../probe/http-get.js";
import { connectOnce } from "../probe/tcp.js";

const DEADLINE_EXCEEDED = 4;
const UNIMPLEMENTED = 12;

export type ProbeResult = "HEALTHY" | "UNHEALTHY" | "UNKNOWN";

export interface ProbeOutcome {
  result: ProbeResult;
  error?: string;
}

/** A workload health prober (pkg/istio-agent/health Prober); not the probe proxy's app prober (../status/probers.ts). */
export interface WorkloadProber {
  probe(timeoutMs: number): Promise<ProbeOutcome>;
}

export interface HTTPHealthCheckConfig {
  path?: string;
  port: number;
  host?: string;
  scheme?: string;
  httpHeaders?: { name: string; value: string }[];
}

export interface TCPHealthCheckConfig {
  host?: string;
  port: number;
}

export interface ExecHealthCheckConfig {
  command: string[];
}

export interface GrpcHealthCheckConfig {
  port: number;
  service?: string;
}

const DEFAULT_USER_AGENT = "istio-probe/1.0";

/**
 * HTTP GET from the upstream local address (127.0.0.6 or ::6): keep-alive off, no HTTP/2, redirects
 * followed as Go's client does (any host, at most 10), 2xx and 3xx healthy. The certificate of an HTTPS
 * application is checked unless the scheme is exactly "HTTPS": Istio sets InsecureSkipVerify only then,
 * and its checker lowercases the scheme first (fillInDefaults), so a checked certificate is what a VM's
 * HTTPS readiness probe gets.
 */
export class HTTPProber implements WorkloadProber {
  private readonly client: ProbeClient;

  constructor(
    readonly config: HTTPHealthCheckConfig,
    readonly localAddress: string,
  ) {
    this.client = new ProbeClient({
      localAddress,
      keepAlive: false,
      http2: false,
      verifyCertificate: config.scheme !== "HTTPS",
    });
  }

  async probe(timeoutMs: number): Promise<ProbeOutcome> {
    const c = this.config;
    const scheme = (c.scheme ?? "http").toLowerCase() === "https" ? "https" : "http";
    const path = c.path ?? "/";
    let url: URL;
    try {
      url = new URL(`${scheme}://${joinHostPort(c.host ?? "", c.port)}${path.startsWith("/") ? path : `/${path}`}`);
    } catch (e) {
      return { result: "UNKNOWN", error: (e as Error).message };
    }
    // Go's http.Header as Istio fills it: names as written; "Host" sets the request's Host instead.
    const headers: [string, string][] = [];
    let hostHeader: string | undefined;
    for (const h of c.httpHeaders ?? []) {
      if (h.name === "Host") hostHeader ??= h.value;
      else headers.push([h.name, h.value]);
    }
    const host = hostHeader || url.host;
    if (!(c.httpHeaders ?? []).some((h) => h.name === "User-Agent")) headers.push(["User-Agent", DEFAULT_USER_AGENT]);
    try {
      const res = await httpProbe(this.client, { url, host, headers, timeoutMs, redirects: "any-host" });
      if (res.status >= 200 && res.status < 400) return { result: "HEALTHY" };
      return { result: "UNHEALTHY", error: `status code was not from [200,400), bad code ${res.status}` };
    } catch (e) {
      const failed = e as HTTPProbeError;
      const why = failed.reason === "timeout" ? "context deadline exceeded" : failed.message;
      return { result: "UNHEALTHY", error: `Get "${failed.url?.href ?? url.href}": ${why}` };
    }
  }
}

/** A TCP connect from the default source address. */
export class TCPProber implements WorkloadProber {
  constructor(readonly config: TCPHealthCheckConfig) {}

  async probe(timeoutMs: number): Promise<ProbeOutcome> {
    const target = joinHostPort(this.config.host ?? "", this.config.port);
    const error = await connectOnce({
      host: this.config.host || "localhost",
      port: this.config.port,
      timeoutMs,
      timeoutError: () => new Error("i/o timeout"),
    });
    return error === undefined
      ? { result: "HEALTHY" }
      : { result: "UNHEALTHY", error: `dial tcp ${target}: ${error.message}` };
  }
}

/** Runs a command; exit 0 is healthy. Past the timeout the command is killed. */
export class ExecProber implements WorkloadProber {
  constructor(readonly config: ExecHealthCheckConfig) {}

  async probe(timeoutMs: number): Promise<ProbeOutcome> {
    const error = await runCommand(this.config.command, timeoutMs);
    return error === undefined ? { result: "HEALTHY" } : { result: "UNHEALTHY", error };
  }
}

/**
 * The gRPC health check from the default source address, user agent istio-probe/1.0: SERVING is
 * healthy, any other status unhealthy (without an error); a failed call is unhealthy with Istio's text
 * for its code.
 */
export class GRPCProber implements WorkloadProber {
  constructor(
    readonly config: GrpcHealthCheckConfig,
    readonly host: string,
  ) {}

  async probe(timeoutMs: number): Promise<ProbeOutcome> {
    const port = this.config.port;
    try {
      const status = await checkHealth({
        host: this.host,
        port,
        service: this.config.service ?? "",
        deadline: Date.now() + timeoutMs,
        userAgent: DEFAULT_USER_AGENT,
      });
      return { result: status === 1 ? "HEALTHY" : "UNHEALTHY" };
    } catch (e) {
      if (!(e instanceof HealthCheckError)) {
        return { result: "UNHEALTHY", error: `health rpc probe failed: ${(e as Error).message}` };
      }
      if (e.phase === "connect") {
        return {
          result: "UNHEALTHY",
          error: `failed to connect health check grpc service on port ${port}: ${e.details}`,
        };
      }
      const error =
        e.code === UNIMPLEMENTED
          ? `service on port ${port} doesn't implement the grpc health protocol grpc.health.v1.Health: ${e.message}`
          : e.code === DEADLINE_EXCEEDED
            ? `health rpc probe timed out after ${durationString(BigInt(timeoutMs) * 1_000_000n)}: ${e.message}`
            : `health rpc probe failed with status ${grpcCodeName(e.code)}: ${e.message}`;
      return { result: "UNHEALTHY", error };
    }
  }
}

/** Envoy's readiness in front of the application's check. */
export class EnvoyProber implements WorkloadProber {
  constructor(readonly check: () => Promise<string | undefined>) {}

  async probe(): Promise<ProbeOutcome> {
    const problem = await this.check();
    return problem === undefined ? { result: "HEALTHY" } : { result: "UNHEALTHY", error: problem };
  }
}

/** The first prober that is not healthy decides. */
export class AggregateProber implements WorkloadProber {
  constructor(readonly probers: WorkloadProber[]) {}

  async probe(timeoutMs: number): Promise<ProbeOutcome> {
    for (const p of this.probers) {
      const o = await p.probe(timeoutMs);
      if (o.error !== undefined || o.result !== "HEALTHY") return o;
    }
    return { result: "HEALTHY" };
  }
}
