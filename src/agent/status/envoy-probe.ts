/**
 * The Envoy readiness probe: asks Envoy's admin `/stats` for the update stats until the first CDS and LDS
 * updates have arrived, then for server.state and workers_started until Envoy has been live once; from
 * then on Envoy is not asked again (those stats only go back on a hot restart). The judgement itself is
 * in envoy-stats.ts.
 */
import * as http from "node:http";
import {
  judgeConfigStatus,
  judgeEnvoyReadiness,
  parseUpdateStats,
  READY_STATS_FILTER,
  UPDATE_STATS_FILTER,
} from "./envoy-stats.js";

export interface EnvoyProbeOptions {
  /** Envoy admin address: 127.0.0.1, or ::1 for IPv6 pods. */
  host: string;
  adminPort: number;
  /** Aborted when the agent is terminating: the probe then fails. */
  signal?: AbortSignal;
}

/** status/util/stats.go readinessTimeout: each admin request, body included, within 3 s (no variable). */
export const READINESS_TIMEOUT_MS = 3000;

/** GET on Envoy's admin API; the body of a 200 answer, all of it within timeoutMs (Go's Client.Timeout). */
export function adminGet(host: string, port: number, path: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => req.destroy(new Error(`Envoy admin ${path} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const req = http.get({ host, port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== 200) reject(new Error(`unexpected status code ${res.statusCode} from Envoy ${path}`));
        else resolve(body);
      });
    });
    req.on("error", reject);
    req.on("close", () => clearTimeout(timer));
  });
}

function statsPath(filter: string): string {
  return `/stats?usedonly&filter=${encodeURIComponent(filter)}`;
}

export class EnvoyReadinessProbe {
  host: string;
  adminPort: number;
  private readonly signal?: AbortSignal;
  private receivedFirstUpdate = false;
  private readyOnce = false;

  constructor(opts: EnvoyProbeOptions) {
    this.host = opts.host;
    this.adminPort = opts.adminPort;
    this.signal = opts.signal;
  }

  /** Whether Envoy has been seen live with its workers started. */
  get atleastOnceReady(): boolean {
    return this.readyOnce;
  }

  /** undefined when Envoy is ready, else why not. */
  async check(): Promise<string | undefined> {
    try {
      const config = await this.checkConfigStatus();
      if (config !== undefined) return config;
      return await this.checkEnvoyReady();
    } catch (e) {
      return (e as Error).message;
    }
  }

  private async checkConfigStatus(): Promise<string | undefined> {
    if (this.receivedFirstUpdate) return undefined;
    const text = await adminGet(this.host, this.adminPort, statsPath(UPDATE_STATS_FILTER), READINESS_TIMEOUT_MS);
    const problem = judgeConfigStatus(parseUpdateStats(text));
    if (problem === undefined) this.receivedFirstUpdate = true;
    return problem;
  }

  /** The readiness half alone (also what a draining agent fails). */
  async checkEnvoyReady(): Promise<string | undefined> {
    if (this.signal?.aborted) return `server is terminated: ${String(this.signal.reason ?? "terminating")}`;
    if (this.readyOnce) return undefined;
    let text: string;
    try {
      text = await adminGet(this.host, this.adminPort, statsPath(READY_STATS_FILTER), READINESS_TIMEOUT_MS);
    } catch (e) {
      return `failed to get readiness stats: ${(e as Error).message}`;
    }
    const problem = judgeEnvoyReadiness(text);
    if (problem === undefined) this.readyOnce = true;
    return problem;
  }
}
