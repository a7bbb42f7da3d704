/**
 * The primary of `serve --workers N` (node:cluster): it owns nothing but supervision. N workers
 * (cluster-worker.ts) share the HTTPS port (node:cluster hands them connections in turn); the
 * primary
 *   - opens the metrics port and serves the workers' aggregated metrics (cluster-metrics.ts);
 *   - starts the workers and resolves once every one listens (a worker that fails to start fails the
 *     start, with its message);
 *   - replaces a worker that exits unexpectedly, after a back-off (200 ms, doubling while replacements
 *     keep dying within 30 s, at most 10 s), logging why; the others serve meanwhile;
 *   - on close(), tells every worker to drain (each as a server without workers does on SIGTERM:
 *     the drain delay, then requests in flight for at most the shutdown timeout) and resolves when
 *     all have exited, killing any still there after drain delay + shutdown timeout + `graceMs`.
 * Configuration and certificate reloads need nothing from it: every worker watches the files.
 */

import cluster, { type Worker } from "node:cluster";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createPrimaryMetrics, type MetricsJson, type WorkerMetrics } from "./cluster-metrics.js";
import type { PrimaryMessage, WorkerMessage, WorkerStart } from "./cluster-worker.js";
import { WORKER_ENV } from "./defaults.js";
import type { Limits } from "./limits.js";
import { closeHttpServer, listen } from "./listen.js";
import type { Logger } from "./logging.js";
import { metricsHandler } from "./metrics.js";
import type { TlsPair } from "./tls.js";

export interface PrimaryOptions {
  workers: number;
  /** The HTTPS port the workers listen on (0: the first worker picks one; the others share it). */
  port: number;
  /** Plain-HTTP metrics port (0: any free port; null: none). */
  metricsPort: number | null;
  metricsHost?: string;
  /** Sent to every worker when no certificate files are given. */
  generatedCertificate?: TlsPair;
  limits: Pick<Limits, "drainDelayMs" | "shutdownTimeoutMs">;
  /** After drain delay + shutdown timeout, how long workers may take to exit before they are killed (ms). */
  graceMs: number;
  logger: Logger;
  defaultMetrics?: boolean;
  /** How long a worker may take to answer a metrics request (ms). Default 5000. */
  metricsTimeoutMs?: number;
}

export interface RunningPrimary {
  /** The HTTPS port the workers serve. */
  port: number;
  metricsPort: number;
  /** The workers' process ids, by place. */
  pids(): number[];
  /** Drains every worker and closes the metrics port; resolves when all workers have exited. */
  close(): Promise<void>;
  /** Kills every worker now (a second signal). */
  kill(): void;
}

/** A start-up failure of a worker, in the user's words. */
export class WorkerStartError extends Error {
  override name = "WorkerStartError";
}

const BACKOFF_FIRST_MS = 200;
const BACKOFF_MAX_MS = 10_000;
/** A worker that served this long before it died starts its place's back-off afresh. */
const STABLE_MS = 30_000;

/** The wait before replacing a worker, its place's `crashes`-th short-lived one in a row (from 1). */
export function restartDelay(crashes: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, crashes - 1));
}

interface Place {
  worker?: Worker;
  listening: boolean;
  startedAt: number;
  /** Consecutive short-lived replacements in this place. */
  crashes: number;
  restartTimer?: NodeJS.Timeout;
}

