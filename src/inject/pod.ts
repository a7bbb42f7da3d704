/**
 * Small operations on pods as plain JSON objects: their container lists, annotations, and the
 * injection status annotation that records what a previous injection added.
 */

import { cloneJson, isRecord } from "../go/json.js";

export type Json = Record<string, unknown>;

export interface Container extends Json {
  name: string;
}

/** Any pod-shaped JSON, parts possibly missing: what the probe functions and the policy accept. */
export interface PodLike {
  metadata?: Json | null;
  spec?: Json | null;
}

/** The injector's working pod: metadata and spec present. */
export interface Pod extends PodLike {
  metadata: Json & { annotations?: Record<string, string>; labels?: Record<string, string> };
  // Typed marshalling writes `containers: null` for a pod without containers, hence the nulls.
  spec: Json & {
    containers?: Container[] | null;
    initContainers?: Container[] | null;
    volumes?: Json[] | null;
    imagePullSecrets?: Json[] | null;
  };
}

export const PROXY_CONTAINER = "istio-proxy";
export const INIT_CONTAINER = "istio-init";
export const VALIDATION_CONTAINER = "istio-validation";
export const CORE_DUMP_CONTAINER = "enable-core-dump";

export const STATUS_ANNOTATION = "sidecar.istio.io/status";
export const OVERRIDES_ANNOTATION = "proxy.istio.io/overrides";

export function annotationsOf(pod: Pod): Record<string, string> {
  pod.metadata.annotations ??= {};
  return pod.metadata.annotations;
}

export function labelsOf(pod: Pod): Record<string, string> {
  pod.metadata.labels ??= {};
  return pod.metadata.labels;
}

export function findContainer(name: string, list: readonly Container[] | null | undefined): Container | undefined {
  return list?.find((c) => c.name === name);
}

/** A container of the pod by name, in containers first, then init containers. */
export function findPodContainer(name: string, pod: PodLike): Container | undefined {
  const spec = (pod.spec ?? undefined) as Pod["spec"] | undefined;
  return findContainer(name, spec?.containers) ?? findContainer(name, spec?.initContainers);
}

export type Placement = "first" | "last" | "remove";

/** Moves (or removes) the named container within a list; the list is unchanged when it is absent. */
export function placeContainer(
  list: Container[] | null | undefined,
  name: string,
  where: Placement,
): Container[] | undefined {
  if (list == null) return undefined;
  const match = list.find((c) => c.name === name);
  if (match === undefined) return list;
  const rest = list.filter((c) => c.name !== name);
  if (where === "first") return [match, ...rest];
  if (where === "last") return [...rest, match];
  return rest;
}

/** What the status annotation records: the names of everything the injection added, and the revision. */
export interface InjectionStatus {
  initContainers: string[] | null;
  containers: string[] | null;
  volumes: string[] | null;
  imagePullSecrets: string[] | null;
  revision: string;
}

function names(list: readonly Json[] | null | undefined): string[] | null {
  if (list == null || list.length === 0) return null;
  return list.map((x) => String(x.name));
}

/** The status annotation's value for what the templates produced (Go's json.Marshal: nil lists as null). */
export function injectionStatus(templatePod: Pod, revision: string): string {
  const status: InjectionStatus = {
    initContainers: names(templatePod.spec.initContainers),
    containers: names(templatePod.spec.containers),
    volumes: names(templatePod.spec.volumes),
    imagePullSecrets: names(templatePod.spec.imagePullSecrets),
    revision: revision === "" ? "default" : revision,
  };
  return goJSON(status);
}

/** Whether the pod carries the status annotation: it was injected before, whatever the annotation says. */
export function hasInjectionStatus(pod: PodLike): boolean {
  const annotations = pod.metadata?.annotations;
  return isRecord(annotations) && Object.hasOwn(annotations, STATUS_ANNOTATION);
}

const stringList = (v: unknown): string[] | null =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : null;

/** The status annotation's JSON (`parsed` undefined when it is not JSON); undefined when the pod has none. */
function statusJSON(pod: PodLike): { parsed: unknown } | undefined {
  const text = (pod.metadata?.annotations as Record<string, string> | null | undefined)?.[STATUS_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    return { parsed: JSON.parse(text) as unknown };
  } catch {
    return { parsed: undefined };
  }
}

/**
 * Reads a previous injection's status annotation: undefined when the pod has none. An annotation
 * that is not a JSON object reads as an empty status (the pod still counts as injected); lists that
 * are not lists read as null, and only their strings count.
 */
export function parseInjectionStatus(pod: PodLike): InjectionStatus | undefined {
  const status = statusJSON(pod);
  if (status === undefined) return undefined;
  const o = isRecord(status.parsed) ? status.parsed : {};
  return {
    initContainers: stringList(o.initContainers),
    containers: stringList(o.containers),
    volumes: stringList(o.volumes),
    imagePullSecrets: stringList(o.imagePullSecrets),
    revision: typeof o.revision === "string" ? o.revision : "",
  };
}

/**
 * The status annotation as Go's json.Unmarshal decodes it into SidecarInjectionStatus, for stripping
 * a previous injection: undefined when the pod has none or it does not decode (not JSON, not an
 * object or null, a list that is not a list of strings, a revision that is not a string), in which
 * case Istio's stripPod leaves the pod as it is. Istio: pkg/kube/inject/inject.go injectionStatus.
 */
export function decodeInjectionStatus(pod: PodLike): InjectionStatus | undefined {
  const status = statusJSON(pod);
  if (status === undefined || status.parsed === undefined) return undefined;
  const parsed = status.parsed === null ? {} : status.parsed;
  if (!isRecord(parsed)) return undefined;
  // Go matches struct fields to keys ignoring case; the last matching key wins.
  const field = (name: string): unknown => {
    let v: unknown;
    for (const [k, x] of Object.entries(parsed as Record<string, unknown>)) if (k.toLowerCase() === name) v = x;
    return v;
  };
  const list = (v: unknown): string[] | null | false =>
    v === undefined || v === null ? null : Array.isArray(v) && v.every((x) => typeof x === "string") ? v : false;
  const lists = ["initcontainers", "containers", "volumes", "imagepullsecrets"].map((n) => list(field(n)));
  const revision = field("revision");
  if (lists.includes(false) || (revision !== undefined && revision !== null && typeof revision !== "string")) {
    return undefined;
  }
  const [initContainers, containers, volumes, imagePullSecrets] = lists as Array<string[] | null>;
  return {
    initContainers: initContainers ?? null,
    containers: containers ?? null,
    volumes: volumes ?? null,
    imagePullSecrets: imagePullSecrets ?? null,
    revision: typeof revision === "string" ? revision : "",
  };
}

/**
 * JSON text as Go's json.Marshal writes it for data whose key order is already right (typed structs
 * marshalled in declaration order): compact, with <, > and & escaped (and U+2028/U+2029), which can
 * only occur inside strings.
 */
export function goJSON(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A deep copy of JSON-shaped data (pods are); see {@link cloneJson}. */
export const clone = cloneJson;
