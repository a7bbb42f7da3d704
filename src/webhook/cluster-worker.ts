/**
 * One worker of `serve --workers N` (node:cluster; the primary is cluster-primary.ts). A worker is a
 * whole webhook server (startServer) on the shared HTTPS port, with its own configuration and
 * certificate watches, and without a metrics listener: the primary serves the aggregate of every
 * worker's registry. Its conversation with the primary over the IPC channel:
 *
 *   worker → primary   hello                        ready for its start message
 *   primary → worker   start {slot, workers, port, generatedCertificate?}
 *   worker → primary   listening {port} | failed {message}
 *   primary → worker   metrics-request {id}  →  metrics-answer {id, metrics}
 *   primary → worker   shutdown                     drain (as SIGTERM does without workers), then exit 0
 *
 * Signals are the primary's to handle: a worker ignores SIGTERM and SIGINT (a terminal's Ctrl-C
 * reaches the whole process group), and exits when the primary goes away (node:cluster does that).
 */

import type { Registry } from "prom-client";
import type { Logger } from "./logging.js";
import type { RunningServer, ServerOptions } from "./server.js";
import type { TlsPair } from "./tls.js";

export interface WorkerStart {
  /** The worker's place, 0 to workers-1 (a replacement takes the place of the worker it replaces). */
  slot: number;
  workers: number;
  /** The HTTPS port: the one given, or the one bound by the first worker when 0 was given. */
  port: number;
  /** The primary's generated certificate, when no certificate files were given (the same for all). */
  generatedCertificate?: TlsPair;
}

export type PrimaryMessage =
  | { type: "meshinject:start"; start: WorkerStart }
  | { type: "meshinject:metrics-request"; id: number }
  | { type: "meshinject:shutdown" };

export type WorkerMessage =
  | { type: "meshinject:hello" }
  | { type: "meshinject:listening"; port: number }
  | { type: "meshinject:failed"; message: string }
  | { type: "meshinject:metrics-answer"; id: number; metrics?: unknown; error?: string };

/** Sends a message to the primary; resolves once it is handed to the channel (safe to exit then). */
function sendToPrimary(msg: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(msg, undefined, {}, () => resolve());
  });
}

function onPrimaryMessage(listener: (msg: PrimaryMessage) => void): void {
  process.on("message", (msg: PrimaryMessage) => {
    if (typeof msg === "object" && msg !== null && typeof msg.type === "string") listener(msg);
  });
}

/**
 * The options of one worker's server: the port from the primary, no metrics listener, the primary's
 * generated certificate, a logger that names the worker, and the limits that hold for the whole
 * process (--max-connections, --max-buffered-bytes) shared out between the workers.
 */
export function workerOptions(options: ServerOptions, start: WorkerStart, logger: Logger): ServerOptions {
  const share = (n: number | undefined) => (n === undefined ? undefined : Math.ceil(n / start.workers));
  const maxConnections = share(options.limits?.maxConnections);
  const maxBufferedBytes = share(options.limits?.maxBufferedBytes);
  return {
    ...options,
    port: start.port,
    metricsPort: null,
    ...(start.generatedCertificate === undefined ? {} : { tls: start.generatedCertificate }),
    limits: {
      ...options.limits,
      ...(maxConnections === undefined ? {} : { maxConnections }),
      ...(maxBufferedBytes === undefined ? {} : { maxBufferedBytes }),
    },
    logger: logger.child({ worker: start.slot }),
  };
}

export interface WorkerRun {
  /** Starts this worker's server (options from workerOptions). */
  start(start: WorkerStart): Promise<RunningServer>;
  /** A start-up error in the user's words. */
  describeError(e: unknown): string;
  logger: Logger;
}

/**
 * Runs this process as a worker: asks the primary for its start, serves, answers metrics requests,
 * and drains and exits when told. Resolves when the server has stopped (the caller exits 0);
 * a start-up failure is reported to the primary, then thrown.
 */
export function runWorker(run: WorkerRun): Promise<void> {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => run.logger.debug({ signal }, "signal left to the primary"));
  }
  return new Promise<void>((resolve, reject) => {
    let server: RunningServer | undefined;
    let shutdownAsked = false;
    const shutdown = () => {
      if (server === undefined) return;
      server.close().then(resolve, reject);
    };
    onPrimaryMessage((msg) => {
      switch (msg.type) {
        case "meshinject:start":
          run.start(msg.start).then(
            (s) => {
              server = s;
              void sendToPrimary({ type: "meshinject:listening", port: s.port });
              if (shutdownAsked) shutdown();
            },
            (e: unknown) => {
              void sendToPrimary({ type: "meshinject:failed", message: run.describeError(e) }).then(() => reject(e));
            },
          );
          break;
        case "meshinject:metrics-request":
          answerMetrics(msg.id, server?.metrics.registry);
          break;
        case "meshinject:shutdown":
          shutdownAsked = true;
          shutdown();
          break;
      }
    });
    void sendToPrimary({ type: "meshinject:hello" });
  });
}

function answerMetrics(id: number, registry: Registry | undefined): void {
  if (registry === undefined) {
    void sendToPrimary({ type: "meshinject:metrics-answer", id, error: "not started" });
    return;
  }
  registry.getMetricsAsJSON().then(
    (metrics) => sendToPrimary({ type: "meshinject:metrics-answer", id, metrics }),
    (e: unknown) => sendToPrimary({ type: "meshinject:metrics-answer", id, error: (e as Error).message }),
  );
}
