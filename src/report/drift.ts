/**
 * `meshinject drift` for one pod (or one workload's pod template): is the sidecar it runs the one
 * the injector of its revision would give it today? The pod is uninjected with its revision's
 * injector (src/inject/uninject.ts), the injection policy decides again on the pod as it was before
 * injection (src/inject/policy.ts: the webhook's injectRequired, with the webhooks the API server
 * calls for it when they are known), it is injected again (as the webhook does for live pods, as
 * kube-inject does for manifests) and compared with what runs (./drift-compare.ts):
 *
 *   up-to-date        the same sidecar;
 *   stale             a different one: what would change;
 *   missing           no sidecar, but the policy now injects the pod;
 *   unexpected        a sidecar, but the policy now leaves the pod alone;
 *   unknown-revision  the pod's revision (istio.io/rev, else the status annotation's) has no configuration;
 *   not-injected      no sidecar, and none wanted (outside the mesh);
 *   error             the pod cannot be read, uninjected or injected (the reason says why).
 *
 * With a planned configuration, the pod as the current configuration injects it is compared with
 * the pod as the planned one would: what the change will do, before it is made. Pure.
 */

import { isRecord } from "../go/json.js";
import { ConfigError } from "../inject/config.js";
import { InjectionError, injectPod, typedPod } from "../inject/inject.js";
import type { LoadedInjector } from "../inject/injector.js";
import { injectObject, type KubeInjectOptions } from "../inject/kube-inject.js";
import { hasInjectionStatus, type Json, type Pod, PROXY_CONTAINER, parseInjectionStatus } from "../inject/pod.js";
import { injectionDecision, kubeInjectDecision, PolicyInputError } from "../inject/policy.js";
import { UninjectError, uninjectObject } from "../inject/uninject.js";
import { oneLine } from "../kube/one-line.js";
import { marshalTyped } from "../kube/typed.js";
import {
  deployMetaFromPod,
  describeObject,
  InvalidWorkloadError,
  podNamespace,
  podOf,
  type WorkloadRef,
  workloadOf,
} from "../kube/workloads.js";
import { podProxyConfig } from "../mesh/index.js";
import { comparePods, type PodParts } from "./drift-compare.js";

export type DriftStatus =
  | "up-to-date"
  | "stale"
  | "missing"
  | "unexpected"
  | "unknown-revision"
  | "not-injected"
  | "error";

/** Every status, in the order reports list them. */
export const DRIFT_STATUSES: readonly DriftStatus[] = [
  "up-to-date",
  "stale",
  "missing",
  "unexpected",
  "unknown-revision",
  "not-injected",
  "error",
];

/** The workload a pod belongs to: its controller (GetDeployMetaFromPod), or the pod itself. */
export interface DriftOwner {
  kind: string;
  namespace: string;
  name: string;
}

export interface PodDrift {
  owner: DriftOwner;
  /** The pod's name (for a manifest's workload, the workload's). */
  pod: string;
  namespace: string;
  status: DriftStatus;
  /** The revision of the sidecar it runs (`default` for the default one); absent without one. */
  revision?: string;
  /** The revision that injects it now (or would, under the planned configuration). */
  targetRevision?: string;
  /** Why, in a sentence. */
  reason: string;
  /** What would change, one short phrase each (stale only). */
  changes: string[];
  /** The unified diff from the running pod to the re-injected one (stale, when asked for). */
  diff?: string;
}

/** A revision's injector. */
export interface RevisionInjector {
  /** The revision it injects as ("" for the default). */
  revision: string;
  injector: LoadedInjector;
}

/** A configuration: which injector injects the pods of each revision. */
export interface DriftSide {
  /** The injector for pods of `revision` ("" is the default); undefined when the revision has none. */
  injectorFor(revision: string): RevisionInjector | undefined;
  /**
   * The revisions whose webhooks the API server calls for a pod with these labels in this namespace
   * (from the installed MutatingWebhookConfigurations); [] when none is called. Without it, a pod
   * goes to its own revision's injector (istio.io/rev, else the status annotation's, else the
   * run's default revision).
   */
  webhookRevisions?(namespace: string, podLabels: Record<string, string>): string[];
}

