/**
 * The workloads of an injected manifest (a YAML stream), as the commands that report on injected
 * pods read it (`capture-rules`, `proxy-config`): every document, List items one by one (a List
 * inside a List is not read; kube-inject skips it too), each workload handed over with where it
 * is (`SOURCE: document N (Kind "name")`, `... item M (Kind "name")`) for messages; the
 * `# Kind namespace/name` headers of their sections and the note on a workload that is not
 * injected; and the error for a manifest without an injected pod. Errors name the input, the document and the object, on one line.
 */

import { isRecord } from "../go/json.js";
import type { Json } from "../inject/pod.js";
import { oneLine } from "../kube/one-line.js";
import { readStream } from "../kube/read-stream.js";
import { describeObject, InvalidWorkloadError, type PodParts, podNamespace, workloadOf } from "../kube/workloads.js";

/** A workload of the stream. */
export interface StreamWorkload {
  obj: Json;
  pod: PodParts;
  /** Where it is, for messages: `SOURCE: document N (Kind "name")`, with ` item M (...)` in a List. */
  where: string;
}

export interface WorkloadStreamOptions {
  /** The input's name for messages (`stdin`, a path). */
  source: string;
  /** The error type the caller reports: thrown for an unreadable stream or document, and for document errors. */
  error: new (
    message: string,
    options?: ErrorOptions,
  ) => Error;
  /** Whether an error thrown by `visit` is about the document's content: it is then reported with `where`. */
  isDocumentError: (e: unknown) => boolean;
  /**
   * Takes a document's error (an invalid workload, a document error of `visit`) instead of its being
   * thrown, so that the other workloads are still visited; `message` names no document.
   */
  onDocumentError?: (failed: { obj: Json; where: string; message: string }) => void;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * Calls `visit` for every workload of `input`, in order, and returns how many there were. Throws
 * `options.error` naming the input and document for YAML it cannot read, an invalid workload, and
 * the document errors of `visit`.
 */
export function forEachWorkload(
  input: string,
  options: WorkloadStreamOptions,
  visit: (workload: StreamWorkload) => void,
): number {
  const { source, error: Failure } = options;
  let workloads = 0;
  const walk = (obj: unknown, prefix: string, inList: boolean): void => {
    if (!isRecord(obj)) return;
    const where = `${prefix} (${describeObject(obj)})`;
    if (obj.kind === "List") {
      if (inList) return;
      const items = Array.isArray(obj.items) ? obj.items : [];
      for (const [j, item] of items.entries()) walk(item, `${where} item ${j + 1}`, true);
      return;
    }
    try {
      const ref = workloadOf(obj);
      if (ref === undefined) return;
      workloads++;
      visit({ obj, pod: ref.pod, where });
    } catch (e) {
      if (e instanceof InvalidWorkloadError || options.isDocumentError(e)) {
        if (options.onDocumentError !== undefined) {
          if (e instanceof InvalidWorkloadError) workloads++;
          options.onDocumentError({ obj, where, message: oneLine((e as Error).message) });
          return;
        }
        throw new Failure(`${where}: ${oneLine((e as Error).message)}`, { cause: e });
      }
      throw e;
    }
  };
  for (const { obj, where } of readStream(input, source, (message, cause) => new Failure(message, { cause }))) {
    walk(obj, where, false);
  }
  return workloads;
}

/**
 * A workload's section header, the same in every command: `Kind namespace/name`, the namespace
 * being the pod's (the object's own, else its pod template's; podNamespace), else `namespace`, the
 * one the manifest is applied to (the commands' `-n/--namespace`).
 */
export function workloadHeader(obj: Json, pod: PodParts, namespace: string): string {
  const name = text(isRecord(obj.metadata) ? obj.metadata.name : undefined) || "(no name)";
  const ns = podNamespace(obj, pod.metadata, namespace);
  return `${text(obj.kind)} ${ns ? `${ns}/${name}` : name}`;
}

/** `a`, `a or b`, `a, b or c`. */
function orList(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names.join("");
}

/**
 * The note on a workload whose pod has none of `containers` (what the command reports on), listed
 * in its section rather than left out: `not injected: no istio-proxy container`.
 */
export function notInjectedNote(containers: readonly string[]): string {
  return `not injected: no ${orList(containers)} container`;
}

/**
 * Why a manifest with `workloads` workloads has nothing to report: no workloads at all, or none
 * with one of `containers` (then kube-inject is the way to inject them).
 */
export function nothingInjectedMessage(source: string, workloads: number, containers: readonly string[]): string {
  if (workloads === 0) {
    return `${source}: no workloads (Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, Job, CronJob...) in the input`;
  }
  return `${source}: no injected pods: none of the ${workloads} workload(s) has an ${orList(containers)} container; inject them first (meshinject kube-inject -f FILE)`;
}
