/**
 * One admission review: AdmissionReview (admission.k8s.io/v1 or v1beta1) in, AdmissionReview out,
 * with a JSONPatch that turns the received pod into the injected pod. Pure and total: it never
 * throws; every input, however malformed, gets a well-formed answer and an {@link Outcome}.
 *
 * The steps follow Istio's webhook (pkg/kube/inject/webhook.go, `inject`): read the Pod as its
 * typed struct, drop managedFields (large, and irrelevant to injection), default the namespace from
 * the request, decide by policy (a skip is `allowed: true` without a patch), compute the pod's
 * ProxyConfig (mesh default config with the pod's `proxy.istio.io/config` annotation, the mesh
 * itself unchanged), find the workload the pod belongs to, inject with the webhook's parameters
 * (the config's default templates, aliases and injected annotations, the revision, proxy env from
 * the URL path, proxy UID/GID 1337), and answer the JSON patch from the typed pod to the injected one.
 *
 * On OpenShift (`platform: "openshift"`), the proxy UID/GID come from the pod's namespace
 * (src/webhook/openshift.ts), and a user-declared `istio-proxy` running as the app's user loses
 * that user before injection. The patch still starts from the pod as received.
 */

import { isRecord } from "../go/json.js";
import { type InjectorSettings, injectPod } from "../inject/inject.js";
import type { LoadedInjector } from "../inject/injector.js";
import type { Pod } from "../inject/pod.js";
import { injectionDecision, parseInjectEnvs } from "../inject/policy.js";
import { checkPatchApplies, cloneJson, createPatch } from "../kube/json-patch.js";
import { oneLine } from "../kube/one-line.js";
import { marshalTyped } from "../kube/typed.js";
import { deployMetaFromPod } from "../kube/workloads.js";
import { podProxyConfig } from "../mesh/index.js";
import type { HostLookup } from "../template/index.js";
import { type BadRequest, type PodRequest, readPodRequest, reviewEnvelope } from "./admission-request.js";
import { dropSidecarUserMatchingApp, type NamespaceLike, proxyIds } from "./openshift.js";
import type { Outcome } from "./outcome.js";
import { strictPodError } from "./strict-pod.js";

/** What the webhook holds between requests. */
export interface WebhookState {
  injector: LoadedInjector;
  /** The control-plane revision; "" for the default. */
  revision: string;
  /** Native sidecars: "auto" means on only when `kubeletMinorVersion` is known and at least 33. */
  nativeSidecars: "on" | "off" | "auto";
  /** The lowest kubelet minor version in the cluster, when known (for `nativeSidecars: "auto"`). */
  kubeletMinorVersion?: number;
  /** `COMPLIANCE_POLICY`, e.g. `fips-140-3`; when given, it overrides the injector settings' value. */
  compliancePolicy?: string;
  /** Istio's `PLATFORM`; only OpenShift changes the injection. */
  platform?: "openshift";
  /** The Namespace of a name, when known (read on OpenShift for the proxy UID/GID). */
  namespace?: (name: string) => NamespaceLike | undefined;
  /** Where the templates' `getHostByName` looks names up (inject-handler.ts resolves them); absent: nowhere. */
  lookupHost?: HostLookup;
}

export interface ReviewResult {
  /** The AdmissionReview to send back (serialise with JSON.stringify). */
  response: Record<string, unknown>;
  outcome: Outcome;
  /** `namespace/name` of the pod for logs (`name` is `generateName***` before the name is known); "" if unknown. */
  pod?: string;
  /**
   * What Istio logs as warnings while deciding, e.g. that an invalid `sidecar.istio.io/inject`
   * value falls back to the default policy; absent when there is nothing to say.
   */
  warnings?: string[];
}

/** The minimum kubelet minor version whose native sidecars Istio uses by default. */
const NATIVE_SIDECAR_MIN_MINOR = 33;

/** Whether proxies are injected as native sidecars (before a pod's own annotation says otherwise). */
export function nativeSidecarsEnabled(state: Pick<WebhookState, "nativeSidecars" | "kubeletMinorVersion">): boolean {
  if (state.nativeSidecars === "on") return true;
  if (state.nativeSidecars === "off") return false;
  const minor = state.kubeletMinorVersion;
  return typeof minor === "number" && Number.isFinite(minor) && minor >= NATIVE_SIDECAR_MIN_MINOR;
}

