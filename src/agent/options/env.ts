/**
 * The agent's environment variables read with one policy, Istio's (pkg/env/var.go): an unset
 * variable takes its default; a set one is parsed as its type — booleans by strconv.ParseBool,
 * integers by strconv.Atoi, floats by strconv.ParseFloat, durations by time.ParseDuration — and a
 * value that does not parse (an empty one included: it is set) is reported as a warning and the
 * default is used. Strings are taken as they are, empty or not. Pure: the warnings go to the
 * caller's sink, which logs them once at start-up.
 */
import { atoi, parseBool, parseFloat64 } from "../../go/strconv.js";
import { durationString, parseDuration } from "../../go/time/duration.js";

export type EnvVars = Readonly<Record<string, string | undefined>>;

export interface EnvReader {
  /** The value when the variable is set (possibly empty), else undefined (StringVar.Lookup). */
  lookup(name: string): string | undefined;
  /** StringVar.Get: the value when set, even empty; else the default. */
  string(name: string, fallback?: string): string;
  bool(name: string, fallback: boolean): boolean;
  int(name: string, fallback: number): number;
  /** An IntVar as Go's 64-bit int, exactly. */
  int64(name: string, fallback: bigint): bigint;
  float(name: string, fallback: number): number;
  /** A DurationVar in nanoseconds. */
  duration(name: string, fallback: bigint): bigint;
  /** A DurationVar in whole milliseconds (Go's d / time.Millisecond). */
  durationMs(name: string, fallbackMs: number): number;
}

/** Istio's warning: `Invalid environment variable value ...`, naming the variable first. */
function invalid(name: string, value: string, expecting: string, fallback: string): string {
  return `env ${name}: invalid environment variable value ${JSON.stringify(value)}, expecting ${expecting}, defaulting to ${fallback}`;
}

/** A reader over `env` whose parse failures are handed to `warn` (one line each). */
export function envReader(env: EnvVars, warn: (line: string) => void = () => {}): EnvReader {
  const lookup = (name: string) => (Object.hasOwn(env, name) ? env[name] : undefined);
  function typed<T>(
    name: string,
    fallback: T,
    parse: (text: string) => T | undefined,
    expecting: string,
    shown: string,
  ) {
    const text = lookup(name);
    if (text === undefined) return fallback;
    const value = parse(text);
    if (value !== undefined) return value;
    warn(invalid(name, text, expecting, shown));
    return fallback;
  }
  const duration = (name: string, fallback: bigint) =>
    typed(
      name,
      fallback,
      (text) => {
        try {
          return parseDuration(text);
        } catch {
          return undefined;
        }
      },
      "a duration",
      durationString(fallback),
    );
  const int64 = (name: string, fallback: bigint) =>
    typed(
      name,
      fallback,
      (text) => {
        const { value, err } = atoi(text);
        return err === undefined ? value : undefined;
      },
      "an integer",
      String(fallback),
    );
  return {
    lookup,
    string: (name, fallback = "") => lookup(name) ?? fallback,
    bool: (name, fallback) => typed(name, fallback, parseBool, "true/false", String(fallback)),
    int: (name, fallback) => Number(int64(name, BigInt(fallback))),
    int64,
    float: (name, fallback) =>
      typed(
        name,
        fallback,
        (text) => {
          const { value, err } = parseFloat64(text);
          return err === undefined ? value : undefined;
        },
        "a floating-point value",
        String(fallback),
      ),
    duration,
    durationMs: (name, fallbackMs) => Number(duration(name, BigInt(fallbackMs) * 1_000_000n) / 1_000_000n),
  };
}
