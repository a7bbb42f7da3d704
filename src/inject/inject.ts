/**
 * Injecting one pod: render the selected templates with the pod's data, merge them over the pod,
 * put the user's own container settings back on top, then post-process (cluster env, metrics merge,
 * probe rewriting, status annotation, container order). Both kube-inject and the webhook call this.
 */

import { isRecord } from "../go/json.js";
import { parseBool } from "../go/strconv.js";
import { marshalTyped, TypedDecodeError } from "../kube/typed.js";
import { type MeshConfig, meshConfigView, type ProxyConfig, proxyConfigView } from "../mesh/index.js";
import { type GoValue, type HostLookup, hostWithLookup, type Template, TemplateError } from "../template/index.js";
import { validateAnnotations } from "./annotations.js";
import { type InjectionValues, valueAt } from "./config.js";
import { templateData } from "./data.js";
import { type ImageExtensions, proxyImage, proxyInitImage } from "./images.js";
import { applyOverlayObject, readOverlay, templatePodOf } from "./overlay.js";
import { moveProxy, reapplyUserContainers, reinsertOverrides, stripPreviousInjection } from "./overrides.js";
import { clone, findContainer, type Pod, type PodLike, PROXY_CONTAINER } from "./pod.js";
import { applyMetadata, overwriteClusterInfo, reorderContainers } from "./postprocess.js";
import { rewriteAppProbes } from "./probes.js";
import { applyPrometheusMerge, applySecurePrometheusAnnotation, PrometheusMergeError } from "./prometheus-merge.js";

/** Injection failed for this pod; the message says why (and is what the webhook answers). */
export class InjectionError extends Error {
  override name = "InjectionError";
}

/** The parts of an injector that do not change from pod to pod. */
export interface InjectorSettings {
  /** Compiled templates by name. */
  templates: ReadonlyMap<string, Template>;
  values: InjectionValues;
  /** `COMPLIANCE_POLICY`, e.g. `fips-140-3`. */
  compliancePolicy: string;
  /**
   * Where `getHostByName` looks names up during this run (set by withResolvedNames, host-names.ts);
   * absent: the templates' own host (the library's knows no names).
   */
  lookupHost?: HostLookup;
  /** What meshinject does beyond Istio, when asked (all off by default; docs/istio-parity.md "Extensions"). */
  extensions?: InjectorExtensions;
}

/** The injector's extensions over Istio, each off unless set. */
export type InjectorExtensions = ImageExtensions;

/** One pod's injection request. */
export interface PodInjection {
  pod: Pod;
  /**
   * The pod is typed already ({@link typedPod}, or marshalTyped as a Pod): injectPod then does not
   * type it again. Otherwise injectPod types it first, so that annotation validation and the
   * templates see what Go sees (`sidecar.istio.io/proxyCPU: 1` is "1").
   */
  podTyped?: boolean;
  /** The top-level object's kind and apiVersion (a Deployment's, for its pods). */
  typeMeta: { kind: string; apiVersion: string };
  /** The workload's name and namespace. */
  deployMeta: { name: string; namespace: string };
  meshConfig: MeshConfig;
  /** The effective ProxyConfig for the pod. */
  proxyConfig: ProxyConfig;
  revision: string;
  defaultTemplates: readonly string[];
  aliases: Readonly<Record<string, readonly string[]>>;
  injectedAnnotations: Readonly<Record<string, string>>;
  /** Env for the proxy from the webhook path (ISTIO_META_CLUSTER_ID, ISTIO_META_NETWORK, ...). */
  proxyEnvs: Readonly<Record<string, string>>;
  /** Whether the proxy runs as a native sidecar, before the pod's own annotation says otherwise. */
  nativeSidecar: boolean;
  proxyUID: bigint;
  proxyGID: bigint;
  /** Called with what Istio only logs (a DNS policy the proxy may not work with). */
  warn?: (message: string) => void;
}

const TEMPLATES_ANNOTATION = "inject.istio.io/templates";
/** How Istio's injectPod (webhook.go) wraps what RunTemplate refuses. */
const RUN_TEMPLATE_FAILED = "failed to run injection template";
const NATIVE_ANNOTATION = "sidecar.istio.io/nativeSidecar";
const NETWORK_LABEL = "topology.istio.io/network";

/** Where a pod's parts sit in their document, for messages (`spec.template.metadata`...). */
export interface PodPartPaths {
  metadata: string;
  spec: string;
}

/**
 * The pod as Go decodes it into its typed struct (sigs.k8s.io/yaml, then encoding/json): unknown
 * fields dropped, a YAML bool or number given for a string field made a string (`true` → "true",
 * `1.10` → "1.1"). Everything that decides about or reads the pod (policy, annotation validation,
 * templates) works on this; fields besides metadata and spec (kind, status...) are typed too. A new
 * object; the input is not modified. Throws {@link InjectionError}
 * when a value cannot be decoded; a label or annotation that is a map or a list is named
 * (`spec.template.metadata.annotations["x"] must be a string, got map`).
 */