export interface DriftOptions {
  /** How pods are injected again: as the admission webhook does (live pods) or as kube-inject does (manifests). */
  style: "webhook" | "kube-inject";
  /** The namespace of objects that name none. */
  namespace: string;
  /** The revision of pods that name none and that no webhook selection decides (`-r`). */
  defaultRevision: string;
  /** Whether proxies run as native sidecars; undefined: as the pod runs its proxy now. */
  nativeSidecars?: boolean;
  /** Keep the unified diff of each stale pod. */
  diff?: boolean;
  /** The configuration in force. */
  current: DriftSide;
  /** A planned configuration: each pod as `current` injects it is compared with it as `planned` would. */
  planned?: DriftSide;
  /** What the injector only logs (an odd inject label, several webhooks called). */
  warn?: (message: string) => void;
}

/** The label and annotation (Istio's label.IoIstioRev). */
const REV_LABEL = "istio.io/rev";

/** A revision as reports show it: `default` for "". */
export function revisionName(revision: string): string {
  return revision === "" ? "default" : revision;
}

/** A revision as configurations are looked up: "" for `default`. */
export function revisionKey(revision: string): string {
  return revision === "default" ? "" : revision;
}

const stringOf = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * The revision of an injected pod's sidecar, as istioctl reads it (describe.go
 * GetRevisionFromPodAnnotation): the `istio.io/rev` annotation the templates write, else the status
 * annotation's `revision`; the `istio.io/rev` label after them (what the pod asked for).
 */
export function podRevision(pod: Pod): string {
  const annotations = pod.metadata.annotations ?? {};
  if (Object.hasOwn(annotations, REV_LABEL)) return revisionKey(stringOf(annotations[REV_LABEL]) ?? "");
  const status = parseInjectionStatus(pod)?.revision;
  if (status !== undefined && status !== "") return revisionKey(status);
  return revisionKey(stringOf(pod.metadata.labels?.[REV_LABEL]) ?? "");
}

/** Whether the pod runs its proxy as a native sidecar (an init container that restarts). */
function runsNativeSidecar(pod: Pod): boolean {
  const init = Array.isArray(pod.spec.initContainers) ? pod.spec.initContainers : [];
  return init.some((c) => isRecord(c) && c.name === PROXY_CONTAINER && c.restartPolicy === "Always");
}

/** The owner of a workload: for a pod its controller as Istio's GetDeployMetaFromPod names it; else the workload. */
function ownerOf(obj: Json, namespace: string): DriftOwner {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  if (obj.kind === "Pod") {
    const deploy = deployMetaFromPod(obj);
    return { kind: deploy.typeMeta.kind || "Pod", namespace, name: deploy.name };
  }
  return { kind: String(obj.kind), namespace, name: stringOf(meta.name) ?? "" };
}

/** What one configuration does with the pod as it was before injection. */
type Outcome =
  | { kind: "inject"; revision: string; pod: PodParts }
  | { kind: "skip"; revision?: string; reason: string }
  | { kind: "unknown"; revision: string };

/** The pod parts of an object, typed as Kubernetes writes a Pod (so both sides compare alike). */
function typedParts(metadata: unknown, spec: unknown): PodParts {
  const typed = marshalTyped({ metadata, spec }, "Pod") as { metadata?: Json; spec?: Json };
  return { metadata: typed.metadata ?? {}, spec: typed.spec ?? {} };
}

/** An error about one pod, for its `error` row. */
class PodFailure extends Error {
  override name = "PodFailure";
}

/** The drift of pods one at a time, under one set of options. */
export class DriftChecker {
  constructor(private readonly options: DriftOptions) {}

  /** The drift of one workload (a Pod, or a workload's pod template). Throws only for a document that is no workload. */
  check(obj: Json): PodDrift {
    let ref: WorkloadRef | undefined;
    try {
      ref = workloadOf(obj);
    } catch (e) {
      if (!(e instanceof InvalidWorkloadError)) throw e;
      const namespace = isRecord(obj.metadata) ? (stringOf(obj.metadata.namespace) ?? this.options.namespace) : "";
      return this.failed(obj, namespace || this.options.namespace, e.message);
    }
    if (ref === undefined) throw new PodFailure(`${describeObject(obj)} is not a workload`);
    const namespace = podNamespace(obj, ref.pod.metadata, this.options.namespace);
    const owner = ownerOf(obj, namespace);
    const name = stringOf(isRecord(obj.metadata) ? obj.metadata.name : undefined) ?? "";
    const row: PodDrift = { owner, pod: name, namespace, status: "error", reason: "", changes: [] };
    try {
      return this.checkWorkload(obj, ref, namespace, row);
    } catch (e) {
      if (
        e instanceof PodFailure ||
        e instanceof UninjectError ||
        e instanceof InjectionError ||
        e instanceof PolicyInputError ||
        e instanceof InvalidWorkloadError ||
        e instanceof ConfigError
      ) {
        return { ...row, status: "error", reason: oneLine(e.message) };
      }
      throw e;
    }
  }

