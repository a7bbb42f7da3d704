/**
 * The webhook's settings that the command line needs before anything is started: Istio's ports and
 * the log levels. Apart from the server and the logger, so that registering `serve`'s options does
 * not load them (nor pino and prom-client) for every other command.
 */

/** Istio's ports: the injection webhook on istiod's 15017, its metrics on 15014. */
export const DEFAULT_PORT = 15017;
export const DEFAULT_METRICS_PORT = 15014;

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * Set by `serve --workers N`'s primary on the worker processes it starts (to the worker's place):
 * such a process runs as a worker (src/webhook/cluster-worker.ts), not as a server of its own.
 */
export const WORKER_ENV = "MESHINJECT_SERVE_WORKER";
