/**
 * A container's environment as far as a manifest tells it: literal `value`s (with `$(VAR)` expanded
 * over the variables defined before, as the kubelet does), and the `valueFrom` sources whose value
 * follows from the pod itself: `fieldRef` on the namespace, the service account, the pod's name (a
 * Pod only), its labels and annotations; `resourceFieldRef` on a CPU limit or request that the pod
 * spec sets. Everything else (secrets, config maps, node-given values, a limit left to the node's
 * allocatable CPU) is known only in the cluster: such variables are listed as unknown, with why.
 * Both istio-proxy's environment (pod-agent.ts) and istio-init's (capture/) are read this way, and
 * their command lines expanded over it.
 */

import { isRecord } from "../go/json.js";
import type { Container, Json } from "../inject/pod.js";
import type { PodParts } from "../kube/workloads.js";
import { downwardCpu } from "./cpu.js";
import { expandVars, referencedVars } from "./expand.js";
import { containersOf, stringList } from "./pod-containers.js";

/** What the fieldRefs of a pod resolve to offline. */
export interface PodFacts {
  /** The pod's namespace; undefined when the manifest does not say (then it is known only in the cluster). */
  namespace: string | undefined;
  serviceAccount: string;
  /** The pod's own name: only a Pod has one before it is created. */
  podName?: string;
  /** status.podIP (and podIPs), known only once the pod runs: a caller that takes one as given sets it. */
  podIP?: string;
  /** status.hostIP, likewise. */
  hostIP?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** All containers of the pod (for a resourceFieldRef naming another one). */
  containers: readonly Container[];
}

export interface ResolvedEnv {
  /** name → value, for the variables whose value is known (the last definition wins). */
  values: Map<string, string>;
  /** name → why its value is known only in the cluster. */
  unknown: Map<string, string>;
  /** Set when the container also has `envFrom`, which may define further variables. */
  envFrom: boolean;
}

function text(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

const stringField = (v: unknown): string => (typeof v === "string" ? v : "");

/** `spec.serviceAccountName`, else the deprecated `spec.serviceAccount`, else `default`. */
export function podServiceAccount(podSpec: Json): string {
  return stringField(podSpec.serviceAccountName) || stringField(podSpec.serviceAccount) || "default";
}

/** Labels or annotations as strings (Kubernetes decodes a YAML boolean or number as its text). */
export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(v)) return out;
  for (const [k, value] of Object.entries(v)) {
    if (value !== null && value !== undefined && typeof value !== "object") out[k] = String(value);
  }
  return out;
}

/**
 * The facts of the pod of `obj` (a workload; `pod` its pod parts). `namespace` is the pod's as the
 * caller knows it (podNamespace), or undefined when it is left to the cluster.
 */
export function podFacts(obj: Json, pod: PodParts, namespace: string | undefined): PodFacts {
  return {
    namespace,
    serviceAccount: podServiceAccount(pod.spec),
    podName: obj.kind === "Pod" && typeof pod.metadata.name === "string" ? pod.metadata.name : undefined,
    labels: stringMap(pod.metadata.labels),
    annotations: stringMap(pod.metadata.annotations),
    containers: [...containersOf(pod.spec, "containers"), ...containersOf(pod.spec, "initContainers")],
  };
}

function fieldValue(path: string, pod: PodFacts): string | undefined {
  if (path === "metadata.namespace") return pod.namespace;
  if (path === "spec.serviceAccountName") return pod.serviceAccount;
  if (path === "metadata.name") return pod.podName;
  if (path === "status.podIP" || path === "status.podIPs") return pod.podIP;
  if (path === "status.hostIP") return pod.hostIP;
  const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (m) return (m[1] === "labels" ? pod.labels : pod.annotations)[m[2] as string] ?? "";
  return undefined;
}

