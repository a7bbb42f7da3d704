/**
 * Timing helpers shared by the benchmarks: a warm-up by run count (so V8 has optimised the code and
 * we report the steady state), a single timed call (the cold cost), a run count sized to a time budget, the mean time of N runs, and
 * number formatting for the tables.
 */

/** How long a timed measurement aims to take, in nanoseconds. */
export const TARGET_NS = 500_000_000;

/** Runs for a measurement of about {@link TARGET_NS}, given one run's estimated time. */
export function chooseRuns(singleNs: number, target = TARGET_NS): number {
  const n = Math.round(target / Math.max(singleNs, 1));
  return Math.min(200_000, Math.max(20, n));
}

/** The mean time of one run, in nanoseconds, over `n` runs. */
export function timeRuns(run: () => unknown, n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) run();
  return Number(process.hrtime.bigint() - start) / n;
}

/** Warm-up runs before any measurement: by count, not time, so a slow machine warms up as much. */
const WARM_UP_RUNS = 2_000;

/**
 * Runs `runs` times so that V8 has optimised the code (a count, not a time: a time-based warm-up is
 * too short on a slow or busy machine and reports a figure several times the steady state): we
 * report the steady state, not the first, interpreted runs.
 */
export function warmUp(run: () => unknown, runs = WARM_UP_RUNS): void {
  for (let i = 0; i < runs; i++) run();
}

/** Nanoseconds with thousands separators (one decimal below 100). */
export function formatNs(ns: number): string {
  return ns >= 100 ? Math.round(ns).toLocaleString("en-US") : ns.toFixed(1);
}

/** Prints rows as a table: the first column left-aligned, the others right-aligned. */
export function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  for (const row of rows) {
    console.log(
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  "),
    );
  }
}

/** The median of `values` (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
