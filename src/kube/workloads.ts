/**
 * The workload kinds that kube-inject decodes and injects, and where each keeps its pod template.
 *
 * Istio's inject scheme (pkg/kube/inject) registers `v1` Pod, ReplicationController and List;
 * `apps/v1` Deployment, DaemonSet, ReplicaSet and StatefulSet; `batch/v1` Job and CronJob;
 * `apps.openshift.io/v1` DeploymentConfig. It registers them as *unversioned* types too, and
 * `runtime.Scheme.New` falls back to the unversioned table by kind alone: a document is decoded by
 * its `kind` whatever its `apiVersion` says (the golden `deploymentconfig-with-canonical-service-label`
 * injects a `v1` DeploymentConfig; an `extensions/v1beta1` Deployment decodes as an `apps/v1` one and
 * keeps its apiVersion). Any other kind is not registered and passes through kube-inject verbatim.
 * {@link foreignApiVersion} sets apart the kinds' namesakes in other API groups (custom resources).
 */

import { isRecord } from "../go/json.js";
import { valueKind } from "./value-kind.js";

/** A kind/apiVersion pair kube-inject knows, with the schema type its object decodes into. */
export interface WorkloadKind {
  readonly apiVersion: string;
  readonly kind: string;
  /** Schema struct name (`Deployment`, `CronJob`, ...). */
  readonly type: string;
}

const KINDS: readonly WorkloadKind[] = [
  { apiVersion: "v1", kind: "Pod", type: "Pod" },
  { apiVersion: "v1", kind: "ReplicationController", type: "ReplicationController" },
  { apiVersion: "v1", kind: "List", type: "List" },
  { apiVersion: "apps/v1", kind: "Deployment", type: "Deployment" },
  { apiVersion: "apps/v1", kind: "DaemonSet", type: "DaemonSet" },
  { apiVersion: "apps/v1", kind: "ReplicaSet", type: "ReplicaSet" },
  { apiVersion: "apps/v1", kind: "StatefulSet", type: "StatefulSet" },
  { apiVersion: "batch/v1", kind: "Job", type: "Job" },
  { apiVersion: "batch/v1", kind: "CronJob", type: "CronJob" },
  { apiVersion: "apps.openshift.io/v1", kind: "DeploymentConfig", type: "DeploymentConfig" },
];

/**
 * The registered kind of a decoded document (matched by `kind` alone, as Istio's scheme does), or
 * undefined when kube-inject copies the document through.
 */
export function workloadKind(obj: unknown): WorkloadKind | undefined {
  const { kind } = typeMetaOf(obj);
  return KINDS.find((k) => k.kind === kind);
}

/** Every kind kube-inject decodes, with its canonical apiVersion. */
export function workloadKinds(): readonly WorkloadKind[] {
  return KINDS;
}

/** True when kube-inject decodes and re-serialises the document. */
export function isInjectable(obj: unknown): boolean {
  return workloadKind(obj) !== undefined;
}

/**
 * The API groups each injectable kind was ever served under by Kubernetes (old versions included:
 * `extensions/v1beta1` and `apps/v1beta1`/`v1beta2` Deployments, `batch/v1beta1` CronJobs) or by
 * OpenShift (`apps.openshift.io`, and its legacy group-less `v1` DeploymentConfig).
 */
const GROUPS: Partial<Record<string, readonly string[]>> = {
  Pod: [""],
  ReplicationController: [""],
  List: [""],
  Deployment: ["apps", "extensions"],
  DaemonSet: ["apps", "extensions"],
  ReplicaSet: ["apps", "extensions"],
  StatefulSet: ["apps"],
  Job: ["batch"],
  CronJob: ["batch"],
  DeploymentConfig: ["apps.openshift.io", ""],
};

/**
 * Why a document of an injectable kind is not injected after all: its apiVersion belongs to an API
 * group that never served the kind (a custom resource that reuses the name, `example.com/v1`
 * `Deployment`). Undefined when it is injected: any version of the kind's own groups (istioctl
 * decides by kind, so old versions are injected as the current one), or no apiVersion at all.
 * istioctl would inject the custom resource too (its scheme falls back to the kind alone); here it
 * is passed through, as its pod template is not where the built-in kind keeps it.
 */
export function foreignApiVersion(obj: unknown): string | undefined {
  const { apiVersion, kind } = typeMetaOf(obj);
  const groups = GROUPS[kind];
  if (groups === undefined || apiVersion === "") return undefined;
  const slash = apiVersion.lastIndexOf("/");
  if (groups.includes(slash < 0 ? "" : apiVersion.slice(0, slash))) return undefined;
  const served = groups.map((g) => (g === "" ? "v1" : `${g}/*`)).join(", ");
  return `apiVersion ${JSON.stringify(apiVersion)} is not a Kubernetes API of ${kind} (${served}): not injected, copied through unchanged`;
}

