/**
 * Shared by the webhook load, soak and fuzz scripts: command-line flags, the run header (exact
 * command line, Node version), the server child process (webhook-child.ts), a lean HTTPS client
 * with full control over method, headers and body, a closed-loop load runner bounded in count and
 * time, and latency percentiles. Everything talks to 127.0.0.1 only.
 */

import { type ChildProcess, fork } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { Agent, request } from "node:https";
import type { TLSSocket } from "node:tls";
import type { ChildCommand, StartResult } from "./webhook-child.js";

export const HOST = "127.0.0.1";

// --- flags ---

/**
 * `--name value` / `--name=value` flags with defaults, and `--name` alone for the names in
 * `switches` (then "true", default "false"); unknown flags are an error (exit 2).
 */
export function parseFlags<T extends Record<string, string>>(
  defaults: T,
  usage: string,
  switches: readonly (keyof T & string)[] = [],
): T {
  const out: Record<string, string> = { ...defaults };
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--help" || arg === "-h") {
      console.log(usage);
      process.exit(0);
    }
    if (switches.includes(arg.slice(2))) {
      out[arg.slice(2)] = "true";
      continue;
    }
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(arg);
    const name = m?.[1];
    if (name === undefined || !(name in defaults)) {
      console.error(`unknown argument ${JSON.stringify(arg)}\n${usage}`);
      process.exit(2);
    }
    const value = m?.[2] ?? args[++i];
    if (value === undefined) {
      console.error(`--${name} needs a value\n${usage}`);
      process.exit(2);
    }
    out[name] = value;
  }
  return out as T;
}

/** A flag as a positive number (exit 2 otherwise). */
export function numberFlag(flags: Record<string, string>, name: string): number {
  const n = Number(flags[name]);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`--${name} must be a positive number, got ${JSON.stringify(flags[name])}`);
    process.exit(2);
  }
  return n;
}

