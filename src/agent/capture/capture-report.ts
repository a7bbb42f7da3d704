/**
 * The capture rules of every workload in a YAML stream (Lists included, item by item), as the text
 * `meshinject capture-rules` prints: one section per workload under a `# Kind namespace/name` line
 * (capture-section.ts), and the warnings, each naming the document.
 */

import { INIT_CONTAINER, isRecord, type Json, PROXY_CONTAINER, VALIDATION_CONTAINER } from "../../inject/pod.js";
import { splitYamlStream, YamlStreamError } from "../../kube/stream.js";
import { describeObject, InvalidWorkloadError, workloadOf } from "../../kube/workloads.js";
import { readYaml, YamlError } from "../../kube/yaml.js";
import { captureSectionLines } from "./capture-section.js";
import { CniAnnotationError } from "./cni-sidecar.js";
import { CaptureFlagError } from "./flags.js";
import { PodCaptureError, type PodCaptureOptions, podCapture } from "./pod-capture.js";
import { ContainerFieldError } from "./pod-containers.js";
import { CaptureRangeError } from "./ranges.js";
import { CaptureValidationError } from "./validate.js";

/** An error for the user: one line naming the input, the document and the cause. */
export class CaptureRulesError extends Error {
  override name = "CaptureRulesError";
}

export interface CaptureRulesOptions extends PodCaptureOptions {
  /** The input's name for messages (`stdin`, a path). */
  source: string;
}

export interface CaptureRulesResult {
  /** The rules, per workload, each under a `# Kind namespace/name` line. */
  text: string;
  /** Things the output cannot show or that the pod may not mean, one line each. */
  warnings: string[];
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** `Kind namespace/name` (or `Kind name` without a namespace), for the section headers. */
function headerName(obj: Json): string {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  const namespace = text(meta.namespace);
  const name = text(meta.name) || "(no name)";
  return `${text(obj.kind)} ${namespace ? `${namespace}/${name}` : name}`;
}

/** Errors about a document's content that the user can fix: reported with the document. */
function isDocumentCause(e: unknown): e is Error {
  return (
    e instanceof PodCaptureError ||
    e instanceof ContainerFieldError ||
    e instanceof CaptureFlagError ||
    e instanceof CaptureValidationError ||
    e instanceof CaptureRangeError ||
    e instanceof CniAnnotationError ||
    e instanceof InvalidWorkloadError ||
    e instanceof YamlError
  );
}

/**
 * The capture rules of every workload in a YAML stream. Throws CaptureRulesError naming the input,
 * the document and the cause; also when no workload of the input is injected.
 */
export function captureRules(input: string, options: CaptureRulesOptions): CaptureRulesResult {
  let docs: string[];
  try {
    docs = splitYamlStream(input);
  } catch (e) {
    if (e instanceof YamlStreamError) throw new CaptureRulesError(`${options.source}: ${e.message}`);
    throw e;
  }
  const sections: string[][] = [];
  const warnings: string[] = [];
  let workloads = 0;
  let injected = 0;
  const visit = (obj: unknown, prefix: string, inList: boolean) => {
    if (!isRecord(obj)) return;
    const here = `${prefix} (${describeObject(obj)})`;
    if (obj.kind === "List") {
      // Items are workloads of their own; a List inside a List is not read (kube-inject skips it too).
      if (inList) return;
      const items = Array.isArray(obj.items) ? obj.items : [];
      for (const [j, item] of items.entries()) visit(item, `${here} item ${j + 1}`, true);
      return;
    }
    try {
      const ref = workloadOf(obj);
      if (ref === undefined) return;
      workloads++;
      const capture = podCapture(ref.pod, options, (message) => warnings.push(`${here}: ${message}`));
      if (capture.by !== "none" || capture.proxy) injected++;
      sections.push([`# ${headerName(obj)}`, ...captureSectionLines(capture)]);
    } catch (e) {
      if (isDocumentCause(e)) throw new CaptureRulesError(`${here}: ${e.message}`, { cause: e });
      throw e;
    }
  };
  for (const [i, raw] of docs.entries()) {
    const where = `${options.source}: document ${i + 1}`;
    let obj: unknown;
    try {
      obj = readYaml(raw);
    } catch (e) {
      if (e instanceof YamlError) throw new CaptureRulesError(`${where}: ${e.message}`, { cause: e });
      throw e;
    }
    visit(obj, where, false);
  }
  if (workloads === 0) {
    throw new CaptureRulesError(
      `${options.source}: no workloads (Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, Job, CronJob...) in the input`,
    );
  }
  if (injected === 0) {
    throw new CaptureRulesError(
      `${options.source}: no injected pods: none of the ${workloads} workload(s) has an ${INIT_CONTAINER}, ${VALIDATION_CONTAINER} or ${PROXY_CONTAINER} container; inject them first (meshinject kube-inject -f FILE)`,
    );
  }
  return { text: `${sections.map((lines) => lines.join("\n")).join("\n\n")}\n`, warnings };
}
