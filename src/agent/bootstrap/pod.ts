/**
 * What `meshinject proxy-config` reports of one pod's pilot-agent: the pod read as the kubelet
 * hands it to the agent (../pod-agent.ts), planned by the agent's own model (../plan.ts planAgent),
 * and summed up — the proxy config with the inputs that shaped it, the identity and the DNS domain
 * (identity.ts), and what pilot-agent would log or cannot know offline in `notes`.
 */

import type { Json } from "../../inject/pod.js";
import type { PodParts } from "../../kube/workloads.js";
import { type MeshConfig, PROXY_CONFIG_ANNOTATION, type ProxyConfig } from "../../mesh/index.js";
import { AgentConfigError, type AgentPlan, planAgent } from "../plan.js";
import { podAgent } from "../pod-agent.js";
import { type ConcurrencySource, DISCOVERY_ADDRESS_ANNOTATION, STATUS_PORT_ANNOTATION } from "./construct.js";
import { BootstrapError } from "./errors.js";
import { type ProxyIdentity, proxyIdentity } from "./identity.js";

export interface BootstrapOptions {
  /** The mesh config text (the `mesh` key of the istio ConfigMap), as the container would see the file. */
  meshConfigText: string;
  /** The same, applied over Istio's defaults: where the trust domain comes from. */
  mesh: MeshConfig;
  /** The namespace of objects that name none. */
  namespace: string;
}

export interface PodBootstrap {
  /** The proxy type pilot-agent runs (`sidecar`, `router`, `waypoint`). */
  proxyType: string;
  identity: ProxyIdentity;
  /** The DNS domain (`--domain`, `$(POD_NAMESPACE)` expanded). */
  domain: string;
  discoveryAddress: string;
  statusPort: number;
  /** Envoy's worker threads; undefined when unset (Envoy then runs one per CPU of the node). */
  concurrency: number | undefined;
  concurrencySource: ConcurrencySource;
  /** The inputs that shaped the proxy config, lowest precedence first. */
  sources: string[];
  /** The effective proxy config, protobuf-JSON form. */
  proxyConfig: ProxyConfig;
  /** What could not be known offline, and what pilot-agent would log. */
  notes: string[];
}

/**
 * The start of pilot-agent in the pod of `obj` (a workload; `pod` its pod parts), or undefined when
 * the pod has no istio-proxy container. Throws BootstrapError when pilot-agent would not start, and
 * ContainerFieldError or QuantityError for a container field Kubernetes would refuse.
 */
export function podBootstrap(obj: Json, pod: PodParts, options: BootstrapOptions): PodBootstrap | undefined {
  const agent = podAgent(obj, pod, { namespace: options.namespace, meshConfigText: options.meshConfigText });
  if (agent === undefined) return undefined;
  let plan: AgentPlan;
  try {
    plan = planAgent(agent.inputs);
  } catch (e) {
    if (e instanceof AgentConfigError) throw new BootstrapError(e.message, { cause: e });
    throw e;
  }
  const pc = plan.proxyConfig;
  const notes = [...agent.notes, ...plan.warnings];

  const sources = ["Istio defaults"];
  if (agent.meshFile !== undefined) {
    sources.push(`mesh config file ${agent.meshFile.path} (volume ${agent.meshFile.volume}; the given mesh config)`);
  }
  if (agent.inputs.env.PROXY_CONFIG) sources.push("env PROXY_CONFIG");
  const seen = agent.annotationsFile === undefined ? undefined : agent.facts.annotations;
  if (seen?.[PROXY_CONFIG_ANNOTATION]) sources.push(`annotation ${PROXY_CONFIG_ANNOTATION}`);
  if (plan.concurrencySource === "cpu limit") sources.push(`env ISTIO_CPU_LIMIT=${plan.cpuLimit} (concurrency)`);
  if (plan.concurrencySource === "--concurrency flag") {
    sources.push(`--concurrency ${agent.inputs.args.concurrency}`);
  }
  if (plan.concurrencySource === "unset") {
    const cpuUnknown = agent.env.unknown.get("ISTIO_CPU_LIMIT");
    notes.push(
      cpuUnknown === undefined
        ? "concurrency is unset: Envoy runs one worker thread per CPU of the node"
        : `concurrency is unset and env ISTIO_CPU_LIMIT comes from ${cpuUnknown}: pilot-agent sets concurrency to that number`,
    );
  }
  if (seen !== undefined && Object.hasOwn(seen, DISCOVERY_ADDRESS_ANNOTATION)) {
    sources.push(`annotation ${DISCOVERY_ADDRESS_ANNOTATION}`);
  }
  if (seen !== undefined && Object.hasOwn(seen, STATUS_PORT_ANNOTATION)) {
    sources.push(`annotation ${STATUS_PORT_ANNOTATION}`);
  }
  if (typeof pc.statsdUdpAddress === "string" && pc.statsdUdpAddress !== "") {
    notes.push("statsdUdpAddress is resolved through DNS when pilot-agent starts (cleared if it does not resolve)");
  }

  const trustDomain = typeof options.mesh.trustDomain === "string" ? options.mesh.trustDomain : "cluster.local";
  return {
    proxyType: plan.proxyType,
    identity: proxyIdentity(trustDomain, agent.namespace, agent.facts.serviceAccount),
    domain: plan.domain,
    discoveryAddress: typeof pc.discoveryAddress === "string" ? pc.discoveryAddress : "",
    statusPort: typeof pc.statusPort === "number" ? pc.statusPort : 0,
    concurrency: typeof pc.concurrency === "number" ? pc.concurrency : undefined,
    concurrencySource: plan.concurrencySource,
    sources,
    proxyConfig: pc,
    notes,
  };
}
