/**
 * `meshinject proxy-config`'s work on a YAML stream (../injected-pods.ts walks it): every workload
 * whose pod has an istio-proxy container gets its pilot-agent start (pod.ts), printed by format.ts;
 * the others (e.g. a hostNetwork pod kube-inject skips) are listed as not injected. Errors name
 * the input, the document and the object, on one line; a stream without an injected pod is an
 * error that points to kube-inject.
 */

import { QuantityError } from "../../go/quantity.js";
import { PROXY_CONTAINER } from "../../inject/pod.js";
import {
  forEachWorkload,
  nothingInjectedMessage,
  notInjectedNote,
  workloadHeader,
} from "../../report/injected-pods.js";
import { ContainerFieldError } from "../pod-containers.js";
import { BootstrapError } from "./errors.js";
import { formatBootstrap, formatNotInjected } from "./format.js";
import { type BootstrapOptions, type PodBootstrap, podBootstrap } from "./pod.js";

export interface StreamOptions extends BootstrapOptions {
  /** The input's name for messages (`stdin`, a path). */
  source: string;
}

export interface PodStart {
  /** `Kind namespace/name`. */
  header: string;
  /** Undefined when the pod has no istio-proxy container (not injected). */
  bootstrap: PodBootstrap | undefined;
}

/** Errors about a document's content: reported with the document. */
function isDocumentError(e: unknown): boolean {
  return e instanceof BootstrapError || e instanceof ContainerFieldError || e instanceof QuantityError;
}

/**
 * The pilot-agent start of every workload's pod in `input` (undefined for a pod not injected).
 * Throws BootstrapError naming the document, and when no pod is injected.
 */
export function proxyStarts(input: string, options: StreamOptions): PodStart[] {
  const starts: PodStart[] = [];
  const workloads = forEachWorkload(
    input,
    { source: options.source, error: BootstrapError, isDocumentError },
    ({ obj, pod }) => {
      starts.push({ header: workloadHeader(obj, pod, options.namespace), bootstrap: podBootstrap(obj, pod, options) });
    },
  );
  if (!starts.some((s) => s.bootstrap !== undefined)) {
    throw new BootstrapError(nothingInjectedMessage(options.source, workloads, [PROXY_CONTAINER]));
  }
  return starts;
}

/**
 * The command's output for `input`: one `# Kind namespace/name` section per workload, `---` between
 * them; a pod not injected gets a section of comments only, so that the output stays valid YAML.
 */
export function proxyConfigReport(input: string, options: StreamOptions): string {
  return proxyStarts(input, options)
    .map((s) =>
      s.bootstrap === undefined
        ? formatNotInjected(s.header, notInjectedNote([PROXY_CONTAINER]))
        : formatBootstrap(s.header, s.bootstrap),
    )
    .join("---\n");
}