/** Kubernetes type meta (`apiVersion`, `kind`); strings only, as TypeMeta decodes them. */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

export function typeMetaOf(obj: unknown): TypeMeta {
  const o = asObject(obj);
  return { apiVersion: stringField(o?.apiVersion), kind: stringField(o?.kind) };
}

/** The pod part of a workload: the metadata and spec that injection works on. */
export interface PodParts {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown>;
}

/**
 * A workload whose pod cannot be found: a part on the way to the pod spec is missing or is not a
 * map. The message names the object and the field
 * (`Deployment "web": spec.template is missing`).
 */
export class InvalidWorkloadError extends Error {
  override name = "InvalidWorkloadError";
}

/** A pod template found where the kind keeps it is missing (e.g. no `spec.template`). */
export class MissingTemplateError extends InvalidWorkloadError {
  override name = "MissingTemplateError";
}

/** Where a kind keeps its pod's metadata and spec, as dotted paths from the document root. */
export interface PodPaths {
  readonly metadata: string;
  readonly spec: string;
}

/** The pod paths of an injectable kind (not a List): `metadata`/`spec` for a Pod, `spec.template.*` for most. */
export function podPathsOf(kind: string): PodPaths {
  const [metadata, spec] = (POD_PATHS[kind] ?? DEFAULT_POD_PATHS).map((p) => p.join(".")) as [string, string];
  return { metadata, spec };
}

/**
 * The map at `path`, checked: every map on the way must be present (unless `optional` for the
 * last one) and be a map. Throws {@link InvalidWorkloadError} (a missing pod template:
 * {@link MissingTemplateError}) naming `what` and the field.
 */
function mapAt(
  root: Record<string, unknown>,
  path: readonly string[],
  what: string,
  optional = false,
): Record<string, unknown> {
  let cur = root;
  for (const [i, key] of path.entries()) {
    const v = cur[key];
    const field = path.slice(0, i + 1).join(".");
    if (v === undefined || v === null) {
      if (optional && i === path.length - 1) return {};
      const Missing = key === "template" || key === "jobTemplate" ? MissingTemplateError : InvalidWorkloadError;
      throw new Missing(`${what}: ${field} is missing`);
    }
    const next = asObject(v);
    if (next === undefined) throw new InvalidWorkloadError(`${what}: ${field} must be a map, got ${valueKind(v)}`);
    cur = next;
  }
  return cur;
}

/** `Kind "name"` of an object for messages (`Kind` alone when it has no name, `(no kind)` without a kind). */
export function describeObject(obj: unknown): string {
  const { kind } = typeMetaOf(obj);
  const name = nameOf(obj);
  return `${kind || "(no kind)"}${name ? ` ${JSON.stringify(name)}` : ""}`;
}

/**
 * A List with each item of an injectable kind (a List inside a List excepted) replaced by what
 * `map` makes of it, given the item and its name in messages (`item N (Kind "name")`); other items
 * stay as they are.
 */
export function mapInjectableItems(
  list: Record<string, unknown>,
  map: (item: Record<string, unknown>, name: string) => unknown,
): Record<string, unknown> {
  const items = Array.isArray(list.items) ? list.items : [];
  return {
    ...list,
    items: items.map((item, i) =>
      !isRecord(item) || !isInjectable(item) || item.kind === "List"
        ? item
        : map(item, `item ${i + 1} (${describeObject(item)})`),
    ),
  };
}

/**
 * The pod of an injectable workload: the object itself for a Pod; `spec.template` for the other
 * workloads; for a CronJob the metadata of `spec.jobTemplate` with the spec of
 * `spec.jobTemplate.spec.template` (so injected labels and annotations land on the job template).
 * The parts are the object's own (no copies); absent metadata comes back as a new empty object that
 * is not attached to `obj` (use {@link withPod} to put a changed pod back).
 * Undefined for a List or a document that is not injectable.
 *
 * Throws {@link InvalidWorkloadError} when the pod cannot be found: a missing `spec`,
 * `spec.template` ({@link MissingTemplateError}) or pod spec, or a part on the way that is not a
 * map. Istio's kube-inject would inject such a workload (only a nil `spec.template` of a
 * ReplicationController or DeploymentConfig stops it) and print a pod whose only container is the
 * proxy, which is never what was meant. An empty `containers` list is accepted: a gateway injected
 * with a native sidecar has one, and injecting it again must work.
 */
export function podOf(obj: unknown): PodParts | undefined {
  const kind = workloadKind(obj);
  if (kind === undefined || kind.kind === "List") return undefined;
  const o = obj as Record<string, unknown>;
  const what = describeObject(o);
  const paths = POD_PATHS[kind.kind] ?? DEFAULT_POD_PATHS;
  const [metadataPath, specPath] = paths as [readonly string[], readonly string[]];
  // The spec first: for a CronJob the metadata path is a prefix of the spec path.
  const spec = mapAt(o, specPath, what);
  const metadata = mapAt(o, metadataPath, what, true);
  return { metadata, spec };
}