export async function startPrimary(o: PrimaryOptions): Promise<RunningPrimary> {
  const { logger } = o;
  const metrics = createPrimaryMetrics({ defaultMetrics: o.defaultMetrics ?? true });
  const places: Place[] = Array.from({ length: o.workers }, () => ({ listening: false, startedAt: 0, crashes: 0 }));
  let boundPort = o.port;
  let stopping = false;
  let started = false;
  let failStart: (e: Error) => void = () => {};
  let allListening: () => void = () => {};
  const startup = new Promise<void>((resolve, reject) => {
    allListening = resolve;
    failStart = reject;
  });

  // --- metrics of every worker ---
  let nextRequest = 1;
  const askMetrics = (slot: number, worker: Worker): Promise<WorkerMetrics> =>
    new Promise((resolve, reject) => {
      const id = nextRequest++;
      const done = (e?: Error, metrics?: MetricsJson) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        if (e) reject(e);
        else resolve({ slot, metrics: metrics ?? [] });
      };
      const onMessage = (msg: WorkerMessage) => {
        if (msg.type !== "meshinject:metrics-answer" || msg.id !== id) return;
        done(
          msg.error === undefined ? undefined : new Error(`worker ${slot}: ${msg.error}`),
          msg.metrics as MetricsJson,
        );
      };
      const onExit = () => done(new Error(`worker ${slot} exited while asked for its metrics`));
      const timer = setTimeout(
        () => done(new Error(`worker ${slot} did not answer for its metrics within ${o.metricsTimeoutMs ?? 5000} ms`)),
        o.metricsTimeoutMs ?? 5000,
      );
      worker.on("message", onMessage);
      worker.once("exit", onExit);
      worker.send({ type: "meshinject:metrics-request", id } satisfies PrimaryMessage);
    });
  const source = {
    contentType: metrics.registry.contentType,
    async metrics() {
      const serving = places.flatMap((p, slot) => (p.worker && p.listening ? [{ slot, worker: p.worker }] : []));
      const perWorker = await Promise.all(serving.map(({ slot, worker }) => askMetrics(slot, worker)));
      return (await metrics.aggregate(perWorker)).metrics();
    },
  };
  let metricsServer: HttpServer | undefined;
  let metricsPort = -1;
  if (o.metricsPort !== null) {
    metricsServer = createHttpServer(metricsHandler(source));
    metricsPort = await listen(metricsServer, o.metricsPort, o.metricsHost);
    metricsServer.on("error", (e) => logger.error({ err: e }, "metrics server error"));
  }

  // --- the workers ---
  const countServing = () => metrics.workers.set(places.filter((p) => p.listening).length);
  const fork = (slot: number) => {
    const place = places[slot] as Place;
    const worker = cluster.fork({ [WORKER_ENV]: String(slot) });
    place.worker = worker;
    place.listening = false;
    place.startedAt = Date.now();
    worker.on("message", (msg: WorkerMessage) => {
      switch (msg.type) {
        case "meshinject:hello": {
          if (stopping) {
            worker.process.kill("SIGKILL"); // not serving yet: nothing to drain
            return;
          }
          const start: WorkerStart = {
            slot,
            workers: o.workers,
            port: o.port,
            ...(o.generatedCertificate === undefined ? {} : { generatedCertificate: o.generatedCertificate }),
          };
          worker.send({ type: "meshinject:start", start } satisfies PrimaryMessage);
          break;
        }
        case "meshinject:listening":
          place.listening = true;
          // Workers always listen on the port given: node:cluster shares one handle per address and
          // port as given, so with port 0 every worker's listen(0) joins the port the first one bound.
          boundPort = msg.port;
          countServing();
          logger.info({ worker: slot, pid: worker.process.pid }, "worker listening");
          if (!started && places.every((p) => p.listening)) {
            started = true;
            allListening();
          }
          break;
        case "meshinject:failed":
          if (!started) failStart(new WorkerStartError(msg.message));
          else logger.error({ worker: slot, err: msg.message }, "replacement worker failed to start");
          break;
      }
    });
    worker.on("exit", (code, signal) => {
      const wasListening = place.listening;
      place.listening = false;
      if (place.worker === worker) place.worker = undefined;
      countServing();
      if (stopping) {
        logger.info({ worker: slot, pid: worker.process.pid, code, signal }, "worker stopped");
        return;
      }
      if (!started) {
        failStart(new WorkerStartError(`worker ${slot} exited (code ${code}, signal ${signal}) before it listened`));
        return;
      }
      const lived = Date.now() - place.startedAt;
      place.crashes = wasListening && lived >= STABLE_MS ? 1 : place.crashes + 1;
      const delay = restartDelay(place.crashes);
      metrics.restarts.inc();
      logger.error(
        { worker: slot, pid: worker.process.pid, code, signal, livedMs: lived, restartInMs: delay },
        "worker exited unexpectedly: replacing it",
      );
      place.restartTimer = setTimeout(() => {
        place.restartTimer = undefined;
        if (!stopping) fork(slot);
      }, delay);
    });
  };

  const exits = () =>
    places.flatMap((p) =>
      p.worker === undefined || p.worker.isDead()
        ? []
        : [new Promise<void>((resolve) => (p.worker as Worker).once("exit", () => resolve()))],
    );
  const kill = () => {
    for (const p of places) if (p.worker && !p.worker.isDead()) p.worker.process.kill("SIGKILL");
  };
  const closeMetrics = async () => {
    if (metricsServer !== undefined) await closeHttpServer(metricsServer);
  };

  for (let slot = 0; slot < o.workers; slot++) fork(slot);
  try {
    await startup;
  } catch (e) {
    stopping = true;
    const gone = exits();
    kill();
    await Promise.all(gone);
    await closeMetrics();
    throw e;
  }
  const port = boundPort;
  logger.info({ port, metricsPort, workers: o.workers }, "sidecar injector webhook listening");

  let closing: Promise<void> | undefined;
  return {
    port,
    metricsPort,
    pids: () => places.map((p) => p.worker?.process.pid ?? -1),
    kill,
    close: () => {
      closing ??= (async () => {
        stopping = true;
        for (const p of places) clearTimeout(p.restartTimer);
        const gone = exits();
        logger.info({ workers: gone.length }, "shutting down: every worker drains");
        for (const p of places) {
          if (p.worker?.isConnected()) p.worker.send({ type: "meshinject:shutdown" } satisfies PrimaryMessage);
        }
        const bound = o.limits.drainDelayMs + o.limits.shutdownTimeoutMs + o.graceMs;
        const timer = setTimeout(() => {
          logger.error({ afterMs: bound }, "workers did not stop: killing them");
          kill();
        }, bound);
        await Promise.all(gone);
        clearTimeout(timer);
        await closeMetrics();
        logger.info("stopped");
      })();
      return closing;
    },
  };
}