/** The pod's name for logs: its name, or its generateName marked as not yet known. */
export function potentialPodName(metadata: Record<string, unknown>): string {
  if (typeof metadata.name === "string" && metadata.name !== "") return metadata.name;
  if (typeof metadata.generateName === "string" && metadata.generateName !== "") {
    return `${metadata.generateName}***** (actual name not yet known)`;
  }
  return "";
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function deny(apiVersion: string, uid: string, message: string, outcome: Outcome, pod = ""): ReviewResult {
  return { response: reviewEnvelope(apiVersion, { uid, allowed: false, status: { message } }), outcome, pod };
}

/** The answer to a body that is no usable review: `allowed: false` with the reason. */
export function refuseBadRequest(request: BadRequest): ReviewResult {
  return deny(request.apiVersion, request.uid, request.reason, { kind: "invalid", reason: request.reason });
}

/** Answers one AdmissionReview body (parsed JSON, not yet read): {@link review} once it is read. */
export function reviewBody(body: unknown, path: string, state: WebhookState): ReviewResult {
  const request = readPodRequest(body);
  return request.ok ? review(request, path, state) : refuseBadRequest(request);
}

/** Answers one review request; `path` is the request path (`/inject/cluster/X/net/Y`...). Never throws. */
export function review(request: PodRequest, path: string, state: WebhookState): ReviewResult {
  const { apiVersion, uid } = request;

  let original: Pod;
  try {
    const strict = strictPodError(request.object);
    if (strict !== undefined) throw new Error(strict);
    // A metadata that is not an object goes to marshalling as it is, which reports it.
    const received = request.object.metadata;
    const { managedFields: _dropped, ...metadata } = isRecord(received) ? received : {};
    original = marshalTyped({ ...request.object, metadata: isRecord(received) ? metadata : received }, "Pod") as Pod;
  } catch (e) {
    const message = `could not decode the Pod: ${messageOf(e)}`;
    return deny(apiVersion, uid, message, { kind: "invalid", reason: message });
  }
  if (typeof original.metadata.namespace !== "string" || original.metadata.namespace === "") {
    if (request.namespace !== "") original.metadata.namespace = request.namespace;
  }
  const namespace = typeof original.metadata.namespace === "string" ? original.metadata.namespace : "";
  const pod = `${namespace}/${potentialPodName(original.metadata)}`;

  try {
    const { config, settings, meshConfig } = state.injector;
    const decision = injectionDecision(original, config);
    const logged = [...decision.warnings];
    const warnings = logged.length > 0 ? { warnings: logged } : {};
    if (!decision.inject) {
      return {
        response: reviewEnvelope(apiVersion, { uid, allowed: true }),
        outcome: { kind: "skipped", reason: decision.reason },
        pod,
        ...warnings,
      };
    }
    const deploy = deployMetaFromPod(original);
    // injectPod does not modify the pod it is given; only OpenShift's trimming needs a copy.
    let working = original;
    let ids = proxyIds(undefined);
    if (state.platform === "openshift") {
      ids = proxyIds(lookupNamespace(state, namespace));
      working = cloneJson(original);
      dropSidecarUserMatchingApp(working);
    }
    const injected = injectPod(webhookSettings(settings, state), {
      pod: working,
      podTyped: true, // marshalled above (and only trimmed for OpenShift since)
      typeMeta: deploy.typeMeta,
      deployMeta: { name: deploy.name, namespace: deploy.namespace },
      meshConfig,
      proxyConfig: podProxyConfig(meshConfig, original.metadata.annotations),
      revision: state.revision,
      defaultTemplates: config.defaultTemplates,
      aliases: config.aliases,
      injectedAnnotations: config.injectedAnnotations ?? {},
      proxyEnvs: parseInjectEnvs(path),
      nativeSidecar: nativeSidecarsEnabled(state),
      proxyUID: ids.uid,
      proxyGID: ids.gid,
      // What Istio logs while injecting (a DNS policy, an unparsable scrape-targets annotation).
      warn: (message) => logged.push(message.trimEnd()),
    });
    const patch = createPatch(original, marshalTyped(injected, "Pod"));
    // The API server applies the patch to the object it sent, not to our typed reading of it
    // (checked without modifying the object or writing out the patched one).
    try {
      checkPatchApplies(request.object, patch);
    } catch (e) {
      throw new Error(`the injection patch does not apply to the Pod as sent: ${messageOf(e)}`);
    }
    return {
      response: reviewEnvelope(apiVersion, {
        uid,
        allowed: true,
        patchType: "JSONPatch",
        patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
      }),
      outcome: { kind: "injected" },
      pod,
      ...(logged.length > 0 ? { warnings: logged } : {}),
    };
  } catch (e) {
    // One line (Go's "1 error occurred:\n\t* ..." list joined): kubectl shows it after "denied the request:".
    const message = oneLine(messageOf(e));
    return deny(apiVersion, uid, message, { kind: "failed", reason: message }, pod);
  }
}

/** The pod's Namespace from the state's lookup; a lookup that throws counts as unknown. */
function lookupNamespace(state: WebhookState, name: string): NamespaceLike | undefined {
  if (state.namespace === undefined || name === "") return undefined;
  try {
    return state.namespace(name);
  } catch {
    return undefined;
  }
}

/** The injector settings, with the state's compliance policy when it names one and its host lookups. */
function webhookSettings(settings: InjectorSettings, state: WebhookState): InjectorSettings {
  const policy =
    state.compliancePolicy === undefined || state.compliancePolicy === settings.compliancePolicy
      ? {}
      : { compliancePolicy: state.compliancePolicy };
  const lookups = state.lookupHost === undefined ? {} : { lookupHost: state.lookupHost };
  return { ...settings, ...policy, ...lookups };
}