  private failed(obj: Json, namespace: string, message: string): PodDrift {
    return {
      owner: ownerOf(obj, namespace),
      pod: stringOf(isRecord(obj.metadata) ? obj.metadata.name : undefined) ?? "",
      namespace,
      status: "error",
      reason: oneLine(message),
      changes: [],
    };
  }

  private checkWorkload(obj: Json, ref: WorkloadRef, namespace: string, row: PodDrift): PodDrift {
    const { options } = this;
    const running = typedPod(ref.pod, ref.paths);
    const injected = hasInjectionStatus(running);
    const native = options.nativeSidecars ?? runsNativeSidecar(running);
    let base = obj;
    let runningRevision: string | undefined;
    if (injected) {
      runningRevision = podRevision(running);
      row.revision = revisionName(runningRevision);
      const own = options.current.injectorFor(runningRevision);
      if (own === undefined) {
        return {
          ...row,
          status: "unknown-revision",
          reason: `the sidecar is of revision ${revisionName(runningRevision)}, which has no injector configuration`,
        };
      }
      base = uninjectObject(obj, this.kubeInjectOptions(own, native));
    }
    const baseRef = workloadOf(base) as WorkloadRef;
    const basePod = typedPod(baseRef.pod, baseRef.paths);
    basePod.metadata = { ...basePod.metadata, namespace };
    const hint = revisionKey(stringOf(basePod.metadata.labels?.[REV_LABEL]) ?? "") || options.defaultRevision;
    const preferred = runningRevision ?? hint;

    let have: Outcome;
    if (options.planned === undefined) {
      have = injected
        ? { kind: "inject", revision: runningRevision as string, pod: typedParts(ref.pod.metadata, ref.pod.spec) }
        : { kind: "skip", reason: "no sidecar" };
    } else {
      have = this.outcome(options.current, base, baseRef, basePod, namespace, preferred, native);
    }
    const want = this.outcome(options.planned ?? options.current, base, baseRef, basePod, namespace, preferred, native);
    if (want.revision !== undefined) row.targetRevision = revisionName(want.revision);
    if (options.planned !== undefined && have.kind === "inject") row.revision = revisionName(have.revision);

    if (have.kind === "unknown" || want.kind === "unknown") {
      const revision = have.kind === "unknown" ? have.revision : (want.revision as string);
      return {
        ...row,
        status: "unknown-revision",
        reason: `revision ${revisionName(revision)} has no injector configuration`,
      };
    }
    if (have.kind === "skip" && want.kind === "skip") return { ...row, status: "not-injected", reason: want.reason };
    if (have.kind === "skip" && want.kind === "inject") {
      return {
        ...row,
        status: "missing",
        reason: `no sidecar, but revision ${revisionName(want.revision)} injects the pod when it is created`,
      };
    }
    if (have.kind === "inject" && want.kind === "skip") {
      return { ...row, status: "unexpected", reason: `a sidecar, but the pod is not injected now: ${want.reason}` };
    }
    if (have.kind !== "inject" || want.kind !== "inject") throw new Error("drift: unreachable outcome");
    const label = `${String(obj.kind)} ${namespace}/${row.pod}`;
    const comparison = comparePods(have.pod, want.pod, options.diff === true, label);
    const moved = revisionKey(have.revision) !== revisionKey(want.revision);
    if (comparison.same && !moved) {
      return { ...row, status: "up-to-date", reason: "the sidecar is the one injected now" };
    }
    const changes = moved
      ? [`revision ${revisionName(have.revision)} → ${revisionName(want.revision)}`, ...comparison.changes]
      : comparison.changes;
    return {
      ...row,
      status: "stale",
      reason: "the sidecar differs from the one injected now",
      changes,
      ...(comparison.diff !== undefined ? { diff: comparison.diff } : {}),
    };
  }

