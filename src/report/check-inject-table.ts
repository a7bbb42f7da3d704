/**
 * The table `istioctl x check-inject` prints (istioctl/pkg/checkinject with its table writer):
 * columns WEBHOOK (the configuration's name), REVISION, INJECTED (✔ or ✘) and REASON, each column
 * but the last padded to its widest cell plus two spaces; then, when more than one configuration
 * injects, istioctl's error line. Without colours (istioctl colours the marks). Pure.
 */
import type { CheckInjectResult } from "../webhook/webhook-match.js";

/** What istioctl prints when no configuration has an Istio webhook. */
export const NO_ISTIO_HOOKS = "ERROR: no Istio injection hooks present.";
/** What istioctl prints under the table when more than one configuration injects. */
export const MULTIPLE_INJECT = "ERROR: multiple webhooks will inject, which can lead to errors";

const width = (s: string) => [...s].length;

/** The table's lines (no trailing newline on each). */
export function checkInjectTable(results: readonly CheckInjectResult[]): string[] {
  if (results.length === 0) return [NO_ISTIO_HOOKS];
  const rows = [
    ["WEBHOOK", "REVISION", "INJECTED", "REASON"],
    ...results.map((r) => [r.name, r.revision, r.injected ? "✔" : "✘", r.reason]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => width(row[i] as string))));
  const lines = rows.map((row) =>
    row.map((cell, i) => (i < 3 ? cell + " ".repeat((widths[i] as number) - width(cell) + 2) : cell)).join(""),
  );
  if (results.filter((r) => r.injected).length > 1) lines.push(MULTIPLE_INJECT);
  return lines;
}
