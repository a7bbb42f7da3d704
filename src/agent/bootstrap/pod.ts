/**
 * What pilot-agent in one pod's `istio-proxy` container starts with, worked out from the pod spec:
 * its command line (`$(VAR)`-expanded with the container's environment), the files it reads (the
 * mesh config at `--meshConfig`, the pod annotations at `./etc/istio/pod/annotations`) when the pod
 * mounts them, `PROXY_CONFIG` and `ISTIO_CPU_LIMIT` from its environment; then the proxy config
 * (construct.ts), the identity and the DNS domain (identity.ts). What only the cluster knows is left
 * out and said in `notes`.
 */

import { isRecord } from "../../go/json.js";
import { type Container, type Json, PROXY_CONTAINER } from "../../inject/pod.js";
import type { PodParts } from "../../kube/workloads.js";
import { podNamespace } from "../../kube/workloads.js";
import { type MeshConfig, PROXY_CONFIG_ANNOTATION, type ProxyConfig } from "../../mesh/index.js";
import { expandVars, referencedVars } from "../expand.js";
import { envReader } from "../options/env.js";
import { containersOf, stringList } from "../pod-containers.js";
import { podFacts, resolveEnv } from "../pod-env.js";
import { parseAgentArgs } from "./agent-args.js";
import {
  type ConcurrencySource,
  constructProxyConfig,
  DISCOVERY_ADDRESS_ANNOTATION,
  STATUS_PORT_ANNOTATION,
} from "./construct.js";
import { dnsDomain, type ProxyIdentity, proxyIdentity } from "./identity.js";
import { mountedFile } from "./mounts.js";

/** Where pilot-agent reads the pod's annotations (a downwardAPI volume in an injected pod). */
export const POD_ANNOTATIONS_PATH = "./etc/istio/pod/annotations";

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

/** The pod's istio-proxy container (a native sidecar is an init container), or undefined. */
export function proxyContainer(spec: Json): Container | undefined {
  return [...containersOf(spec, "containers"), ...containersOf(spec, "initContainers")].find(
    (c) => c.name === PROXY_CONTAINER,
  );
}

/**
 * The start of pilot-agent in the pod of `obj` (a workload; `pod` its pod parts), or undefined when
 * the pod has no istio-proxy container. Throws BootstrapError when pilot-agent would not start, and
 * ContainerFieldError or QuantityError for a container field Kubernetes would refuse.
 */
