/**
 * The user's own say over the injected containers, and re-injection:
 * - a container the pod already has under an injected name (typically `istio-proxy`) is merged back
 *   over the injected one, so settings written in the pod win over the template (`image: auto`
 *   keeps the injected image); the overrides are recorded in an annotation for re-injection;
 * - a pod injected before has what that injection added removed first, so injecting is idempotent.
 */

import { isRecord } from "../go/json.js";
import { marshalTyped } from "../kube/typed.js";
import { applyContainer, applyInitContainer } from "./overlay.js";
import {
  type Container,
  clone,
  decodeInjectionStatus,
  findContainer,
  findPodContainer,
  goJSON,
  INIT_CONTAINER,
  OVERRIDES_ANNOTATION,
  type Pod,
  PROXY_CONTAINER,
  parseInjectionStatus,
  placeContainer,
  STATUS_ANNOTATION,
  VALIDATION_CONTAINER,
} from "./pod.js";
import { clearAgentScrapeAnnotations } from "./prometheus-merge.js";

/** The special image that means "keep the injected image". */
export const AUTO_IMAGE = "auto";

/** The user's own containers under injected names, as recorded in the overrides annotation. */
export interface ParsedOverrides {
  containers: Container[];
  initContainers: Container[];
}

/** Reads the overrides annotation; a malformed one is an error naming the annotation. */
export function readOverrides(pod: Pod): ParsedOverrides {
  const text = pod.metadata.annotations?.[OVERRIDES_ANNOTATION];
  if (text === undefined) return { containers: [], initContainers: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`annotation ${OVERRIDES_ANNOTATION}: invalid JSON: ${(e as Error).message}`);
  }
  const list = (v: unknown): Container[] => (Array.isArray(v) ? v.filter(isRecord) : []) as Container[];
  return isRecord(parsed)
    ? { containers: list(parsed.containers), initContainers: list(parsed.initContainers) }
    : { containers: [], initContainers: [] };
}

/**
 * The pod without what a previous injection added (by its status annotation; a status that does
 * not decode strips nothing). Istio: pkg/kube/inject/inject.go stripPod.
 */
export function stripPreviousInjection(pod: Pod, statusPort: number): Pod {
  const status = decodeInjectionStatus(pod);
  if (status === undefined) return pod;
  const out = clone(pod);
  for (const name of status.containers ?? []) out.spec.containers = placeContainer(out.spec.containers, name, "remove");
  for (const name of status.initContainers ?? []) {
    out.spec.initContainers = placeContainer(out.spec.initContainers, name, "remove");
  }
  clearAgentScrapeAnnotations(out, statusPort);
  if (out.metadata.annotations) delete out.metadata.annotations[STATUS_ANNOTATION];
  return out;
}

/** Puts recorded overrides back into a stripped pod, so templates see the containers the user wrote. */
export function reinsertOverrides(pod: Pod): Pod {
  const overrides = readOverrides(pod);
  if (overrides.containers.length === 0 && overrides.initContainers.length === 0) return pod;
  const out = clone(pod);
  const missing = (list: Container[], present: Container[] | null | undefined) =>
    list.filter((c) => findContainer(c.name, present) === undefined);
  out.spec.containers = [...(out.spec.containers ?? []), ...missing(overrides.containers, out.spec.containers)];
  out.spec.initContainers = [
    ...(out.spec.initContainers ?? []),
    ...missing(overrides.initContainers, out.spec.initContainers),
  ];
  return out;
}

function overlayOf(match: Container): Container {
  const overlay = clone(match);
  if (overlay.image === AUTO_IMAGE) overlay.image = "";
  return overlay;
}

/**
 * Merges the user's versions of injected containers back over the injected pod. A container the
 * previous injection's status lists is skipped: on re-injection the template's fresh container wins
 * (so env such as ISTIO_META_APP_CONTAINERS is computed anew); the recorded overrides reach the
 * templates through {@link reinsertOverrides} only. Istio: pkg/kube/inject/webhook.go
 * reapplyOverwrittenContainers.
 * @param finalPod the typed pod after the templates were merged in (given up: it is merged into in place)
 * @param originalPod the pod as received
 * @param templatePod what the templates alone produced
 * @param tproxy whether the proxy intercepts in TPROXY mode (its uid must stay 0 then)
 */