  /** What `side` does with the pod as it was before injection: which revision, and the pod it makes. */
  private outcome(
    side: DriftSide,
    base: Json,
    baseRef: WorkloadRef,
    basePod: Pod,
    namespace: string,
    preferred: string,
    native: boolean,
  ): Outcome {
    let revision = preferred;
    if (side.webhookRevisions !== undefined) {
      const called = side.webhookRevisions(namespace, (basePod.metadata.labels ?? {}) as Record<string, string>);
      if (called.length === 0) return { kind: "skip", reason: "no injection webhook is called for the pod" };
      if (called.length > 1) {
        this.options.warn?.(
          `${namespace}/${basePod.metadata.name ?? ""}: webhooks of ${called.length} revisions (${called.map(revisionName).join(", ")}) are called for the pod; the first one counts`,
        );
      }
      revision = called[0] as string;
    }
    const config = side.injectorFor(revision);
    if (config === undefined) return { kind: "unknown", revision };
    if (this.options.style === "kube-inject") {
      const decision = kubeInjectDecision(basePod, { kind: baseRef.typeMeta.kind, fullName: baseRef.fullName });
      if (!decision.inject)
        return { kind: "skip", revision, reason: "kube-inject skips it (sidecar injection disabled or host network)" };
      const injected = injectObject(base, this.kubeInjectOptions(config, native));
      const pod = podOf(marshalTyped(injected, String(base.kind))) as PodParts;
      return { kind: "inject", revision: config.revision, pod: typedParts(pod.metadata, pod.spec) };
    }
    const decision = injectionDecision(basePod, config.injector.config);
    for (const w of decision.warnings) this.options.warn?.(`${namespace}/${basePod.metadata.name ?? ""}: ${w}`);
    if (!decision.inject) return { kind: "skip", revision, reason: decision.reason };
    return {
      kind: "inject",
      revision: config.revision,
      pod: this.webhookInject(base, baseRef, basePod, config, native),
    };
  }

  /** Injects the pod as the admission webhook does (src/webhook/admission.ts review) for a pod created now. */
  private webhookInject(
    base: Json,
    baseRef: WorkloadRef,
    basePod: Pod,
    config: RevisionInjector,
    native: boolean,
  ): PodParts {
    const { settings, meshConfig, config: injectorConfig } = config.injector;
    // The webhook sees a pod before the API server named it: a generated name is still empty (a
    // StatefulSet's pods, generateName and an ordinal, are named by their controller).
    const prefix = typeof basePod.metadata.generateName === "string" ? basePod.metadata.generateName : "";
    const name = typeof basePod.metadata.name === "string" ? basePod.metadata.name : "";
    const generated = prefix !== "" && !/^\d+$/.test(name.slice(prefix.length));
    const pod: Pod = generated ? { ...basePod, metadata: { ...basePod.metadata, name: "" } } : basePod;
    const deploy = base.kind === "Pod" ? deployMetaFromPod(pod) : { ...baseRef.deployMeta, typeMeta: baseRef.typeMeta };
    const injected = injectPod(settings, {
      pod,
      podTyped: true,
      typeMeta: deploy.typeMeta,
      deployMeta: { name: deploy.name, namespace: deploy.namespace || (basePod.metadata.namespace as string) },
      meshConfig,
      proxyConfig: podProxyConfig(meshConfig, basePod.metadata.annotations),
      revision: config.revision,
      defaultTemplates: injectorConfig.defaultTemplates,
      aliases: injectorConfig.aliases,
      injectedAnnotations: injectorConfig.injectedAnnotations ?? {},
      proxyEnvs: {},
      nativeSidecar: native,
      proxyUID: 1337n,
      proxyGID: 1337n,
    });
    const metadata = generated ? { ...injected.metadata, name: basePod.metadata.name } : injected.metadata;
    return typedParts(metadata, injected.spec);
  }

  private kubeInjectOptions(config: RevisionInjector, native: boolean): KubeInjectOptions {
    return {
      settings: config.injector.settings,
      config: config.injector.config,
      meshConfig: config.injector.meshConfig,
      revision: config.revision,
      nativeSidecar: native,
      warn: () => {},
    };
  }
}