function resourceValue(ref: Json, self: Container, pod: PodFacts): string | undefined {
  const resource = text(ref.resource);
  const [kind, name] = resource.split(".");
  if (name !== "cpu" || (kind !== "limits" && kind !== "requests")) return undefined;
  const containerName = text(ref.containerName);
  const container = containerName === "" ? self : pod.containers.find((c) => c.name === containerName);
  const resources = isRecord(container?.resources) ? container.resources : {};
  const limits = isRecord(resources.limits) ? resources.limits : {};
  const requests = isRecord(resources.requests) ? resources.requests : {};
  // An unset request defaults to the limit; an unset limit is the node's allocatable CPU.
  const quantity = kind === "limits" ? limits.cpu : (requests.cpu ?? limits.cpu);
  if (quantity === undefined || quantity === null) return undefined;
  const divisor = ref.divisor === undefined || ref.divisor === null ? undefined : text(ref.divisor);
  return String(downwardCpu(text(quantity), divisor));
}

/** Why a valueFrom source cannot be resolved offline. */
function unknownReason(source: Json): string {
  if (isRecord(source.fieldRef)) return `fieldRef ${text(source.fieldRef.fieldPath)}, set only when the pod runs`;
  if (isRecord(source.resourceFieldRef)) {
    const ref = source.resourceFieldRef;
    return `resourceFieldRef ${text(ref.resource)}: the container sets no such value, so the node's allocatable amount is used at run time`;
  }
  if (isRecord(source.secretKeyRef)) return `secretKeyRef ${text(source.secretKeyRef.name)}, read in the cluster`;
  if (isRecord(source.configMapKeyRef))
    return `configMapKeyRef ${text(source.configMapKeyRef.name)}, read in the cluster`;
  return "valueFrom, resolved only in the cluster";
}

/**
 * The container's environment, resolved as far as the manifest allows. Throws QuantityError
 * (cpu.ts) for a malformed CPU quantity a resourceFieldRef reads.
 */
export function resolveEnv(container: Container, pod: PodFacts): ResolvedEnv {
  const values = new Map<string, string>();
  const unknown = new Map<string, string>();
  for (const entry of Array.isArray(container.env) ? container.env : []) {
    if (!isRecord(entry) || typeof entry.name !== "string") continue;
    const name = entry.name;
    let value: string | undefined;
    let reason = "";
    if (isRecord(entry.valueFrom)) {
      const source = entry.valueFrom;
      if (isRecord(source.fieldRef)) value = fieldValue(text(source.fieldRef.fieldPath), pod);
      else if (isRecord(source.resourceFieldRef)) value = resourceValue(source.resourceFieldRef, container, pod);
      if (value === undefined) reason = unknownReason(source);
    } else {
      value = expandVars(text(entry.value), (v) => values.get(v));
    }
    if (value === undefined) {
      values.delete(name);
      unknown.set(name, reason);
    } else {
      unknown.delete(name);
      values.set(name, value);
    }
  }
  const envFrom = Array.isArray(container.envFrom) && container.envFrom.length > 0;
  return { values, unknown, envFrom };
}

export interface CommandLine {
  command: string[];
  args: string[];
  /** The `$(NAME)`s left as written, in order of first use: their variables are unknown or undefined. */
  unresolved: string[];
}

/**
 * The container's `command` and `args` with `$(VAR)` expanded over `env` as the kubelet expands
 * them. Throws ContainerFieldError for a field that is not a list of strings.
 */
export function expandedCommandLine(container: Container, env: ReadonlyMap<string, string>): CommandLine {
  const raw = { command: stringList(container, "command"), args: stringList(container, "args") };
  const lookup = (name: string) => env.get(name);
  const unresolved = new Set<string>();
  for (const word of [...raw.command, ...raw.args]) {
    for (const name of referencedVars(word)) if (!env.has(name)) unresolved.add(name);
  }
  return {
    command: raw.command.map((w) => expandVars(w, lookup)),
    args: raw.args.map((w) => expandVars(w, lookup)),
    unresolved: [...unresolved],
  };
}
