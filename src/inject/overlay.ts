/**
 * Applying a rendered template (or a single container) over a pod with Kubernetes strategic-merge
 * semantics, through the typed Pod shape on both sides, as Istio does: the pod is marshalled as a
 * typed Pod, the overlay merged in, and the result read back as a typed Pod (unknown fields drop).
 */

import { readYaml } from "../go/yaml/read.js";
import { StrategicMergeError, strategicMergeInto } from "../kube/strategic-merge.js";
import { marshalTyped } from "../kube/typed.js";
import type { Container, Pod } from "./pod.js";

export class OverlayError extends Error {
  override name = "OverlayError";
}

function asPod(v: unknown): Pod {
  const typed = marshalTyped(v, "Pod") as Pod;
  typed.metadata ??= {};
  typed.spec ??= {};
  return typed;
}

/**
 * Merges an overlay (a Pod-shaped object) over a pod. With `typedTarget`, the target is a typed pod
 * (what the functions here return) that the caller gives up: it is merged in place instead of being
 * marshalled again (marshalling a typed pod gives it back unchanged). Otherwise it is not modified.
 */
export function applyOverlay(target: Pod, overlay: unknown, typedTarget = false): Pod {
  const typed = typedTarget ? target : (marshalTyped(target, "Pod") as Pod);
  return asPod(strategicMergeInto(typed, overlay ?? {}, "Pod"));
}

/**
 * Texts read lately, oldest first, with their overlays from the second reading on. The pods of one
 * workload (a Deployment's replicas, every pod of a rollout) render the same text, so a webhook
 * reads each text at most twice; the overlays kept are frozen, as the merge only reads them (it
 * copies the patch it applies). A text read once keeps only itself: a pod never seen again leaves
 * no object graph alive for the garbage collector to promote and trace.
 */
const recentOverlays = new Map<string, unknown>();
const RECENT_OVERLAYS = 16;
const READ_ONCE: unique symbol = Symbol("read once");

function deepFreeze(v: unknown): unknown {
  if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
    for (const item of Object.values(v)) deepFreeze(item);
    Object.freeze(v);
  }
  return v;
}

/**
 * Reads rendered template text (YAML) into the overlay that {@link applyOverlayObject} lays over a
 * pod. `what` names the template in errors. The merge never modifies the result, so one parse
 * serves several pods: a text read lately a second time is not read again (its overlay is frozen).
 */
export function readOverlay(yamlText: string, what: string): unknown {
  const seen = recentOverlays.has(yamlText);
  const kept = seen ? recentOverlays.get(yamlText) : READ_ONCE;
  const overlay = kept === READ_ONCE ? parseOverlay(yamlText, what) : kept;
  // Most recently used last: the oldest goes first when the map is full.
  if (seen) recentOverlays.delete(yamlText);
  else if (recentOverlays.size >= RECENT_OVERLAYS) recentOverlays.delete(recentOverlays.keys().next().value as string);
  recentOverlays.set(yamlText, seen ? deepFreeze(overlay) : READ_ONCE);
  return overlay;
}

function parseOverlay(yamlText: string, what: string): unknown {
  let overlay: unknown;
  try {
    overlay = readYaml(yamlText);
  } catch (e) {
    throw new OverlayError(`template ${JSON.stringify(what)} rendered invalid YAML: ${(e as Error).message}`);
  }
  if (overlay !== null && overlay !== undefined && (typeof overlay !== "object" || Array.isArray(overlay))) {
    throw new OverlayError(`template ${JSON.stringify(what)} must render a Pod (a map), got ${typeof overlay}`);
  }
  return overlay;
}

/** The pod each overlay alone makes (merged over an empty pod), frozen; overlays of one text are one object. */
const templatePods = new WeakMap<object, Pod>();

/**
 * What a template's overlay alone makes of an empty pod (typed). For an overlay that
 * {@link readOverlay} keeps (frozen: one object per text), worked out once and frozen too.
 */
export function templatePodOf(overlay: unknown, what: string): Pod {
  if (typeof overlay !== "object" || overlay === null || !Object.isFrozen(overlay)) {
    return applyOverlayObject(emptyPod(), overlay, what);
  }
  let pod = templatePods.get(overlay);
  if (pod === undefined) {
    pod = deepFreeze(applyOverlayObject(emptyPod(), overlay, what)) as Pod;
    templatePods.set(overlay, pod);
  }
  return pod;
}

function emptyPod(): Pod {
  return { metadata: {}, spec: {} };
}

/**
 * Merges an overlay read by {@link readOverlay} over a pod. `what` names the template in errors;
 * `typedTarget` as for {@link applyOverlay}.
 */
export function applyOverlayObject(target: Pod, overlay: unknown, what: string, typedTarget = false): Pod {
  try {
    return applyOverlay(target, overlay, typedTarget);
  } catch (e) {
    const message = e instanceof StrategicMergeError ? e.goMessage : (e as Error).message;
    throw new OverlayError(`template ${JSON.stringify(what)}: strategic merge: ${message}`);
  }
}

/** Merges rendered template text (YAML) over a pod. `what` names the template in errors. */
export function applyOverlayYaml(target: Pod, yamlText: string, what: string): Pod {
  return applyOverlayObject(target, readOverlay(yamlText, what), what);
}

/**
 * Merges one container over the pod's container of the same name. The overlay is a typed Pod, so
 * empty fields (an `image: auto` turned into "") are left out rather than merged in.
 */
export function applyContainer(target: Pod, container: Container, typedTarget = false): Pod {
  return applyOverlay(target, marshalTyped({ spec: { containers: [container] } }, "Pod"), typedTarget);
}

/** Merges one container over the pod's init container of the same name (`typedTarget` as for {@link applyOverlay}). */
export function applyInitContainer(target: Pod, container: Container, typedTarget = false): Pod {
  // An explicit empty containers list: a missing one would read as null and delete them all.
  const overlay = marshalTyped({ spec: { containers: [], initContainers: [container] } }, "Pod");
  return applyOverlay(target, overlay, typedTarget);
}
