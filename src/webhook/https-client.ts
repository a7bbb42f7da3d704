/**
 * A small client for talking to the webhook the way the API server and Prometheus do (tests, the
 * conformance runner's webhook mode, benchmarks): POST a body over HTTPS and get the status,
 * headers, body and the certificate the server presented; scrape the plain-HTTP /metrics.
 */

import { get as httpGet } from "node:http";
import { type Agent, request } from "node:https";
import type { TLSSocket } from "node:tls";

export interface CallOptions {
  port: number;
  host?: string;
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  /** The body; a string or Buffer is sent as is, anything else as JSON. */
  body?: unknown;
  /** Trusted CA (PEM); without it the server certificate is not verified. */
  ca?: string;
  /** TLS server name (default "localhost"). */
  servername?: string;
  /** A keep-alive agent to reuse connections; default a fresh connection. */
  agent?: Agent;
  timeoutMs?: number;
}

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint: string;
  /** Whether the request went over a connection used before (keep-alive). */
  reusedSocket: boolean;
}

/** Sends one request and reads the whole answer. */
export function call(options: CallOptions): Promise<CallResult> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string" || Buffer.isBuffer(options.body)
        ? options.body
        : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.host ?? "127.0.0.1",
        port: options.port,
        method: options.method ?? "POST",
        path: options.path ?? "/inject",
        headers: {
          ...(body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
          ...options.headers,
        },
        servername: options.servername ?? "localhost",
        ...(options.ca === undefined ? { rejectUnauthorized: false } : { ca: options.ca }),
        agent: options.agent ?? false,
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256 ?? "";
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            fingerprint,
            reusedSocket: req.reusedSocket,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("request timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

/** POSTs an AdmissionReview and returns the parsed AdmissionReview answer (throws unless 200 JSON). */
export async function postReview(
  options: Omit<CallOptions, "body" | "method"> & { review: unknown },
): Promise<Record<string, unknown>> {
  const res = await call({ ...options, body: options.review });
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** GETs the metrics port's /metrics text. */
export function scrapeMetrics(port: number, host = "127.0.0.1"): Promise<string> {
  return new Promise((resolve, reject) => {
    httpGet({ host, port, path: "/metrics" }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve(text));
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** The value of one series (`name` or `name{label="v"}`) in Prometheus text; 0 when absent. */
export function metricValue(metrics: string, series: string): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
