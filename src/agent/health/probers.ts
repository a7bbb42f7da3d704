/**
 * The probers the agent runs for a workload's readiness probe (WorkloadGroup `probe`, reported as
 * WorkloadEntry health): HTTP GET (2xx and 3xx healthy), TCP connect, a command, and the gRPC health
 * check, as pilot-agent's pkg/istio-agent/health. Each answers HEALTHY, UNHEALTHY or UNKNOWN with the error.
 */
import { spawn } from "node:child_process";
import * as http from "node:http";
import * as https from "node:https";
import { isIP } from "node:net";
import { joinHostPort } from "../../mesh/validate-net.js";
import { connectOnce } from "../status/app-probe.js";
import { checkHealth, grpcCodeName, HealthCheckError } from "../status/grpc-health.js";

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

const MAX_REDIRECTS = 10;

/** HTTP GET from the upstream local address (127.0.0.6 or ::6), keep-alive off, redirects followed. */
export class HTTPProber implements WorkloadProber {
  constructor(
    readonly config: HTTPHealthCheckConfig,
    readonly localAddress: string,
  ) {}

  probe(timeoutMs: number): Promise<ProbeOutcome> {
    const c = this.config;
    const scheme = (c.scheme ?? "http").toLowerCase() === "https" ? "https" : "http";
    const path = c.path ?? "/";
    let url: URL;
    try {
      url = new URL(`${scheme}://${joinHostPort(c.host ?? "", c.port)}${path.startsWith("/") ? path : `/${path}`}`);
    } catch (e) {
      return Promise.resolve({ result: "UNKNOWN", error: (e as Error).message });
    }
    const headers: Record<string, string[]> = {};
    for (const h of c.httpHeaders ?? []) headers[h.name] = [...(headers[h.name] ?? []), h.value];
    if (!Object.keys(headers).some((k) => k.toLowerCase() === "user-agent"))
      headers["User-Agent"] = ["istio-probe/1.0"];
    return new Promise((resolve) => {
      let settled = false;
      let current: http.ClientRequest | undefined;
      const finish = (o: ProbeOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        current?.destroy();
        resolve(o);
      };
      const timer = setTimeout(
        () => finish({ result: "UNHEALTHY", error: `Get "${url.href}": context deadline exceeded` }),
        timeoutMs,
      );
      const hop = (target: URL, left: number) => {
        const lib = target.protocol === "https:" ? https : http;
        const host = target.hostname.replace(/^\[|\]$/g, "");
        current = lib.get(
          {
            host,
            port: target.port,
            path: `${target.pathname}${target.search}`,
            headers: { ...headers, Connection: "close" },
            agent: false,
            localAddress: this.localAddress,
            family: isIP(this.localAddress) === 6 ? 6 : 4,
            rejectUnauthorized: false,
          },
          (res) => {
            res.resume();
            const status = res.statusCode ?? 0;
            const location = res.headers.location;
            if ([301, 302, 303, 307, 308].includes(status) && location) {
              if (left === 0) {
                finish({ result: "UNHEALTHY", error: `Get "${location}": stopped after ${MAX_REDIRECTS} redirects` });
                return;
              }
              hop(new URL(location, target), left - 1);
              return;
            }
            if (status >= 200 && status < 400) finish({ result: "HEALTHY" });
            else finish({ result: "UNHEALTHY", error: `status code was not from [200,400), bad code ${status}` });
          },
        );
        current.on("error", (e) => finish({ result: "UNHEALTHY", error: `Get "${target.href}": ${e.message}` }));
      };
      hop(url, MAX_REDIRECTS);
    });
  }
}

/** A TCP connect from the default source address (the probe proxy's connect, ../status/app-probe.ts). */
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

  probe(timeoutMs: number): Promise<ProbeOutcome> {
    const [cmd, ...args] = this.config.command;
    if (cmd === undefined) return Promise.resolve({ result: "UNHEALTHY", error: "exec: no command" });
    return new Promise((resolve) => {
      let timedOut = false;
      const child = spawn(cmd, args, { stdio: "ignore" });
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, timeoutMs);
      child.once("error", (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const why = e.code === "ENOENT" ? "executable file not found in $PATH" : e.message;
        resolve({ result: "UNHEALTHY", error: `exec: "${cmd}": ${why}` });
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        if (code === 0) {
          resolve({ result: "HEALTHY" });
          return;
        }
        const how = signal === "SIGKILL" ? "signal: killed" : signal ? `signal: ${signal}` : `exit status ${code}`;
        resolve({ result: "UNHEALTHY", error: timedOut ? `command timeout exceeded: ${how}` : how });
      });
    });
  }
}

/** The gRPC health check: SERVING is healthy, any other status unhealthy (without an error). */
export class GRPCProber implements WorkloadProber {
  constructor(
    readonly config: GrpcHealthCheckConfig,
    readonly host: string,
  ) {}

  async probe(timeoutMs: number): Promise<ProbeOutcome> {
    try {
      const status = await checkHealth({
        address: joinHostPort(this.host, this.config.port),
        service: this.config.service ?? "",
        deadline: Date.now() + timeoutMs,
      });
      return { result: status === 1 ? "HEALTHY" : "UNHEALTHY" };
    } catch (e) {
      if (e instanceof HealthCheckError && e.phase === "connect") {
        return {
          result: "UNHEALTHY",
          error: `failed to connect health check grpc service on port ${this.config.port}: ${e.details}`,
        };
      }
      const code = e instanceof HealthCheckError ? grpcCodeName(e.code) : "Unknown";
      return { result: "UNHEALTHY", error: `health rpc probe failed with status ${code}: ${(e as Error).message}` };
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