const DEFAULT_POD_PATHS = [
  ["spec", "template", "metadata"],
  ["spec", "template", "spec"],
];
const POD_PATHS: Partial<Record<string, readonly (readonly string[])[]>> = {
  Pod: [["metadata"], ["spec"]],
  CronJob: [
    ["spec", "jobTemplate", "metadata"],
    ["spec", "jobTemplate", "spec", "template", "spec"],
  ],
};

/**
 * `root` with the values that {@link withPod} replaces set to null (copying the objects on their
 * paths, sharing the rest), so that the deep copy skips the old pod. Keys keep their places.
 */
function withoutPod(root: Record<string, unknown>, paths: readonly (readonly string[])[]): Record<string, unknown> {
  const copies = new Map<Record<string, unknown>, Record<string, unknown>>();
  const copyOf = (o: Record<string, unknown>) => {
    let c = copies.get(o);
    if (c === undefined) {
      c = { ...o };
      copies.set(o, c);
    }
    return c;
  };
  const top = copyOf(root);
  for (const path of paths) {
    let original: Record<string, unknown> | undefined = root;
    let copy = top;
    for (let i = 0; i < path.length - 1 && original !== undefined; i++) {
      original = asObject(original[path[i] as string]);
      if (original === undefined) break;
      const next = copyOf(original);
      copy[path[i] as string] = next;
      copy = next;
    }
    const leaf = path[path.length - 1] as string;
    if (original !== undefined && Object.hasOwn(copy, leaf)) copy[leaf] = null;
  }
  return top;
}

/**
 * A copy of the workload with its pod replaced (the inverse of {@link podOf}): the new metadata and
 * spec go where `podOf` found them; the rest of the object is kept.
 */
export function withPod<T>(obj: T, pod: PodParts): T {
  const kind = workloadKind(obj);
  if (kind === undefined || kind.kind === "List") {
    throw new Error(`withPod: ${typeMetaOf(obj).kind || "document"} has no pod template`);
  }
  const out = structuredClone(withoutPod(obj as Record<string, unknown>, POD_PATHS[kind.kind] ?? DEFAULT_POD_PATHS));
  switch (kind.kind) {
    case "Pod":
      out.metadata = pod.metadata;
      out.spec = pod.spec;
      break;
    case "CronJob":
      setAt(out, ["spec", "jobTemplate", "metadata"], pod.metadata);
      setAt(out, ["spec", "jobTemplate", "spec", "template", "spec"], pod.spec);
      break;
    default:
      setAt(out, ["spec", "template", "metadata"], pod.metadata);
      setAt(out, ["spec", "template", "spec"], pod.spec);
  }
  return out as T;
}

/** The workload identity that templates and warnings use: name, namespace and type meta. */
export interface DeployMeta {
  name: string;
  namespace: string;
  typeMeta: TypeMeta;
}

/**
 * The deploy meta of an injectable object: the top-level object's name, namespace and type meta;
 * for a bare Pod, what Istio's `GetDeployMetaFromPod` (pkg/kube/util.go) derives from the pod.
 */
export function deployMetaOf(obj: unknown): DeployMeta {
  const kind = workloadKind(obj);
  if (kind?.kind === "Pod") return deployMetaFromPod(obj);
  const meta = asObject(asObject(obj)?.metadata);
  return { name: stringField(meta?.name), namespace: stringField(meta?.namespace), typeMeta: typeMetaOf(obj) };
}

const CRONJOB_NAME = /^(.+)-\d{8,10}$/;

/**
 * Istio's GetDeployMetaFromPod: a pod with a generated name and a controller owner reference is
 * attributed to its controller (a ReplicaSet with the pod's `pod-template-hash` to its Deployment,
 * an Argo Rollout's ReplicaSet to the Rollout, an OpenShift ReplicationController to its
 * DeploymentConfig, a Job named `<cronjob>-<timestamp>` to its CronJob).
 */
