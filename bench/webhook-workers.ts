/**
 * `meshinject serve --workers N` as the load benchmark runs it (bench/webhook-load.ts, the workers
 * comparison): the real command line in a child process on loopback (`node --import tsx
 * src/cli/main.ts serve`, generated certificate, built-in configuration, logs to /dev/null at the
 * bench's log level), ready once /readyz answers and the metrics port reports every worker serving.
 * Its CPU is read from its own aggregated metrics: process_cpu_seconds_total, the primary's and the
 * workers' summed (cluster-metrics.ts).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { metricValue, scrapeMetrics } from "../src/webhook/https-client.js";
import { freePort } from "../test/loopback.js";
import { HOST, send, waitUntil } from "./webhook-harness.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

export interface ServeProcess {
  workers: number;
  port: number;
  metricsPort: number;
  /** CPU seconds the whole server (primary and workers) has used since its metrics started. */
  cpuSeconds(): Promise<number>;
  /** SIGTERM, then waits for the exit (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

export async function startServe(workers: number, logLevel: string): Promise<ServeProcess> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli/main.ts",
      "serve",
      `--workers=${workers}`,
      `--host=${HOST}`,
      `--port=${port}`,
      `--metrics-host=${HOST}`,
      `--metrics-port=${metricsPort}`,
      `--log-level=${logLevel}`,
      "--shutdown-delay=0",
      "--no-istiod-check",
    ],
    { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
  let exited: string | undefined;
  const exit = once(child, "exit");
  child.once("exit", (code, signal) => {
    exited = `serve --workers ${workers} exited (code ${code}, signal ${signal})`;
  });
  const ready = async () => {
    if (exited !== undefined) throw new Error(exited);
    try {
      const res = await send({ port, method: "GET", path: "/readyz", agent: false, timeoutMs: 2000 });
      if (res.status !== 200) return false;
      const metrics = await scrapeMetrics(metricsPort, HOST);
      return workers === 1 || metricValue(metrics, "meshinject_workers") === workers;
    } catch {
      return false;
    }
  };
  if ((await waitUntil(ready, 120_000, 200)) < 0) {
    child.kill("SIGKILL");
    throw new Error(`serve --workers ${workers} was not ready within 120 s`);
  }
  return {
    workers,
    port,
    metricsPort,
    cpuSeconds: async () => metricValue(await scrapeMetrics(metricsPort, HOST), "process_cpu_seconds_total"),
    stop: async () => {
      if (exited !== undefined) return;
      const kill = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.kill("SIGTERM");
      await exit;
      clearTimeout(kill);
    },
  };
}
