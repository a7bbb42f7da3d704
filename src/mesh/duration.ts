/**
 * google.protobuf.Duration in protobuf-JSON form. Istio's jsonpb reads durations with Go's
 * time.ParseDuration (so `1m`, `500ms` and `1h30m` are accepted) and writes them as seconds with 0, 3,
 * 6 or 9 fraction digits (`45s`, `0.500s`, `0.000010s`). Values are handled as nanoseconds (bigint).
 */
import { parseDuration } from "../go/time/duration.js";

/** protobuf-JSON text of a duration (without quotes): `45s`, `1.500s`, `-0.000001s`. */
export function formatProtoDuration(nanos: bigint): string {
  const sign = nanos < 0n ? "-" : "";
  const abs = nanos < 0n ? -nanos : nanos;
  const secs = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, "0");
  // Trim "000" twice, then a bare ".000": 0, 3, 6 or 9 fraction digits remain.
  let text = `${sign}${secs}.${frac}`;
  for (let i = 0; i < 2 && text.endsWith("000"); i++) text = text.slice(0, -3);
  if (text.endsWith(".000")) text = text.slice(0, -4);
  return `${text}s`;
}

/** Reads a protobuf-JSON duration (as jsonpb does, via time.ParseDuration) into nanoseconds. */
export function parseProtoDuration(text: string): bigint {
  return parseDuration(text);
}

/** Seconds and nanos of a durationpb.Duration with the given nanoseconds. */
export function durationParts(nanos: bigint): { seconds: bigint; nanos: number } {
  const seconds = nanos / 1_000_000_000n; // truncates toward zero, as protobuf requires
  return { seconds, nanos: Number(nanos - seconds * 1_000_000_000n) };
}
