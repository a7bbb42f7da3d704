/**
 * The capture rules of every workload in a YAML stream (Lists included, item by item; the walk is
 * ../injected-pods.ts), as the text `meshinject capture-rules` prints: one section per workload
 * under a `# Kind namespace/name` line (capture-section.ts), and the warnings, each naming the
 * document.
 */
import { QuantityError } from "../../go/quantity.js";
import { forEachWorkload, nothingInjectedMessage, workloadHeader } from "../../report/injected-pods.js";
import { ContainerFieldError } from "../pod-containers.js";
import { CAPTURE_CONTAINERS, captureSectionLines } from "./capture-section.js";
import { CniAnnotationError } from "./cni-sidecar.js";
import { CaptureFlagError } from "./flags.js";
import { PodCaptureError, type PodCaptureOptions, podCapture } from "./pod-capture.js";
import { CaptureRangeError } from "./ranges.js";
import { CaptureValidationError } from "./validate.js";

/** An error for the user: one line naming the input, the document and the cause. */
export class CaptureRulesError extends Error {
  override name = "CaptureRulesError";
}

export interface CaptureRulesOptions extends PodCaptureOptions {
  /** The input's name for messages (`stdin`, a path). */
  source: string;
  /** The namespace of objects that name none, for the headers (`-n`; `default` as kubectl applies). */
  namespace: string;
}

export interface CaptureRulesResult {
  /** The rules, per workload, each under a `# Kind namespace/name` line. */
  text: string;
  /** Things the output cannot show or that the pod may not mean, one line each. */
  warnings: string[];
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
    e instanceof QuantityError
  );
}

/**
 * The capture rules of every workload in a YAML stream. Throws CaptureRulesError naming the input,
 * the document and the cause; also when no workload of the input is injected.
 */
export function captureRules(input: string, options: CaptureRulesOptions): CaptureRulesResult {
  const sections: string[][] = [];
  const warnings: string[] = [];
  let injected = 0;
  const workloads = forEachWorkload(
    input,
    { source: options.source, error: CaptureRulesError, isDocumentError: isDocumentCause },
    ({ obj, pod, where }) => {
      const capture = podCapture(obj, pod, options, (message) => warnings.push(`${where}: ${message}`));
      if (capture.by !== "none" || capture.proxy) injected++;
      sections.push([`# ${workloadHeader(obj, pod, options.namespace)}`, ...captureSectionLines(capture)]);
    },
  );
  if (injected === 0) {
    throw new CaptureRulesError(nothingInjectedMessage(options.source, workloads, CAPTURE_CONTAINERS));
  }
  return { text: `${sections.map((lines) => lines.join("\n")).join("\n\n")}\n`, warnings };
}
