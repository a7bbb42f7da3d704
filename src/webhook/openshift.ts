/**
 * OpenShift specifics of the webhook (Istio: pkg/kube/inject/openshift.go and webhook.go).
 *
 * OpenShift preallocates to every namespace a block of user ids and of supplemental group ids, and
 * records them as annotations (`openshift.io/sa.scc.uid-range`, `openshift.io/sa.scc.supplemental-groups`).
 * A block is written `start/size` or `start-end`; the supplemental groups may list several, separated
 * by commas. The proxy runs as the last id of the namespace's blocks, so that it is both allowed by
 * the namespace's SCC and distinct from the app, which runs as the first.
 *
 * OpenShift also gives every container of a pod the same runAsUser; an `istio-proxy` container the
 * user declared in the pod then carries the app's uid, which would defeat the traffic capture (it
 * exempts the proxy's uid). Such a uid is dropped before injection, so the template's one applies.
 */

import { type Container, type Pod, PROXY_CONTAINER } from "../inject/pod.js";

/** The parts of a Namespace this file reads. */
export interface NamespaceLike {
  metadata?: { name?: string; annotations?: Record<string, string> | null } | null;
}

export const UID_RANGE_ANNOTATION = "openshift.io/sa.scc.uid-range";
export const SUPPLEMENTAL_GROUPS_ANNOTATION = "openshift.io/sa.scc.supplemental-groups";

/** Istio's proxy uid and gid when nothing says otherwise. */
export const DEFAULT_PROXY_ID = 1337n;

/** An inclusive range of ids. */
export interface IdBlock {
  start: bigint;
  end: bigint;
}

export class IdBlockError extends Error {
  override name = "IdBlockError";
}

const UINT32_MAX = 0xffff_ffffn;

/**
 * Reads one decimal uint32 at `at` after optional spaces (as Go's `fmt.Sscanf("%d")` into a uint32
 * does: no sign, overflow is an error); returns the value and the index after it.
 */
function scanUint32(text: string, at: number, block: string): [bigint, number] {
  let i = at;
  while (text[i] === " " || text[i] === "\t") i++;
  const digits = /^\d+/.exec(text.slice(i))?.[0];
  if (digits === undefined) throw new IdBlockError(`block ${JSON.stringify(block)}: expected a number`);
  const value = BigInt(digits);
  if (value > UINT32_MAX) throw new IdBlockError(`block ${JSON.stringify(block)}: ${digits} overflows uint32`);
  return [value, i + digits.length];
}

/**
 * Parses `start/size` (end = start + size - 1, in uint32 arithmetic as OpenShift's library does) or
 * `start-end`. Text after the second number is ignored, as `Sscanf` ignores it.
 */
export function parseIdBlock(text: string): IdBlock {
  const slash = text.includes("/");
  const separator = slash ? "/" : "-";
  const [start, afterStart] = scanUint32(text, 0, text);
  if (text[afterStart] !== separator) {
    throw new IdBlockError(
      `block ${JSON.stringify(text)} is not in the format "<start>${separator}${slash ? "<size>" : "<end>"}"`,
    );
  }
  const [second] = scanUint32(text, afterStart + 1, text);
  return { start, end: slash ? BigInt.asUintN(32, start + second - 1n) : second };
}

function annotationsOf(ns: NamespaceLike): Record<string, string> {
  return ns.metadata?.annotations ?? {};
}

/** The namespace's uid block, or undefined when it has no (or an unreadable) uid-range annotation. */
export function uidRange(ns: NamespaceLike): IdBlock | undefined {
  const value = annotationsOf(ns)[UID_RANGE_ANNOTATION];
  if (value === undefined || value === "") return undefined;
  try {
    return parseIdBlock(value);
  } catch {
    return undefined;
  }
}

/**
 * The namespace's supplemental group blocks: from the supplemental-groups annotation, or the
 * uid-range one when that annotation is absent; undefined when neither is usable (an empty or bad
 * supplemental-groups annotation does not fall back).
 */
export function supplementalGroups(ns: NamespaceLike): IdBlock[] | undefined {
  const annotations = annotationsOf(ns);
  const value = annotations[SUPPLEMENTAL_GROUPS_ANNOTATION] ?? annotations[UID_RANGE_ANNOTATION];
  if (value === undefined || value === "") return undefined;
  try {
    return value.split(",").map(parseIdBlock);
  } catch {
    return undefined;
  }
}

/**
 * The proxy's uid and gid for a pod of the namespace (Istio's GetProxyIDs): the end of the uid
 * range, the end of the first supplemental group block; 1337 for what is unknown.
 */
export function proxyIds(ns: NamespaceLike | undefined): { uid: bigint; gid: bigint } {
  if (ns === undefined) return { uid: DEFAULT_PROXY_ID, gid: DEFAULT_PROXY_ID };
  return {
    uid: uidRange(ns)?.end ?? DEFAULT_PROXY_ID,
    gid: supplementalGroups(ns)?.[0]?.end ?? DEFAULT_PROXY_ID,
  };
}

/** Containers the injection adds besides the proxy: not the app's. */
const INJECTED_HELPERS = new Set(["istio-validation", "istio-init"]);

function securityContextOf(c: Container): Record<string, unknown> | undefined {
  const sc = c.securityContext;
  return typeof sc === "object" && sc !== null && !Array.isArray(sc) ? (sc as Record<string, unknown>) : undefined;
}

function runAsUserOf(c: Container): unknown {
  return securityContextOf(c)?.runAsUser ?? undefined;
}

/**
 * Whether the pod's `istio-proxy` runs as the app's user (Istio's isSidecarUserMatchingAppUser):
 * over containers then init containers, each side's value is the last one set (0 when none is).
 */
export function sidecarUserMatchesApp(pod: Pod): boolean {
  const all = [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])];
  let sidecar: unknown = 0;
  let app: unknown = 0;
  for (const c of all) {
    const user = runAsUserOf(c);
    if (user === undefined || user === null) continue;
    if (c.name === PROXY_CONTAINER) sidecar = user;
    else if (!INJECTED_HELPERS.has(c.name)) app = user;
  }
  return Number(sidecar) === Number(app);
}

/**
 * Drops runAsUser and runAsGroup from the user's `istio-proxy` container (the first by that name,
 * in containers then init containers) when it has a securityContext and its user is the app's.
 * Mutates `pod`; returns whether it changed anything.
 */
export function dropSidecarUserMatchingApp(pod: Pod): boolean {
  const proxy = [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])].find(
    (c) => c.name === PROXY_CONTAINER,
  );
  const sc = proxy === undefined ? undefined : securityContextOf(proxy);
  if (sc === undefined || !sidecarUserMatchesApp(pod)) return false;
  const changed = "runAsUser" in sc || "runAsGroup" in sc;
  delete sc.runAsUser;
  delete sc.runAsGroup;
  return changed;
}