export function podBootstrap(obj: Json, pod: PodParts, options: BootstrapOptions): PodBootstrap | undefined {
  const container = proxyContainer(pod.spec);
  if (container === undefined) return undefined;
  const notes: string[] = [];
  const namespace = podNamespace(obj, pod.metadata, options.namespace);
  const facts = podFacts(obj, pod, namespace);
  const { serviceAccount, annotations } = facts;
  const env = resolveEnv(container, facts);

  // The command line, expanded as the kubelet does.
  const lookup = (name: string) => env.values.get(name);
  const command = stringList(container, "command");
  const args = stringList(container, "args");
  const unresolved = new Set<string>();
  for (const arg of [...command, ...args]) {
    for (const name of referencedVars(arg)) if (!env.values.has(name)) unresolved.add(name);
  }
  for (const name of unresolved) {
    const why = env.unknown.get(name);
    notes.push(
      why === undefined
        ? `the arguments use $(${name}), which the container does not define: it stays as written`
        : `the arguments use $(${name}), known only at run time (${why}): shown unexpanded`,
    );
  }
  const agentArgs = parseAgentArgs(
    command.map((a) => expandVars(a, lookup)),
    args.map((a) => expandVars(a, lookup)),
  );

  const volumes = Array.isArray(pod.spec.volumes) ? pod.spec.volumes.filter(isRecord) : [];
  const sources = ["Istio defaults"];
  const meshFile = mountedFile(container, volumes, agentArgs.meshConfig);
  if (meshFile === undefined) {
    notes.push(
      `${PROXY_CONTAINER} mounts no mesh config file at ${agentArgs.meshConfig}: pilot-agent starts from the Istio ` +
        "defaults (the injector carries the mesh defaultConfig in PROXY_CONFIG)",
    );
  } else {
    sources.push(`mesh config file ${meshFile.path} (volume ${meshFile.volume}; the given mesh config)`);
  }

  const proxyConfigEnv = env.values.get("PROXY_CONFIG");
  if (env.unknown.has("PROXY_CONFIG")) {
    notes.push(`env PROXY_CONFIG: ${env.unknown.get("PROXY_CONFIG")}; skipped`);
  } else if (proxyConfigEnv) {
    sources.push("env PROXY_CONFIG");
  }
  if (env.envFrom) {
    notes.push(`${PROXY_CONTAINER} has envFrom, which is not read: it may also set PROXY_CONFIG or ISTIO_CPU_LIMIT`);
  }

  const podinfo = mountedFile(container, volumes, POD_ANNOTATIONS_PATH);
  if (podinfo === undefined) {
    notes.push(
      `the pod annotations are not mounted at ${POD_ANNOTATIONS_PATH}: pilot-agent does not see ${PROXY_CONFIG_ANNOTATION}, ` +
        `${DISCOVERY_ADDRESS_ANNOTATION} or ${STATUS_PORT_ANNOTATION}`,
    );
  }
  const seen = podinfo === undefined ? undefined : annotations;
  if (seen?.[PROXY_CONFIG_ANNOTATION]) sources.push(`annotation ${PROXY_CONFIG_ANNOTATION}`);

  // config.CPULimit, read as the running agent reads it (../options/env.ts: pkg/env's policy).
  const cpuLimit = envReader(Object.fromEntries(env.values), (w) => notes.push(w)).int64("ISTIO_CPU_LIMIT", 0n);

  const built = constructProxyConfig({
    meshConfigFile: meshFile === undefined ? undefined : options.meshConfigText,
    proxyConfigEnv,
    annotations: seen,
    concurrencyFlag: agentArgs.concurrency,
    serviceClusterFlag: agentArgs.serviceCluster,
    cpuLimit,
  });
  const pc = built.proxyConfig;
  notes.push(...built.warnings);
  if (built.concurrencySource === "cpu limit") sources.push(`env ISTIO_CPU_LIMIT=${cpuLimit} (concurrency)`);
  if (built.concurrencySource === "--concurrency flag") sources.push(`--concurrency ${agentArgs.concurrency}`);
  if (built.concurrencySource === "unset") {
    const cpuUnknown = env.unknown.get("ISTIO_CPU_LIMIT");
    notes.push(
      cpuUnknown === undefined
        ? "concurrency is unset: Envoy runs one worker thread per CPU of the node"
        : `concurrency is unset and env ISTIO_CPU_LIMIT comes from ${cpuUnknown}: pilot-agent sets concurrency to that number`,
    );
  }
  if (seen !== undefined && Object.hasOwn(seen, DISCOVERY_ADDRESS_ANNOTATION)) {
    sources.push(`annotation ${DISCOVERY_ADDRESS_ANNOTATION}`);
  }
  if (seen !== undefined && Object.hasOwn(seen, STATUS_PORT_ANNOTATION))
    sources.push(`annotation ${STATUS_PORT_ANNOTATION}`);
  if (typeof pc.statsdUdpAddress === "string" && pc.statsdUdpAddress !== "") {
    notes.push("statsdUdpAddress is resolved through DNS when pilot-agent starts (cleared if it does not resolve)");
  }

  const trustDomain = typeof options.mesh.trustDomain === "string" ? options.mesh.trustDomain : "cluster.local";
  return {
    proxyType: agentArgs.proxyType,
    identity: proxyIdentity(trustDomain, namespace, serviceAccount),
    domain: dnsDomain(agentArgs.domain, namespace),
    discoveryAddress: typeof pc.discoveryAddress === "string" ? pc.discoveryAddress : "",
    statusPort: typeof pc.statusPort === "number" ? pc.statusPort : 0,
    concurrency: typeof pc.concurrency === "number" ? pc.concurrency : undefined,
    concurrencySource: built.concurrencySource,
    sources,
    proxyConfig: pc,
    notes,
  };
}
