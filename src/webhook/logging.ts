/**
 * Structured JSON logs (pino), one object per line on stdout: `level` as a name ("info"), `time` as
 * an ISO timestamp, `msg`. What the server logs:
 *   debug  one line per HTTP request (method, path, status, duration)
 *   info   one line per admission review (pod, namespace, uid, outcome, reason, duration), config and
 *          certificate reloads, start and stop
 *   warn   rejected requests (415, 400, 413, timeouts), reload errors (the old config or cert stays)
 *   error  internal errors (a bug: the request is still answered)
 */

import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger } from "pino";

import type { LogLevel } from "./defaults.js";

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stdout by default (tests pass a stream to read them). */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? "info",
      base: { component: "sidecar-injector" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // maxWrite: whole lines in writes of at most PIPE_BUF (4096) bytes, which a pipe keeps whole, so the
    // lines of serve --workers' processes sharing stdout never interleave within a line.
    options.destination ?? pino.destination({ dest: 1, sync: false, maxWrite: 4096 }),
  );
}
