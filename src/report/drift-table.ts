/**
 * `meshinject drift`'s table: one row per owner and outcome (the pods of a Deployment that all
 * changed the same way are one row), the totals, and the restart commands; with `--diff`, each
 * different diff once, after the table. Pure.
 */

import type { DriftStatus } from "./drift.js";
import type { DriftReport, OwnerDrift } from "./drift-report.js";

const WORDS: Record<DriftStatus, string> = {
  "up-to-date": "up to date",
  stale: "stale",
  missing: "missing",
  unexpected: "unexpected",
  "unknown-revision": "unknown revision",
  "not-injected": "not injected",
  error: "error",
};

interface Row {
  owner: string;
  pods: number;
  revision: string;
  status: string;
  what: string;
}

/** The owner's rows: its pods grouped by status, revisions and what changes (or why). */
function ownerRows(owner: OwnerDrift): Row[] {
  const groups = new Map<string, Row>();
  for (const pod of owner.pods) {
    const revision =
      pod.targetRevision !== undefined && pod.targetRevision !== pod.revision
        ? `${pod.revision ?? "-"} → ${pod.targetRevision}`
        : (pod.revision ?? "-");
    const what = pod.status === "stale" ? pod.changes.join("; ") : pod.status === "up-to-date" ? "" : pod.reason;
    const key = `${pod.status}\u0000${revision}\u0000${what}`;
    const row = groups.get(key);
    if (row !== undefined) row.pods++;
    else
      groups.set(key, {
        owner: `${owner.kind} ${owner.namespace}/${owner.name}`,
        pods: 1,
        revision,
        status: WORDS[pod.status],
        what,
      });
  }
  return [...groups.values()];
}

function totalsLine(report: DriftReport): string {
  const t = report.totals;
  const parts = (["up-to-date", "stale", "missing", "unexpected", "unknown-revision"] as const).map(
    (s) => `${t[s]} ${WORDS[s]}`,
  );
  if (t.error > 0) parts.push(`${t.error} error${t.error === 1 ? "" : "s"}`);
  return `${t.pods} pod${t.pods === 1 ? "" : "s"}: ${parts.join(", ")}; ${t["not-injected"]} without a sidecar and not injected now`;
}

/** The report as text. */
export function driftTable(report: DriftReport, showDiff: boolean): string {
  const lines = report.notes.map((n) => `# ${n}`);
  if (lines.length > 0) lines.push("");
  const rows = report.owners.flatMap(ownerRows);
  if (rows.length === 0) {
    lines.push("no injected pods, and none that should be");
  } else {
    const head: Row = { owner: "OWNER", pods: 0, revision: "REVISION", status: "STATUS", what: "WHAT CHANGES / WHY" };
    const w = {
      owner: Math.max(...[head, ...rows].map((r) => r.owner.length)),
      pods: Math.max(4, ...rows.map((r) => String(r.pods).length)),
      revision: Math.max(...[head, ...rows].map((r) => r.revision.length)),
      status: Math.max(...[head, ...rows].map((r) => r.status.length)),
    };
    const line = (r: Row, pods: string) =>
      `${r.owner.padEnd(w.owner)}  ${pods.padStart(w.pods)}  ${r.revision.padEnd(w.revision)}  ${r.status.padEnd(w.status)}  ${r.what}`.trimEnd();
    lines.push(line(head, "PODS"));
    for (const r of rows) lines.push(line(r, String(r.pods)));
  }
  lines.push("", totalsLine(report));
  const notes = report.owners.filter((o) => o.restartNote !== undefined);
  if (report.restart.length > 0 || notes.length > 0) {
    lines.push("", "To replace the stale, missing and unexpected sidecars (not run):");
    for (const command of report.restart) lines.push(`  ${command}`);
    for (const o of notes) lines.push(`  # ${o.kind} ${o.namespace}/${o.name}: ${o.restartNote}`);
  }
  let text = `${lines.join("\n")}\n`;
  if (showDiff) {
    const seen = new Set<string>();
    for (const owner of report.owners) {
      for (const pod of owner.pods) {
        if (pod.diff === undefined || seen.has(pod.diff)) continue;
        seen.add(pod.diff);
        text += `\n${pod.diff}`;
      }
    }
  }
  return text;
}
