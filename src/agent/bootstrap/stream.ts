/**
 * `meshinject proxy-config`'s work on a YAML stream: every workload of every document (List items
 * too) whose pod has an istio-proxy container gets its pilot-agent start (pod.ts), printed by
 * format.ts. Errors name the input, the document and the object, on one line; a stream without an
 * injected pod is an error that points to kube-inject.
 */
import { isRecord, PROXY_CONTAINER } from "../../inject/pod.js";
import { splitYamlStream, YamlStreamError } from "../../kube/stream.js";
import { describeObject, InvalidWorkloadError, workloadOf } from "../../kube/workloads.js";
import { readYaml, YamlError } from "../../kube/yaml.js";
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

const text = (v: unknown): string => (typeof v === "string" ? v : "");

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, " ").trim();
}

/** The pilot-agent start of every injected pod in `input`. Throws BootstrapError naming the document. */
export function proxyStarts(input: string, options: StreamOptions): PodStart[] {
  let docs: string[];
  try {
    docs = splitYamlStream(input);
  } catch (e) {
    if (e instanceof YamlStreamError) throw new BootstrapError(`${options.source}: ${e.message}`, { cause: e });
    throw e;
  }
  const starts: PodStart[] = [];
  let workloads = 0;
  const visit = (obj: unknown, where: string, inList: boolean): void => {
    if (!isRecord(obj)) return;
    const here = `${where} (${describeObject(obj)})`;
    if (obj.kind === "List") {
      if (inList) return;
      const items = Array.isArray(obj.items) ? obj.items : [];
      for (const [j, item] of items.entries()) visit(item, `${here} item ${j + 1}`, true);
      return;
    }
    try {
      const ref = workloadOf(obj);
      if (ref === undefined) return;
      workloads++;
      const bootstrap = podBootstrap(obj, ref.pod, options);
      if (bootstrap === undefined) return;
      const name = text(isRecord(obj.metadata) ? obj.metadata.name : undefined) || "(no name)";
      starts.push({ header: `${text(obj.kind)} ${bootstrap.identity.namespace}/${name}`, bootstrap });
    } catch (e) {
      if (e instanceof BootstrapError || e instanceof InvalidWorkloadError) {
        throw new BootstrapError(`${here}: ${oneLine(e.message)}`, { cause: e });
      }
      throw e;
    }
  };
  for (const [i, raw] of docs.entries()) {
    const where = `${options.source}: document ${i + 1}`;
    let obj: unknown;
    try {
      obj = readYaml(raw);
    } catch (e) {
      if (e instanceof YamlError) throw new BootstrapError(`${where}: ${oneLine(e.message)}`, { cause: e });
      throw e;
    }
    visit(obj, where, false);
  }
  if (starts.length === 0) {
    throw new BootstrapError(
      workloads === 0
        ? `${options.source}: no workloads (Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, Job, CronJob...) in the input`
        : `${options.source}: no injected pods: none of the ${workloads} workload(s) has an ${PROXY_CONTAINER} container; inject them first (meshinject kube-inject -f FILE)`,
    );
  }
  return starts;
}

/** The command's output for `input`: one `# Kind namespace/name` section per injected pod, `---` between them. */
export function proxyConfigReport(input: string, options: StreamOptions): string {
  return proxyStarts(input, options)
    .map((s) => formatBootstrap(s.header, s.bootstrap))
    .join("---\n");
}
