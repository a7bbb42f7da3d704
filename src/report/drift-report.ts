/**
 * The report of `meshinject drift`: pods gathered by owner (Deployment, StatefulSet, DaemonSet,
 * Job, CronJob, bare Pod...), the totals per status, and the `kubectl rollout restart` commands that
 * would bring the stale, missing and unexpected workloads in line (printed, never run); as a table
 * (./drift-table.ts) or as data (`-o json|yaml`, schema in docs/drift.md). Pure.
 */

import { DRIFT_STATUSES, type DriftOwner, type DriftStatus, type PodDrift } from "./drift.js";

/** The pods of one owner. */
export interface OwnerDrift extends DriftOwner {
  pods: Omit<PodDrift, "owner" | "namespace">[];
  /** The command that restarts the owner's pods, when some need it and kubectl can. */
  restart?: string;
  /** What to do instead, when some need it and kubectl cannot restart them (a bare Pod, a Job). */
  restartNote?: string;
}

export type DriftTotals = { pods: number } & Record<DriftStatus, number>;

export interface DriftReport {
  /** `running`: what runs against the injector in force; `planned`: current against planned configuration. */
  mode: "running" | "planned";
  /** What was assumed or where things came from. */
  notes: string[];
  totals: DriftTotals;
  /** Owners in order (namespace, kind, name); owners whose pods are all outside the mesh are counted only. */
  owners: OwnerDrift[];
  /** The restart commands, in owner order. */
  restart: string[];
}

/** Statuses a restart fixes (and that `--exit-code` fails on). */
export const NEEDS_RESTART: ReadonlySet<DriftStatus> = new Set(["stale", "missing", "unexpected"]);

/** The kinds `kubectl rollout restart` restarts. */
const RESTARTABLE: Readonly<Record<string, string>> = {
  Deployment: "deployment",
  StatefulSet: "statefulset",
  DaemonSet: "daemonset",
};

function restartOf(owner: DriftOwner): { restart?: string; restartNote?: string } {
  const resource = RESTARTABLE[owner.kind];
  if (resource !== undefined) {
    return { restart: `kubectl rollout restart ${resource}/${owner.name} -n ${owner.namespace}` };
  }
  switch (owner.kind) {
    case "Pod":
      return { restartNote: "a bare pod: delete it and create it again" };
    case "Job":
      return { restartNote: "a Job: its pods keep their sidecar until the Job is run again" };
    case "CronJob":
      return { restartNote: "a CronJob: its next run's pods get the sidecar injected then" };
    default:
      return { restartNote: `a ${owner.kind}: restart its pods the way it allows` };
  }
}

const ownerKey = (o: DriftOwner) => `${o.namespace}\u0000${o.kind}\u0000${o.name}`;

/** Gathers pods one at a time (the pods themselves are not kept, only their rows) into a report. */
export class DriftReportBuilder {
  private readonly owners = new Map<string, OwnerDrift>();
  private readonly totals: DriftTotals = {
    pods: 0,
    ...(Object.fromEntries(DRIFT_STATUSES.map((s) => [s, 0])) as Record<DriftStatus, number>),
  };

  constructor(
    private readonly mode: DriftReport["mode"],
    private readonly notes: string[] = [],
  ) {}

  add(drift: PodDrift): void {
    this.totals.pods++;
    this.totals[drift.status]++;
    if (drift.status === "not-injected") return;
    const key = ownerKey(drift.owner);
    let owner = this.owners.get(key);
    if (owner === undefined) {
      owner = { ...drift.owner, pods: [] };
      this.owners.set(key, owner);
    }
    const { owner: _o, namespace: _n, ...pod } = drift;
    owner.pods.push(pod);
  }

  /** How many pods so far. */
  get count(): number {
    return this.totals.pods;
  }

  report(): DriftReport {
    const owners = [...this.owners.values()].sort((a, b) =>
      ownerKey(a) < ownerKey(b) ? -1 : ownerKey(a) > ownerKey(b) ? 1 : 0,
    );
    const restart: string[] = [];
    for (const owner of owners) {
      owner.pods.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
      if (owner.pods.some((p) => NEEDS_RESTART.has(p.status))) {
        Object.assign(owner, restartOf(owner));
        if (owner.restart !== undefined) restart.push(owner.restart);
      }
    }
    return { mode: this.mode, notes: this.notes, totals: { ...this.totals }, owners, restart };
  }
}

/** Whether anything needs a restart (what `--exit-code` fails on). */
export function hasDrift(report: DriftReport): boolean {
  return report.totals.stale + report.totals.missing + report.totals.unexpected > 0;
}
