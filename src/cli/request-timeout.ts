/** `--request-timeout <seconds>` of the commands that read a cluster (kube-inject, uninject, check-inject). */
import { CliError } from "./cli-error.js";

/** The flag's value in milliseconds, undefined when not given; anything but a number above 0 is refused. */
export function requestTimeoutMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new CliError(`--request-timeout must be a number of seconds above 0, got ${JSON.stringify(value)}`);
  }
  return seconds * 1000;
}
