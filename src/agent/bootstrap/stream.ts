/**
 * `meshinject proxy-config`'s work on a YAML stream (../injected-pods.ts walks it): every workload
 * whose pod has an istio-proxy container gets its pilot-agent start (pod.ts), printed by format.ts.
 * Errors name the input, the document and the object, on one line; a stream without an injected
 * pod is an error that points to kube-inject.
 */
import { PROXY_CONTAINER } from "../../inject/pod.js";
import { QuantityError } from "../cpu.js";
import { forEachWorkload, nothingInjectedMessage, workloadHeader } from "../injected-pods.js";
import { ContainerFieldError } from "../pod-containers.js";
import { BootstrapError } from "./errors.js";
import { formatBootstrap } from "./format.js";
import { type BootstrapOptions, type PodBootstrap, podBootstrap } from "./pod.js";

export interface StreamOptions extends BootstrapOptions {
  /** The input's name for messages (`stdin`, a path). */
  source: string;
}

export interface PodStart {
  /** `Kind namespace/name`. */
  header: string;
  bootstrap: PodBootstrap;
}

/** Errors about a document's content: reported with the document. */
function isDocumentError(e: unknown): boolean {
  return e instanceof BootstrapError || e instanceof ContainerFieldError || e instanceof QuantityError;
}

/** The pilot-agent start of every injected pod in `input`. Throws BootstrapError naming the document. */
export function proxyStarts(input: string, options: StreamOptions): PodStart[] {
  const starts: PodStart[] = [];
  const workloads = forEachWorkload(
    input,
    { source: options.source, error: BootstrapError, isDocumentError },
    ({ obj, pod }) => {
      const bootstrap = podBootstrap(obj, pod, options);
      if (bootstrap !== undefined) {
        starts.push({ header: workloadHeader(obj, bootstrap.identity.namespace), bootstrap });
      }
    },
  );
  if (starts.length === 0) {
    throw new BootstrapError(nothingInjectedMessage(options.source, workloads, [PROXY_CONTAINER]));
  }
  return starts;
}

/** The command's output for `input`: one `# Kind namespace/name` section per injected pod, `---` between them. */
export function proxyConfigReport(input: string, options: StreamOptions): string {
  return proxyStarts(input, options)
    .map((s) => formatBootstrap(s.header, s.bootstrap))
    .join("---\n");
}
