/**
 * pilot-agent's log lines (istio.io/istio/pkg/log): `<time>\t<level>\t[<scope>\t]<message>` with
 * the time in UTC to the microsecond, the scope left out for `default`; or, with `--log_as_json`,
 * one JSON object per line (`time`, `level`, `scope`, `msg`). Levels per scope come from
 * `--log_output_level` (`default:info,envoy:debug`). Written by hand because pino writes JSON only
 * and Istio's text layout is what operators grep for.
 */

export type Level = "debug" | "info" | "warn" | "error" | "fatal" | "none";
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3, fatal: 4, none: 5 };

/** An unknown level in `--log_output_level`. */
export class LogLevelError extends Error {
  override name = "LogLevelError";
}

/** `--log_output_level`: `level` for the default scope or `scope:level` items, comma-separated. */
export function parseOutputLevels(spec: string): Map<string, Level> {
  const levels = new Map<string, Level>();
  for (const item of spec.split(",")) {
    if (item.trim() === "") continue;
    const colon = item.lastIndexOf(":");
    const scope = colon < 0 ? "default" : item.slice(0, colon).trim();
    const level = (colon < 0 ? item : item.slice(colon + 1)).trim();
    if (!Object.hasOwn(ORDER, level)) {
      throw new LogLevelError(
        `--log_output_level ${JSON.stringify(spec)}: invalid output level ${JSON.stringify(level)}`,
      );
    }
    levels.set(scope, level as Level);
  }
  return levels;
}

/** Istio's timestamp: `2006-01-02T15:04:05.000000Z`. */
export function logTime(d: Date): string {
  return `${d.toISOString().slice(0, 23)}000Z`;
}

export interface LoggerOptions {
  levels?: Map<string, Level>;
  json?: boolean;
  /** Where lines go (stderr by default). */
  write?: (line: string) => void;
  now?: () => Date;
}

/** The one logging shape the agent's parts are given: a scope's four levels. */
export interface AgentLog {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** A log that drops everything (servers started without one: tests, benches). */
export const SILENT_LOG: AgentLog = { debug() {}, info() {}, warn() {}, error() {} };

export class Logger implements AgentLog {
  private readonly levels: Map<string, Level>;
  private readonly write: (line: string) => void;
  private readonly now: () => Date;

  constructor(
    private readonly options: LoggerOptions = {},
    readonly scope = "default",
  ) {
    this.levels = options.levels ?? new Map([["default", "info"]]);
    this.write = options.write ?? ((line) => process.stderr.write(line));
    this.now = options.now ?? (() => new Date());
  }

  /** A logger for another scope, sharing the output and levels. */
  withScope(scope: string): Logger {
    return new Logger(this.options, scope);
  }

  enabled(level: Level): boolean {
    const threshold = this.levels.get(this.scope) ?? this.levels.get("default") ?? "info";
    return ORDER[level] >= ORDER[threshold] && level !== "none";
  }

  private log(level: Level, msg: string): void {
    if (!this.enabled(level)) return;
    const time = logTime(this.now());
    // One line per message: embedded newlines would split a record.
    const text = msg.replace(/\r?\n/g, " ");
    if (this.options.json) {
      this.write(`${JSON.stringify({ level, time, scope: this.scope, msg: text })}\n`);
    } else {
      const scope = this.scope === "default" ? "" : `${this.scope}\t`;
      this.write(`${time}\t${level}\t${scope}${text}\n`);
    }
  }

  debug(msg: string): void {
    this.log("debug", msg);
  }
  info(msg: string): void {
    this.log("info", msg);
  }
  warn(msg: string): void {
    this.log("warn", msg);
  }
  error(msg: string): void {
    this.log("error", msg);
  }
}