export function reapplyUserContainers(finalPod: Pod, originalPod: Pod, templatePod: Pod, tproxy: boolean): Pod {
  const existing = readOverrides(originalPod);
  const status = parseInjectionStatus(originalPod);
  const alreadyInjected = status !== undefined;
  const recorded: ParsedOverrides = { containers: [], initContainers: [] };
  let pod = finalPod;
  for (const c of templatePod.spec.containers ?? []) {
    if (status?.containers?.includes(c.name)) continue;
    const match = findContainer(c.name, existing.containers) ?? findContainer(c.name, originalPod.spec.containers);
    if (match === undefined) continue;
    const overlay = overlayOf(match);
    recorded.containers.push(overlay);
    pod = applyContainer(pod, overlay, true);
  }
  for (const c of templatePod.spec.initContainers ?? []) {
    if (status?.initContainers?.includes(c.name)) continue;
    const match = findContainer(c.name, existing.initContainers) ?? findPodContainer(c.name, originalPod);
    if (match === undefined) continue;
    const overlay = overlayOf(match);
    recorded.initContainers.push(overlay);
    pod = applyInitContainer(pod, overlay, true);
  }
  if (!alreadyInjected && (recorded.containers.length > 0 || recorded.initContainers.length > 0)) {
    const value: Record<string, unknown> = {};
    const typed = (list: Container[]) => list.map((c) => marshalTyped(c, "Container"));
    if (recorded.containers.length > 0) value.containers = typed(recorded.containers);
    if (recorded.initContainers.length > 0) value.initContainers = typed(recorded.initContainers);
    pod.metadata.annotations ??= {};
    pod.metadata.annotations[OVERRIDES_ANNOTATION] = goJSON(value);
  }
  // The pod's own istio-proxy as received (on re-injection, the one the last injection left).
  adjustInitContainerUser(pod, findPodContainer(PROXY_CONTAINER, originalPod), tproxy);
  return pod;
}

interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
}

/**
 * When the user's istio-proxy sets its own uid/gid, the traffic setup must agree: the validation
 * container runs as that user, and iptables' `-u` owner exception names that uid (never 0). In
 * TPROXY mode the proxy itself must keep uid 0.
 */
function adjustInitContainerUser(pod: Pod, user: Container | undefined, tproxyMode: boolean): void {
  const userSc = user?.securityContext as SecurityContext | undefined;
  if (userSc === undefined || (userSc.runAsUser === undefined && userSc.runAsGroup === undefined)) return;
  const init =
    findContainer(INIT_CONTAINER, pod.spec.initContainers) ??
    findContainer(VALIDATION_CONTAINER, pod.spec.initContainers);
  if (init === undefined) return;
  const tproxy = tproxyMode || pod.metadata.annotations?.["sidecar.istio.io/interceptionMode"] === "TPROXY";
  if (tproxy && userSc.runAsUser !== undefined) {
    const sidecar = findPodContainer(PROXY_CONTAINER, pod);
    const sc = sidecar?.securityContext as SecurityContext | undefined;
    if (sc !== undefined) sc.runAsUser = 0;
  }
  if (!tproxy && init.name === VALIDATION_CONTAINER) {
    init.securityContext ??= {};
    const sc = init.securityContext as SecurityContext;
    if (userSc.runAsUser !== undefined) sc.runAsUser = userSc.runAsUser;
    if (userSc.runAsGroup !== undefined) sc.runAsGroup = userSc.runAsGroup;
  }
  if (userSc.runAsUser === undefined || userSc.runAsUser === 0) return;
  const args = init.args as string[] | undefined;
  const at = args?.indexOf("-u") ?? -1;
  if (args !== undefined && at >= 0 && at + 1 < args.length) args[at + 1] = String(userSc.runAsUser);
}

/** A pod's two container lists. */
export type ContainerList = "containers" | "initContainers";

/**
 * Moves istio-proxy from one container list of the pod to the end of the other (no change when it
 * is not in `from`): when the proxy becomes a native sidecar, a user-written istio-proxy moves from
 * containers to init containers. Istio: pkg/kube/inject/webhook.go moveContainer.
 */
export function moveProxy(pod: Pod, from: ContainerList, to: ContainerList): Pod {
  const proxy = findContainer(PROXY_CONTAINER, pod.spec[from]);
  if (proxy === undefined) return pod;
  const out = clone(pod);
  out.spec[from] = placeContainer(out.spec[from], PROXY_CONTAINER, "remove");
  out.spec[to] = [...(out.spec[to] ?? []), clone(proxy)];
  return out;
}
