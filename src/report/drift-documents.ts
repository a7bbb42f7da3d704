/**
 * `meshinject drift` over a manifest (a YAML stream of pods or workloads, Lists item by item): each
 * workload's drift (./drift.ts) into a report (./drift-report.ts). Pure.
 */

import type { Json } from "../inject/pod.js";
import { DriftChecker, type DriftOptions } from "./drift.js";
import { type DriftReport, DriftReportBuilder } from "./drift-report.js";
import { forEachWorkload } from "./injected-pods.js";

/** A manifest that cannot be read; one line naming the input and the document. */
export class DriftInputError extends Error {
  override name = "DriftInputError";
}

/** The drift report of every workload of `input` (`source` names it in messages). */
export function driftOfManifest(
  input: string,
  source: string,
  options: DriftOptions,
  notes: string[] = [],
): DriftReport {
  const checker = new DriftChecker(options);
  const builder = new DriftReportBuilder(options.planned === undefined ? "running" : "planned", notes);
  forEachWorkload(input, { source, error: DriftInputError, isDocumentError: () => false }, ({ obj }) =>
    builder.add(checker.check(obj as Json)),
  );
  return builder.report();
}