export function typedPod(pod: PodLike, paths: PodPartPaths = { metadata: "metadata", spec: "spec" }): Pod {
  let typed: Pod;
  try {
    typed = marshalTyped(pod, "Pod") as Pod;
  } catch (e) {
    if (!(e instanceof TypedDecodeError)) throw e;
    throw new InjectionError(stringMapProblem(pod.metadata, paths.metadata) ?? e.message, { cause: e });
  }
  typed.metadata ??= {};
  typed.spec ??= {};
  return typed;
}

/** The first label or annotation value that no string can be decoded from, as a message; or undefined. */
function stringMapProblem(metadata: unknown, path: string): string | undefined {
  if (!isRecord(metadata)) return undefined;
  for (const field of ["labels", "annotations"]) {
    const map = metadata[field];
    if (!isRecord(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      if (typeof value === "object" && value !== null) {
        const kind = Array.isArray(value) ? "list" : "map";
        return `${path}.${field}[${JSON.stringify(key)}] must be a string, got ${kind}`;
      }
    }
  }
  return undefined;
}

/** The template names for a pod: its annotation's list, or the defaults, with aliases expanded. */
export function selectTemplates(req: PodInjection): string[] {
  const annotated = req.pod.metadata.annotations?.[TEMPLATES_ANNOTATION];
  const names = annotated !== undefined ? annotated.split(",").map((n) => n.trim()) : [...req.defaultTemplates];
  return names.flatMap((n) => (Object.hasOwn(req.aliases, n) ? [...(req.aliases[n] as string[])] : [n]));
}

function textOf(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

/** Cluster and network for the proxy: values, overridden by the webhook path, the pod's network label last. */
function clusterEnvs(req: PodInjection, values: Record<string, unknown>): Record<string, string> {
  const envs = { ...req.proxyEnvs };
  let cluster = textOf(valueAt(values, "global.multiCluster.clusterName"));
  let network = textOf(valueAt(values, "global.network"));
  if (envs.ISTIO_META_CLUSTER_ID) cluster = envs.ISTIO_META_CLUSTER_ID;
  if (envs.ISTIO_META_NETWORK) network = envs.ISTIO_META_NETWORK;
  const label = req.pod.metadata.labels?.[NETWORK_LABEL];
  if (label !== undefined) network = label;
  if (cluster !== "") envs.ISTIO_META_CLUSTER_ID = cluster;
  if (network !== "") envs.ISTIO_META_NETWORK = network;
  return envs;
}

function inboundTrafficPolicyMode(mesh: MeshConfig): string {
  return mesh.inboundTrafficPolicy?.mode === "LOCALHOST" ? "localhost" : "passthrough";
}

function render(name: string, template: Template, data: GoValue, lookupHost: HostLookup | undefined): string {
  try {
    return template.execute(data, lookupHost === undefined ? template.host : hostWithLookup(template.host, lookupHost));
  } catch (e) {
    if (e instanceof TemplateError) {
      throw new InjectionError(`${RUN_TEMPLATE_FAILED}: template ${JSON.stringify(name)}: ${e.message}`);
    }
    throw e;
  }
}

/** `namespace/name` of a pod for messages, the name as Istio's potentialPodName gives it. */
function podLabel(pod: Pod): string {
  const { namespace, name, generateName } = pod.metadata as {
    namespace?: string;
    name?: string;
    generateName?: string;
  };
  const podName = name || (generateName ? `${generateName}***** (actual name not yet known)` : "");
  return `${namespace ?? ""}/${podName}`;
}

/** The workload for messages: `namespace/name` of the pod, else of the workload it is the template of. */
function workloadLabel(req: PodInjection): string {
  const { namespace, name } = req.pod.metadata as { namespace?: string; name?: string };
  return `${namespace || req.deployMeta.namespace}/${name || req.deployMeta.name}`;
}

/** A DNS policy other than ClusterFirst may keep the proxy from resolving istiod: said, not refused. */
function checkPreconditions(pod: Pod, warn: ((message: string) => void) | undefined): void {
  const dnsPolicy = (pod.spec as { dnsPolicy?: unknown }).dnsPolicy;
  if (warn === undefined || typeof dnsPolicy !== "string" || dnsPolicy === "" || dnsPolicy === "ClusterFirst") return;
  warn(
    `${JSON.stringify(podLabel(pod))}'s DNSPolicy is not "ClusterFirst". ` +
      "The Envoy sidecar may not able to connect to Istio Pilot\n",
  );
}

/** Injects one pod; returns the injected pod (a new object; the request's pod is not modified). */
export function injectPod(settings: InjectorSettings, request: PodInjection): Pod {
  const req = request.podTyped ? request : { ...request, pod: typedPod(request.pod), podTyped: true };
  const original = req.pod;
  const annotations = original.metadata.annotations ?? {};
  try {
    validateAnnotations(annotations);
  } catch (e) {
    throw new InjectionError(`${RUN_TEMPLATE_FAILED}: ${(e as Error).message}`);
  }
  checkPreconditions(original, req.warn);
  const values = settings.values.json;
  const proxyEnvs = clusterEnvs(req, values);
  const statusPort = Number(req.meshConfig.defaultConfig?.statusPort ?? 0);
  const withoutPrevious = stripPreviousInjection(original, statusPort);
  const stripped = reinsertOverrides(withoutPrevious);

  const imageType = req.proxyConfig.image?.imageType;
  const strippedAnnotations = stripped.metadata.annotations ?? {};
  const data = templateData({
    typeMeta: req.typeMeta,
    deployMeta: req.deployMeta,
    metadata: stripped.metadata,
    spec: stripped.spec,
    // The pod is typed (above); stripping keeps it so, containers put back from the overrides may not be.
    typed: { metadata: true, spec: stripped === withoutPrevious },
    proxyConfig: proxyConfigView(req.proxyConfig),
    meshConfig: meshConfigView(req.meshConfig),
    values: settings.values.go,
    revision: req.revision,
    nativeSidecars: req.nativeSidecar,
    proxyImage: proxyImage(values, imageType, strippedAnnotations, settings.extensions),
    proxyInitImage: proxyInitImage(values, strippedAnnotations, settings.extensions),
    proxyUID: req.proxyUID,
    proxyGID: req.proxyGID,
    inboundTrafficPolicyMode: inboundTrafficPolicyMode(req.meshConfig),
    compliancePolicy: settings.compliancePolicy,
  });

  // The original is typed: the first merge works on a copy of it, later merges on their own typed results.
  let merged: Pod = original;
  let mergedOwn = false;
  // What the templates alone make: the first one's is shared between pods (frozen), later merges copy it.
  let templatePod: Pod = { metadata: {}, spec: {} };
  let templateCount = 0;
  const native =
    annotations[NATIVE_ANNOTATION] === "true" || (req.nativeSidecar && annotations[NATIVE_ANNOTATION] !== "false");
  for (const name of selectTemplates(req)) {
    const template = settings.templates.get(name);
    if (template === undefined) {
      const known = [...settings.templates.keys()].join(", ");
      throw new InjectionError(
        `${RUN_TEMPLATE_FAILED}: requested template ${JSON.stringify(name)} not found; have ${known}`,
      );
    }
    const overlay = readOverlay(render(name, template, data, settings.lookupHost), name);
    templatePod =
      templateCount === 0
        ? templatePodOf(overlay, name)
        : applyOverlayObject(templatePod, overlay, name, templateCount > 1);
    templateCount++;
    // A native sidecar lives in initContainers; a customisation the user wrote in containers moves with it.
    if (
      native &&
      findContainer(PROXY_CONTAINER, templatePod.spec.initContainers) !== undefined &&
      findContainer(PROXY_CONTAINER, merged.spec.containers) !== undefined
    ) {
      merged = moveProxy(merged, "containers", "initContainers");
    }
    // Never the other way (as in Istio): a later template adding `containers: [istio-proxy]` beside a
    // native proxy (Istio's `spire`) gets both, and so does re-injecting a native sidecar without it.
    merged = applyOverlayObject(mergedOwn ? merged : clone(merged), overlay, name, true);
    mergedOwn = true;
  }
  if (merged === original) merged = clone(original);

  merged = reapplyUserContainers(merged, original, templatePod, req.proxyConfig.interceptionMode === "TPROXY");

  overwriteClusterInfo(merged, proxyEnvs);
  try {
    applyPrometheusMerge(merged, statusPort, req.meshConfig.enablePrometheusMerge, (message) =>
      req.warn?.(`${workloadLabel(req)}: ${message}`),
    );
  } catch (e) {
    if (e instanceof PrometheusMergeError) throw new InjectionError(`failed to process pod: ${e.message}`);
    throw e;
  }
  applySecurePrometheusAnnotation(merged);
  const rewriteDefault = valueAt(values, "sidecarInjectorWebhook.rewriteAppHTTPProbe");
  rewriteAppProbes(merged, statusPort, rewriteDefault === true);
  applyMetadata(merged, templatePod, req.revision, proxyEnvs, req.injectedAnnotations);
  reorderContainers(merged, holdApplication(req, values));
  return merged;
}

/** Whether the app waits for the proxy: the mesh default (with the pod's proxy config applied) or the values. */
function holdApplication(req: PodInjection, values: Record<string, unknown>): boolean {
  const fromValues = valueAt(values, "global.proxy.holdApplicationUntilProxyStarts");
  const valuesHold = typeof fromValues === "boolean" ? fromValues : parseBool(textOf(fromValues)) === true;
  return req.proxyConfig.holdApplicationUntilProxyStarts === true || valuesHold;
}
