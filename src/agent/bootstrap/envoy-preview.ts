/**
 * The Envoy bootstrap each injected pod's agent would write, offline and without I/O (for the
 * playground): the pod read as the kubelet hands it to the agent (../pod-agent.ts), then the
 * running agent's own plan (planAgent), node (planNode) and rendering (bootstrapText), as
 * `meshinject agent bootstrap` does them, with the built-in bootstrap template. What only the
 * running pod knows (its IP, a generated name) is taken as given.
 */

import { PROXY_CONTAINER } from "../../inject/pod.js";
import { oneLine } from "../../kube/one-line.js";
import { forEachWorkload, notInjectedNote, workloadHeader } from "../../report/injected-pods.js";
import { type AgentPlan, bootstrapConfig, planAgent, planNode } from "../plan.js";
import { type PodAgent, podAgent } from "../pod-agent.js";
import { BUILT_IN_TEMPLATE, DEFAULT_TEMPLATE_PATH } from "./default-template.js";
import { BootstrapError } from "./errors.js";
import { formatNotInjected } from "./format.js";
import type { Node } from "./node-metadata.js";
import { bootstrapText } from "./render.js";

export interface EnvoyPreviewOptions {
  /** The input's name for messages. */
  source: string;
  /** The namespace of objects that name none. */
  namespace: string;
  /** The pod's IP as the kubelet would give it (status.podIP). */
  podIP: string;
  /** The mesh config file's text, for a pod that mounts it (a gateway's istio ConfigMap). */
  meshConfigText?: string;
}

/** The name the pod's controller starts from (the pod's own, else the workload's). */
function workloadName(obj: Record<string, unknown>, pod: { metadata: Record<string, unknown> }): string {
  const own = pod.metadata.name;
  if (typeof own === "string" && own !== "") return own;
  const meta = obj.metadata as Record<string, unknown> | undefined;
  return typeof meta?.name === "string" && meta.name !== "" ? meta.name : "pod";
}

/** One `# Kind namespace/name` section per workload: its bootstrap JSON, or a not-injected note. */
export function envoyBootstrapPreview(input: string, options: EnvoyPreviewOptions): string {
  const sections: string[] = [];
  forEachWorkload(
    input,
    { source: options.source, error: BootstrapError, isDocumentError: (e) => e instanceof BootstrapError },
    ({ obj, pod }) => {
      const header = workloadHeader(obj, pod, options.namespace);
      // What only the running pod has: its IP (the node's taken as the same here), and the name a
      // controller generates for it (the workload's name with a suffix).
      const podName = `${workloadName(obj, pod)}-7d4c9b-x2x7z`;
      let agent: PodAgent | undefined;
      let plan: AgentPlan;
      let node: Node;
      let text: string;
      try {
        agent = podAgent(obj, pod, {
          namespace: options.namespace,
          meshConfigText: options.meshConfigText,
          running: { podIP: options.podIP, podName },
        });
        if (agent === undefined) {
          sections.push(formatNotInjected(header, notInjectedNote([PROXY_CONTAINER])));
          return;
        }
        plan = planAgent(agent.inputs);
        node = planNode(plan);
        text = bootstrapText(bootstrapConfig(plan, node), BUILT_IN_TEMPLATE);
      } catch (e) {
        // What `meshinject agent` would say before exiting, e.g. a PROXY_CONFIG that does not parse.
        if (!(e instanceof Error)) throw e;
        sections.push(`# ${header}\n# the agent would not start: ${oneLine(e.message)}\n`);
        return;
      }
      const notes = [
        `the bootstrap the agent writes to ${plan.proxyConfig.configPath ?? "./etc/istio/proxy"}/envoy-rev.json, with the built-in template`,
        `pod IP taken as ${options.podIP}${agent.facts.podName === podName ? `, a generated pod name as ${podName}` : ""}`,
        ...(plan.templatePath !== DEFAULT_TEMPLATE_PATH
          ? [`the pod asks for the template ${plan.templatePath}, which only the pod has: the built-in one is shown`]
          : []),
        // What cannot be known offline, and what the agent would log.
        ...agent.notes,
        ...plan.warnings,
        ...node.warnings,
      ];
      sections.push(
        `# ${header}\n${notes.map((n) => `# ${oneLine(n)}\n`).join("")}${text.endsWith("\n") ? text : `${text}\n`}`,
      );
    },
  );
  return sections.join("---\n");
}
