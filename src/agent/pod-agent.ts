/**
 * What pilot-agent in a pod's istio-proxy container is started with, read from the pod spec as the
 * kubelet would hand it over: its environment (pod-env.ts), its command line `$(VAR)`-expanded over
 * that environment, and the files it reads — the mesh config at `--meshConfig`, the downward-API
 * annotations and labels — where the pod mounts them (bootstrap/mounts.ts). The result is the
 * running agent's own input (plan.ts AgentPlanInputs), so the reports and the playground plan a pod
 * with the model the agent plans itself with. What only a running pod has is left out and said in
 * `notes`, unless the caller takes it as given (`running`).
 */

import { isRecord } from "../go/json.js";
import { type Json, PROXY_CONTAINER } from "../inject/pod.js";
import { type PodParts, podNamespace } from "../kube/workloads.js";
import { PROXY_CONFIG_ANNOTATION } from "../mesh/index.js";
import { parseAgentArgs } from "./bootstrap/agent-args.js";
import { DISCOVERY_ADDRESS_ANNOTATION, STATUS_PORT_ANNOTATION } from "./bootstrap/construct.js";
import { formatDownwardAPI } from "./bootstrap/downward-api.js";
import { type MountedFile, mountedFile } from "./bootstrap/mounts.js";
import { type AgentPlanInputs, POD_ANNOTATIONS_FILE, POD_LABELS_FILE } from "./plan.js";
import { proxyContainer } from "./pod-containers.js";
import { expandedCommandLine, type PodFacts, podFacts, type ResolvedEnv, resolveEnv } from "./pod-env.js";
import { AGENT_ISTIO_VERSION } from "./version.js";

/** What only a running pod has, taken as given. */
export interface RunningPod {
  /** status.podIP, status.podIPs and status.hostIP (the node's taken as the pod's), and the pod's one interface address. */
  podIP: string;
  /** metadata.name, for a pod whose name its controller generates. */
  podName: string;
}

export interface PodAgentOptions {
  /** The namespace of objects that name none. */
  namespace: string;
  /** The mesh config file's text (the `mesh` key of the istio ConfigMap), for a pod that mounts it. */
  meshConfigText?: string;
  running?: RunningPod;
}

export interface PodAgent {
  /** The pod's namespace (podNamespace). */
  namespace: string;
  facts: PodFacts;
  /** istio-proxy's environment as resolved. */
  env: ResolvedEnv;
  /** planAgent's input. */
  inputs: AgentPlanInputs;
  /** Where the mesh config file is mounted; undefined when it is not (or its text was not given). */
  meshFile?: MountedFile;
  /** Where the pod annotations are mounted; undefined when they are not. */
  annotationsFile?: MountedFile;
  /** What is known only in the cluster or at run time, and what pilot-agent then does not see. */
  notes: string[];
}

/**
 * The start of pilot-agent in the pod of `obj` (a workload; `pod` its pod parts), or undefined when
 * the pod has no istio-proxy container. Throws ContainerFieldError or QuantityError for a container
 * field Kubernetes would refuse, BootstrapError for a command line pilot-agent would refuse.
 */
export function podAgent(obj: Json, pod: PodParts, options: PodAgentOptions): PodAgent | undefined {
  const container = proxyContainer(pod.spec);
  if (container === undefined) return undefined;
  const notes: string[] = [];
  const namespace = podNamespace(obj, pod.metadata, options.namespace);
  const known = podFacts(obj, pod, namespace);
  const running = options.running;
  const facts: PodFacts =
    running === undefined
      ? known
      : { ...known, podName: known.podName ?? running.podName, podIP: running.podIP, hostIP: running.podIP };
  const env = resolveEnv(container, facts);

  const line = expandedCommandLine(container, env.values);
  for (const name of line.unresolved) {
    const why = env.unknown.get(name);
    notes.push(
      why === undefined
        ? `the arguments use $(${name}), which the container does not define: it stays as written`
        : `the arguments use $(${name}), known only at run time (${why}): shown unexpanded`,
    );
  }
  const args = parseAgentArgs(line.command, line.args);

  const volumes = Array.isArray(pod.spec.volumes) ? pod.spec.volumes.filter(isRecord) : [];
  let meshFile = mountedFile(container, volumes, args.meshConfig);
  if (meshFile === undefined) {
    notes.push(
      `${PROXY_CONTAINER} mounts no mesh config file at ${args.meshConfig}: pilot-agent starts from the Istio ` +
        "defaults (the injector carries the mesh defaultConfig in PROXY_CONFIG)",
    );
  } else if (options.meshConfigText === undefined) {
    notes.push(`the mesh config file mounted at ${meshFile.path} is not given: read as absent`);
    meshFile = undefined;
  }
  if (env.unknown.has("PROXY_CONFIG")) notes.push(`env PROXY_CONFIG: ${env.unknown.get("PROXY_CONFIG")}; skipped`);
  if (env.envFrom) {
    notes.push(`${PROXY_CONTAINER} has envFrom, which is not read: it may also set PROXY_CONFIG or ISTIO_CPU_LIMIT`);
  }
  const annotationsFile = mountedFile(container, volumes, POD_ANNOTATIONS_FILE);
  if (annotationsFile === undefined) {
    notes.push(
      `the pod annotations are not mounted at ${POD_ANNOTATIONS_FILE}: pilot-agent does not see ${PROXY_CONFIG_ANNOTATION}, ` +
        `${DISCOVERY_ADDRESS_ANNOTATION} or ${STATUS_PORT_ANNOTATION}`,
    );
  }
  const labelsFile = mountedFile(container, volumes, POD_LABELS_FILE);

  return {
    namespace,
    facts,
    env,
    inputs: {
      args,
      env: Object.fromEntries(env.values),
      files: {
        meshConfig: meshFile === undefined ? undefined : options.meshConfigText,
        annotations: annotationsFile === undefined ? undefined : formatDownwardAPI(facts.annotations),
        labels: labelsFile === undefined ? undefined : formatDownwardAPI(facts.labels),
      },
      hostIPs: running === undefined ? [] : [running.podIP],
      interfaceAddresses: running === undefined ? {} : { eth0: [running.podIP] },
      binaryVersion: AGENT_ISTIO_VERSION,
    },
    meshFile,
    annotationsFile,
    notes,
  };
}