export function deployMetaFromPod(pod: unknown): DeployMeta {
  const meta = asObject(asObject(pod)?.metadata);
  const podName = stringField(meta?.name);
  const out: DeployMeta = {
    name: podName,
    namespace: stringField(meta?.namespace),
    typeMeta: { kind: "Pod", apiVersion: "v1" },
  };
  const labels = asObject(meta?.labels) ?? {};
  const label = (k: string): string => stringField(labels[k]);
  if (stringField(meta?.generateName).length > 0) {
    const refs = Array.isArray(meta?.ownerReferences) ? meta.ownerReferences : [];
    const controller = refs.map(asObject).find((r) => r?.controller === true);
    if (controller !== undefined) {
      const refName = stringField(controller.name);
      out.typeMeta = { apiVersion: stringField(controller.apiVersion), kind: stringField(controller.kind) };
      out.name = refName;
      const hash = label("pod-template-hash");
      const rolloutsHash = label("rollouts-pod-template-hash");
      if (out.typeMeta.kind === "ReplicaSet" && hash !== "" && refName.endsWith(hash)) {
        out.name = trimSuffix(refName, `-${hash}`);
        out.typeMeta.kind = "Deployment";
      } else if (out.typeMeta.kind === "ReplicaSet" && rolloutsHash !== "" && refName.endsWith(rolloutsHash)) {
        out.name = trimSuffix(refName, `-${rolloutsHash}`);
        out.typeMeta = { kind: "Rollout", apiVersion: "v1alpha1" };
      } else if (out.typeMeta.kind === "ReplicationController" && label("deploymentconfig") !== "") {
        out.name = label("deploymentconfig");
        out.typeMeta.kind = "DeploymentConfig";
      } else if (out.typeMeta.kind === "Job") {
        const m = CRONJOB_NAME.exec(refName);
        if (m) {
          out.name = m[1] as string;
          out.typeMeta = { kind: "CronJob", apiVersion: "batch/v1" };
        }
      }
    }
  }
  if (out.name === "") out.name = podName;
  return out;
}

function trimSuffix(s: string, suffix: string): string {
  return s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s;
}

function nameOf(obj: unknown): string {
  return stringField(asObject(asObject(obj)?.metadata)?.name);
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function stringField(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The object at `path`, created (as `{}`) where missing so the caller can fill it in. */
function objectAt(root: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  let cur = root;
  for (const key of path) {
    let next = asObject(cur[key]);
    if (next === undefined) {
      next = {};
      cur[key] = next;
    }
    cur = next;
  }
  return cur;
}

function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const parent = objectAt(root, path.slice(0, -1));
  parent[path[path.length - 1] as string] = value;
}

/** Everything kube-inject needs to know about one injectable document. */
export interface WorkloadRef {
  readonly kind: WorkloadKind;
  /** The type meta templates and warnings use (from GetDeployMetaFromPod for a bare Pod). */
  readonly typeMeta: TypeMeta;
  readonly deployMeta: { readonly name: string; readonly namespace: string };
  /** The pod parts, as {@link podOf} gives them (the object's own objects, not copies). */
  readonly pod: PodParts;
  /** Where the pod parts sit in the document, for messages. */
  readonly paths: PodPaths;
  /**
   * The name Istio's kube-inject warnings quote: `<namespace>/<name>` (namespace of the top-level
   * object; name of the pod template, else of the top-level object), or just the name.
   */
  readonly fullName: string;
  /** A copy of the object with the pod replaced ({@link withPod}). */
  withPod(pod: PodParts): Record<string, unknown>;
}

/**
 * The workload view of a document: undefined when kube-inject copies it through. A List gives
 * undefined unless `listsToo` is set; its ref then has empty pod parts and `withPod` throws
 * (inject its items one by one instead). Throws {@link InvalidWorkloadError} as {@link podOf} does
 * (use {@link isInjectable} to ask whether a document is a workload at all).
 */
export function workloadOf(obj: unknown, options: { listsToo?: boolean } = {}): WorkloadRef | undefined {
  const kind = workloadKind(obj);
  if (kind === undefined) return undefined;
  const o = obj as Record<string, unknown>;
  if (kind.kind === "List") {
    if (!options.listsToo) return undefined;
    return {
      kind,
      typeMeta: typeMetaOf(o),
      deployMeta: { name: nameOf(o), namespace: "" },
      pod: { metadata: {}, spec: {} },
      paths: { metadata: "", spec: "" },
      fullName: nameOf(o),
      withPod: () => withPod(o, { metadata: {}, spec: {} }),
    };
  }
  const pod = podOf(o) as PodParts;
  const meta = deployMetaOf(o);
  const name = stringField(pod.metadata.name) || meta.name;
  return {
    kind,
    typeMeta: meta.typeMeta,
    deployMeta: { name: meta.name, namespace: meta.namespace },
    pod,
    paths: podPathsOf(kind.kind),
    fullName: meta.namespace ? `${meta.namespace}/${name}` : name,
    withPod: (p) => withPod(o, p),
  };
}

/**
 * The pod's namespace: the object's own (a Pod's, or a workload's, which its pods inherit), else its
 * pod template's, else `fallback` (the namespace the manifest is applied to).
 */
export function podNamespace(
  obj: Record<string, unknown>,
  podMetadata: Record<string, unknown>,
  fallback: string,
): string {
  const own = isRecord(obj.metadata) ? stringField(obj.metadata.namespace) : "";
  return own || stringField(podMetadata.namespace) || fallback;
}