/** Prints what reproduces the run: the exact command line, Node version, platform, CPUs. */
export function printHeader(title: string): void {
  const argv = [process.argv0, ...process.execArgv, ...process.argv.slice(1)].map((a) =>
    /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`,
  );
  console.log(`# ${title}`);
  console.log(`command: ${argv.join(" ")}`);
  console.log(`node ${process.version} (${process.platform}/${process.arch}), cwd ${process.cwd()}`);
}

// --- the server child process ---

export interface ServerChild {
  port: number;
  metricsPort: number;
  pid: number;
  /** Sends one control message and waits for its answer (bounded by `timeoutMs`). */
  ask<R>(msg: ChildCommand, timeoutMs?: number): Promise<R>;
  /** process.memoryUsage() of the server, after a full GC when `gc`. */
  memory(gc: boolean): Promise<NodeJS.MemoryUsage>;
  /** CPU time (user + system, µs) the server process has used so far. */
  cpuMicros(): Promise<number>;
  /** Whether the process has exited (and why). */
  exited(): string | undefined;
  /** Graceful close, then the process exits (killed after 20 s). */
  stop(): Promise<void>;
}

/**
 * Forks webhook-child.ts (with tsx and --expose-gc), starts the server there and returns its ports.
 * The child's stdout (the JSON logs) goes to `logFile` (or nowhere), its stderr to ours.
 */
export async function startChild(
  start: Extract<ChildCommand, { op: "start" }>,
  logFile?: string,
): Promise<ServerChild> {
  const out = logFile === undefined ? "ignore" : openSync(logFile, "a");
  // BENCH_CHILD_CPU_PROF=DIR: each server child writes a V8 CPU profile (--cpu-prof) into DIR on exit.
  const profileDir = process.env.BENCH_CHILD_CPU_PROF;
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const child: ChildProcess = fork(new URL("./webhook-child.ts", import.meta.url).pathname, [], {
    execArgv: ["--import", "tsx", "--expose-gc", ...profile],
    stdio: ["ignore", out, "inherit", "ipc"],
  });
  if (typeof out === "number") closeSync(out);
  let exitReason: string | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on("message", (msg: { id: number; ok: boolean; result?: unknown; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new Error(`server child: ${msg.error}`));
  });
  child.on("exit", (code, signal) => {
    exitReason = `server child exited (code ${code}, signal ${signal})`;
    for (const p of pending.values()) p.reject(new Error(exitReason));
    pending.clear();
  });
  const ask = <R>(msg: ChildCommand, timeoutMs = 30_000): Promise<R> => {
    if (exitReason !== undefined) return Promise.reject(new Error(exitReason));
    const id = nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`server child did not answer ${msg.op} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as R);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ ...msg, id });
    });
  };
  const started = await ask<StartResult>(start, 60_000);
  return {
    ...started,
    pid: child.pid ?? -1,
    ask,
    memory: (gc) => ask<NodeJS.MemoryUsage>({ op: "memory", gc }),
    cpuMicros: async () => {
      const cpu = await ask<NodeJS.CpuUsage>({ op: "cpu" });
      return cpu.user + cpu.system;
    },
    exited: () => exitReason,
    stop: async () => {
      if (exitReason !== undefined) return;
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const kill = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await ask({ op: "close" }).catch(() => child.kill("SIGKILL"));
      await gone;
      clearTimeout(kill);
    },
  };
}

// --- a lean HTTPS client ---

export interface SendOptions {
  port: number;
  method?: string;
  path?: string;
  /** Sent exactly as given (no content-type or content-length is added). */
  headers?: Record<string, string | number>;
  body?: Buffer | string;
  agent: Agent | false;
  timeoutMs?: number;
}

export interface SendResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** SHA-256 fingerprint of the certificate the server presented on this connection. */
  fingerprint: string;
  reusedSocket: boolean;
  /** Time from sending to the last byte of the answer (ms). */
  ms: number;
}

const fingerprints = new WeakMap<object, string>();

/** One HTTPS request (server certificate not verified: the benchmarks pin fingerprints instead). */
export function send(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: HOST,
        port: options.port,
        method: options.method ?? "POST",
        path: options.path ?? "/inject",
        headers: options.headers ?? {},
        servername: "localhost",
        rejectUnauthorized: false,
        agent: options.agent,
        timeout: options.timeoutMs ?? 15_000,
      },
      (res) => {
        const socket = res.socket as TLSSocket;
        let fingerprint = fingerprints.get(socket);
        if (fingerprint === undefined) {
          fingerprint = socket.getPeerCertificate().fingerprint256 ?? "";
          fingerprints.set(socket, fingerprint);
        }
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
            fingerprint: fingerprint ?? "",
            reusedSocket: req.reusedSocket,
            ms: performance.now() - started,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 15_000} ms`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A keep-alive agent with at most `sockets` connections (so connections = concurrency). */
export function keepAliveAgent(sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, keepAliveMsecs: 1000 });
}

// --- closed-loop load ---

export interface LoadOptions {
  concurrency: number;
  /** Stop starting requests after this long (ms). */
  durationMs: number;
  /** Stop after this many requests in all (default: no count bound, only time). */
  maxRequests?: number;
  /** One request; `i` is its index in this run. Resolves with its latency (ms); must not throw. */
  one: (i: number) => Promise<number>;
}

export interface LoadResult {
  requests: number;
  elapsedMs: number;
  /** Latencies (ms) of every request, in completion order. */
  latencies: Float64Array;
}

/** `concurrency` workers each send one request after another until the time or count bound. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const max = options.maxRequests ?? Number.POSITIVE_INFINITY;
  let latencies: Float64Array = new Float64Array(1 << 16);
  let count = 0;
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + options.durationMs;
  const worker = async () => {
    while (started < max && performance.now() < deadline) {
      const ms = await options.one(started++);
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[count++] = ms;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { requests: count, elapsedMs: performance.now() - t0, latencies: latencies.slice(0, count) };
}

/** The p-th percentile (0..100) of latencies, nearest-rank. */
export function percentile(values: Float64Array, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.slice().sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function ms(n: number): string {
  return Number.isNaN(n) ? "-" : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

export function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** Waits until `check` is true, polling every `everyMs`, at most `timeoutMs`; returns the time waited or -1. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    if (await check()) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return -1;
}

export const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));
