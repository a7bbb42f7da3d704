/**
 * The Envoy bootstrap each injected pod's agent would write, offline and without I/O (for the
 * playground): the istio-proxy container's command line and env resolved as the kubelet resolves
 * them, the pod's downward-API files from its metadata, then the same plan, node metadata and
 * rendering as `meshinject agent bootstrap`, with the built-in bootstrap template. What only the
 * running pod knows (its IP) is taken as `podIP`.
 */

import { PROXY_CONTAINER } from "../../inject/pod.js";
import { oneLine } from "../../kube/one-line.js";
import { podNamespace } from "../../kube/workloads.js";
import { forEachWorkload, notInjectedNote, workloadHeader } from "../../report/injected-pods.js";
import { expandVars, referencedVars } from "../expand.js";
import { bootstrapConfig, planAgent } from "../plan.js";
import { podFacts, resolveEnv } from "../pod-env.js";
import { AGENT_ISTIO_VERSION } from "../version.js";
import { parseAgentArgs } from "./agent-args.js";
import { DEFAULT_BOOTSTRAP_TEMPLATE, DEFAULT_TEMPLATE_PATH } from "./default-template.js";
import { formatDownwardAPI } from "./downward-api.js";
import { BootstrapError } from "./errors.js";
import { formatNotInjected } from "./format.js";
import { getNodeMetaData } from "./node-metadata.js";
import { POD_ANNOTATIONS_PATH, proxyContainer } from "./pod.js";
import { renderBootstrap } from "./render.js";
import { templateParams } from "./template-params.js";

export interface EnvoyPreviewOptions {
  /** The input's name for messages. */
  source: string;
  /** The namespace of objects that name none. */
  namespace: string;
  /** The pod's IP as the kubelet would give it (status.podIP). */
  podIP: string;
}

/** The name the pod's controller starts from (the pod's own, else the workload's). */
function workloadName(obj: Record<string, unknown>, pod: { metadata: Record<string, unknown> }): string {
  const own = pod.metadata.name;
  if (typeof own === "string" && own !== "") return own;
  const meta = obj.metadata as Record<string, unknown> | undefined;
  return typeof meta?.name === "string" && meta.name !== "" ? meta.name : "pod";
}

function stringList(c: Record<string, unknown>, field: string): string[] {
  const v = c[field];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** One `# Kind namespace/name` section per workload: its bootstrap JSON, or a not-injected note. */
export function envoyBootstrapPreview(input: string, options: EnvoyPreviewOptions): string {
  const sections: string[] = [];
  forEachWorkload(
    input,
    { source: options.source, error: BootstrapError, isDocumentError: (e) => e instanceof BootstrapError },
    ({ obj, pod }) => {
      const header = workloadHeader(obj, pod, options.namespace);
      const container = proxyContainer(pod.spec);
      if (container === undefined) {
        sections.push(formatNotInjected(header, notInjectedNote([PROXY_CONTAINER])));
        return;
      }
      const namespace = podNamespace(obj, pod.metadata, options.namespace);
      const facts = podFacts(obj, pod, namespace);
      const resolved = resolveEnv(container, facts);
      const env: Record<string, string> = Object.fromEntries(resolved.values);
      // Downward-API values only the running pod has: its IP (the node's taken as the same here), and
      // the name a controller generates for it (the workload's name with a suffix).
      const podName = `${workloadName(obj, pod)}-7d4c9b-x2x7z`;
      for (const [name, why] of resolved.unknown) {
        if (/fieldRef status\.(podIP|podIPs|hostIP)\b/.test(why)) env[name] = options.podIP;
        else if (/fieldRef metadata\.name\b/.test(why)) env[name] = podName;
      }
      const lookup = (name: string) => env[name];
      const command = stringList(container, "command").map((a) => expandVars(a, lookup));
      const args = stringList(container, "args").map((a) => expandVars(a, lookup));
      const unresolved = [...command, ...args].flatMap((a) => referencedVars(a));
      let plan: ReturnType<typeof planAgent>;
      let params: ReturnType<typeof templateParams>;
      try {
        plan = planAgent({
          args: parseAgentArgs(command, args),
          env,
          files: {
            annotations: formatDownwardAPI(facts.annotations),
            labels: formatDownwardAPI(facts.labels),
          },
          hostIPs: [options.podIP],
          binaryVersion: AGENT_ISTIO_VERSION,
        });
        params = templateParams(bootstrapConfig(plan, getNodeMetaData(plan.metadataOptions)));
      } catch (e) {
        // What `meshinject agent` would say before exiting, e.g. a PROXY_CONFIG that does not parse.
        if (!(e instanceof Error)) throw e;
        sections.push(`# ${header}\n# the agent would not start: ${oneLine(e.message)}\n`);
        return;
      }
      const custom = plan.templatePath !== DEFAULT_TEMPLATE_PATH;
      const notes = [
        `the bootstrap the agent writes to ${plan.proxyConfig.configPath ?? "./etc/istio/proxy"}/envoy-rev.json, with the built-in template`,
        `pod IP taken as ${options.podIP}, a generated pod name as ${podName}; the pod annotations as mounted at ${POD_ANNOTATIONS_PATH}`,
        ...(custom
          ? [`the pod asks for the template ${plan.templatePath}, which only the pod has: the built-in one is shown`]
          : []),
        ...(unresolved.length > 0
          ? [`unresolved in the arguments: ${[...new Set(unresolved)].map((v) => `$(${v})`).join(", ")}`]
          : []),
      ];
      const text = renderBootstrap(DEFAULT_BOOTSTRAP_TEMPLATE, params, "built-in");
      sections.push(`# ${header}\n${notes.map((n) => `# ${n}\n`).join("")}${text.endsWith("\n") ? text : `${text}\n`}`);
    },
  );
  return sections.join("---\n");
}
