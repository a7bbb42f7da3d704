/**
 * The workload health checker: runs the readiness probe every period and reports an event only when the
 * state changes, after `successThreshold` consecutive successes or `failureThreshold` consecutive failures
 * (the first result always reports), as pilot-agent's WorkloadHealthChecker.
 */
import {
  AggregateProber,
  EnvoyProber,
  type ExecHealthCheckConfig,
  ExecProber,
  GRPCProber,
  type GrpcHealthCheckConfig,
  type HTTPHealthCheckConfig,
  HTTPProber,
  type TCPHealthCheckConfig,
  TCPProber,
  type WorkloadProber,
} from "./probers.js";

/** networking.istio.io ReadinessProbe (proto JSON names). */
export interface ReadinessProbe {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  httpGet?: HTTPHealthCheckConfig;
  tcpSocket?: TCPHealthCheckConfig;
  exec?: ExecHealthCheckConfig;
  grpc?: GrpcHealthCheckConfig;
}

export interface ProbeEvent {
  healthy: boolean;
  unhealthyStatus?: number;
  unhealthyMessage?: string;
}

export interface WorkloadHealthCheckerOptions {
  /** The proxy's addresses; the first is the host of probes that name none. */
  proxyAddrs: string[];
  ipv6?: boolean;
  /** Envoy's readiness, checked before the application's. */
  envoyReady?: () => Promise<string | undefined>;
  /** Test hook: the period in ms instead of periodSeconds. */
  checkFrequencyMs?: number;
}

const orDefault = (v: number | undefined, d: number) => (v === undefined || v === 0 ? d : v);

export class WorkloadHealthChecker {
  private readonly prober: WorkloadProber;
  private readonly initialDelayMs: number;
  private readonly timeoutMs: number;
  private readonly periodMs: number;
  private readonly successThreshold: number;
  private readonly failureThreshold: number;

  constructor(cfg: ReadinessProbe, opts: WorkloadHealthCheckerOptions) {
    const host = opts.proxyAddrs[0] ?? "localhost";
    this.initialDelayMs = (cfg.initialDelaySeconds ?? 0) * 1000;
    this.timeoutMs = orDefault(cfg.timeoutSeconds, 1) * 1000;
    this.periodMs = opts.checkFrequencyMs ?? orDefault(cfg.periodSeconds, 10) * 1000;
    this.successThreshold = orDefault(cfg.successThreshold, 1);
    this.failureThreshold = orDefault(cfg.failureThreshold, 1);
    const probers: WorkloadProber[] = [];
    if (opts.envoyReady) probers.push(new EnvoyProber(opts.envoyReady));
    if (cfg.httpGet) {
      const h = cfg.httpGet;
      probers.push(
        new HTTPProber(
          { ...h, path: h.path || "/", scheme: (h.scheme || "http").toLowerCase(), host: h.host || host },
          opts.ipv6 ? "::6" : "127.0.0.6",
        ),
      );
    } else if (cfg.tcpSocket) {
      probers.push(new TCPProber({ ...cfg.tcpSocket, host: cfg.tcpSocket.host || host }));
    } else if (cfg.exec) {
      probers.push(new ExecProber(cfg.exec));
    } else if (cfg.grpc) {
      probers.push(new GRPCProber(cfg.grpc, host));
    }
    this.prober = new AggregateProber(probers);
  }

  /** Starts checking; returns the function that stops it. */
  start(callback: (e: ProbeEvent) => void): () => void {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let successes = 0;
    let failures = 0;
    let last: "undefined" | "healthy" | "unhealthy" = "undefined";
    const doCheck = async () => {
      const o = await this.prober.probe(this.timeoutMs);
      if (stopped) return;
      if (o.result === "HEALTHY") {
        successes++;
        failures = 0;
        if (successes >= this.successThreshold && last !== "healthy") {
          callback({ healthy: true });
          successes = 0;
          last = "healthy";
        }
      } else {
        failures++;
        successes = 0;
        if (failures >= this.failureThreshold && last !== "unhealthy") {
          failures = 0;
          callback({ healthy: false, unhealthyStatus: 500, unhealthyMessage: o.error ?? `probe result ${o.result}` });
          last = "unhealthy";
        }
      }
    };
    const loop = async () => {
      if (stopped) return;
      await doCheck();
      if (!stopped) timer = setTimeout(loop, this.periodMs);
    };
    timer = setTimeout(loop, this.initialDelayMs);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }
}
