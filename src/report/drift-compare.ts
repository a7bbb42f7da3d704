/**
 * Comparing the pod that runs with the pod today's injector would make of it (`meshinject drift`):
 * what the API server added after the webhook answered is set aside, and what differs is summed up
 * in a few words per part (proxy image, args, env, resources, volumes, init containers,
 * annotations), with the whole unified diff on request. Pure.
 *
 * The API server defaults fields of every container the webhook added (terminationMessagePath,
 * imagePullPolicy, a probe's periodSeconds, a port's protocol, a volume's defaultMode...) and the
 * ServiceAccount admission plugin mounts the token volume into each of them. A re-injection has
 * none of that, so a field of the running pod that the re-injection leaves out counts as the API
 * server's when it is one of those defaulted fields, and the token mount as the admission plugin's.
 */

import { isRecord } from "../go/json.js";
import { canonicalQuantity } from "../go/quantity.js";
import { writeYaml } from "../go/yaml/write.js";
import type { Json } from "../inject/pod.js";
import { objectDiff } from "../kube/document-diff.js";
import { jsonEqual } from "../kube/json-patch.js";

/**
 * Fields the API server sets when a pod is created and the object leaves them out (Kubernetes'
 * SetDefaults_Container, _ContainerPort, _Probe, _HTTPGetAction, _ObjectFieldSelector and the
 * volume sources' defaultMode; PodSpec defaults a re-injection carries over from the pod anyway).
 */
const DEFAULTED_FIELDS = new Set([
  "terminationMessagePath",
  "terminationMessagePolicy",
  "imagePullPolicy",
  "protocol",
  "timeoutSeconds",
  "periodSeconds",
  "successThreshold",
  "failureThreshold",
  "scheme",
  "defaultMode",
  "apiVersion",
]);

/** The ServiceAccount admission plugin's token mount (`kube-api-access-xxxxx`), added to every container. */
const TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
const isTokenMount = (v: unknown) =>
  isRecord(v) &&
  (v.mountPath === TOKEN_MOUNT_PATH || (typeof v.name === "string" && v.name.startsWith("kube-api-access-")));

/** The list element of `list` with the same `name` as `item` (list elements are keyed by name). */
function sameNamed(list: readonly unknown[], item: unknown): unknown {
  if (!isRecord(item) || typeof item.name !== "string") return undefined;
  return list.find((x) => isRecord(x) && x.name === item.name);
}

/** A quantity in its canonical form (the API server stores `0.5` as `500m`), else the value itself. */
function canonical(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return canonicalQuantity(v);
  } catch {
    return v;
  }
}

/**
 * `running` without what the API server added that `wanted` does not have: defaulted fields, token
 * mounts; quantities under `resources` written canonically on both sides. Returns [running, wanted]
 * as they should be compared.
 */
export function withoutServerDefaults(running: unknown, wanted: unknown, inResources = false): [unknown, unknown] {
  if (Array.isArray(running) && Array.isArray(wanted)) {
    const kept = running.filter((r) => !(isTokenMount(r) && sameNamed(wanted, r) === undefined));
    const keyed = [...kept, ...wanted].every((x) => isRecord(x) && typeof x.name === "string");
    if (keyed) {
      const pair = (r: unknown, w: unknown) => withoutServerDefaults(r, w, inResources);
      return [
        kept.map((r) => {
          const w = sameNamed(wanted, r);
          return w === undefined ? r : pair(r, w)[0];
        }),
        wanted.map((w) => {
          const r = sameNamed(kept, w);
          return r === undefined ? w : pair(r, w)[1];
        }),
      ];
    }
    const pairs = kept.map((r, i) => (i < wanted.length ? withoutServerDefaults(r, wanted[i], inResources) : [r]));
    return [
      pairs.map((p) => p[0]),
      [...pairs.filter((p) => p.length === 2).map((p) => p[1]), ...wanted.slice(kept.length)],
    ];
  }
  if (!isRecord(running) || !isRecord(wanted)) {
    return inResources ? [canonical(running), canonical(wanted)] : [running, wanted];
  }
  const a: Json = {};
  const b: Json = {};
  for (const [k, v] of Object.entries(running)) {
    if (!Object.hasOwn(wanted, k)) {
      const onlyTokenMounts = k === "volumeMounts" && Array.isArray(v) && v.every(isTokenMount);
      if (!DEFAULTED_FIELDS.has(k) && !onlyTokenMounts) a[k] = v;
      continue;
    }
    [a[k], b[k]] = withoutServerDefaults(v, wanted[k], inResources || k === "resources");
  }
  for (const [k, v] of Object.entries(wanted)) if (!Object.hasOwn(b, k)) b[k] = v;
  return [a, b];
}

/** The parts of a pod that drift compares. */
export interface PodParts {
  metadata: Json;
  spec: Json;
}

const asList = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const asMap = (v: unknown): Json => (isRecord(v) ? v : {});
const names = (list: Json[]) => list.map((x) => String(x.name));

/** `+a, -b, ~c` for the keys added, removed and changed between two maps (or lists keyed by name). */
function keyChanges(before: Json, after: Json): string {
  const out: string[] = [];
  for (const k of Object.keys(after)) if (!Object.hasOwn(before, k)) out.push(`+${k}`);
  for (const k of Object.keys(before)) if (!Object.hasOwn(after, k)) out.push(`-${k}`);
  for (const k of Object.keys(after))
    if (Object.hasOwn(before, k) && !jsonEqual(before[k], after[k])) out.push(`~${k}`);
  return out.join(" ");
}

const byName = (list: Json[]): Json => Object.fromEntries(list.map((x) => [String(x.name), x]));

/** An image's `repository` and `tag` (or `@digest`). */
function splitImage(image: string): { repo: string; tag: string } {
  const at = image.indexOf("@");
  if (at !== -1) return { repo: image.slice(0, at), tag: image.slice(at) };
  const colon = image.lastIndexOf(":");
  return colon > image.lastIndexOf("/")
    ? { repo: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { repo: image, tag: "" };
}

/** `image 1.21.0 → 1.22.0` (same repository) or the two whole images. */
function imageChange(before: unknown, after: unknown): string {
  const a = splitImage(String(before ?? ""));
  const b = splitImage(String(after ?? ""));
  if (a.repo === b.repo && a.repo !== "") return `image tag ${a.tag || "(none)"} → ${b.tag || "(none)"}`;
  return `image ${String(before ?? "(none)")} → ${String(after ?? "(none)")}`;
}

/** What differs in one container, field by field (image, args, env, resources, volume mounts, the rest). */
function containerChanges(name: string, before: Json, after: Json): string[] {
  const parts: string[] = [];
  if (!jsonEqual(before.image, after.image)) parts.push(imageChange(before.image, after.image));
  if (!jsonEqual(before.args, after.args)) parts.push("args");
  if (!jsonEqual(before.command, after.command)) parts.push("command");
  if (!jsonEqual(before.env, after.env))
    parts.push(`env ${keyChanges(byName(asList(before.env)), byName(asList(after.env)))}`);
  if (!jsonEqual(before.resources, after.resources)) {
    const flat = (r: unknown) => {
      const out: Json = {};
      for (const [kind, values] of Object.entries(asMap(r))) {
        for (const [k, v] of Object.entries(asMap(values))) out[`${kind}.${k}`] = v;
      }
      return out;
    };
    parts.push(`resources ${keyChanges(flat(before.resources), flat(after.resources))}`);
  }
  if (!jsonEqual(before.volumeMounts, after.volumeMounts)) {
    const mounts = (list: unknown) => Object.fromEntries(asList(list).map((m) => [String(m.mountPath), m]));
    parts.push(`volumeMounts ${keyChanges(mounts(before.volumeMounts), mounts(after.volumeMounts))}`);
  }
  const seen = new Set(["name", "image", "args", "command", "env", "resources", "volumeMounts"]);
  const rest = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (k) => !seen.has(k) && !jsonEqual(before[k], after[k]),
  );
  if (rest.length > 0) parts.push(rest.join(", "));
  return parts.map((p) => `${name} ${p}`);
}

/** The changes between two container lists: containers added or removed, and each changed one. */
function containerListChanges(what: string, before: unknown, after: unknown): string[] {
  const a = asList(before);
  const b = asList(after);
  const out: string[] = [];
  const added = names(b).filter((n) => !a.some((c) => c.name === n));
  const removed = names(a).filter((n) => !b.some((c) => c.name === n));
  if (added.length > 0) out.push(`${what} +${added.join(" +")}`);
  if (removed.length > 0) out.push(`${what} -${removed.join(" -")}`);
  for (const c of b) {
    const old = a.find((x) => x.name === c.name);
    if (old !== undefined && !jsonEqual(old, c)) out.push(...containerChanges(String(c.name), old, c));
  }
  if (out.length === 0 && !jsonEqual(names(a), names(b))) out.push(`${what} order`);
  return out;
}

/**
 * The changes from `running` to `wanted` (both as {@link withoutServerDefaults} left them), one
 * short phrase each: `istio-proxy image tag 1.21.0 → 1.22.0`, `istio-proxy env +FOO ~BAR`,
 * `initContainers -istio-init`, `volumes +credential-socket`, `annotations ~sidecar.istio.io/status`.
 * Empty when they are the same.
 */
export function podChanges(running: PodParts, wanted: PodParts): string[] {
  const out: string[] = [];
  const a = running.spec;
  const b = wanted.spec;
  out.push(...containerListChanges("initContainers", a.initContainers, b.initContainers));
  out.push(...containerListChanges("containers", a.containers, b.containers));
  for (const list of ["volumes", "imagePullSecrets"]) {
    if (!jsonEqual(a[list], b[list]))
      out.push(`${list} ${keyChanges(byName(asList(a[list])), byName(asList(b[list])))}`);
  }
  const handled = new Set(["initContainers", "containers", "volumes", "imagePullSecrets"]);
  const rest = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
    (k) => !handled.has(k) && !jsonEqual(a[k], b[k]),
  );
  if (rest.length > 0) out.push(`spec ${rest.join(", ")}`);
  for (const field of ["labels", "annotations"]) {
    const x = asMap(running.metadata[field]);
    const y = asMap(wanted.metadata[field]);
    if (!jsonEqual(x, y)) out.push(`${field} ${keyChanges(x, y)}`);
  }
  return out;
}

/** The parts compared: labels, annotations and spec (the rest of the metadata is the pod's own). */
function compared(pod: PodParts): PodParts {
  const metadata: Json = {};
  if (pod.metadata.labels !== undefined) metadata.labels = pod.metadata.labels;
  if (pod.metadata.annotations !== undefined) metadata.annotations = pod.metadata.annotations;
  return { metadata, spec: pod.spec };
}

export interface PodComparison {
  same: boolean;
  changes: string[];
  /** The unified diff from the running pod to the wanted one (when asked for and they differ). */
  diff?: string;
}

/**
 * Compares the running pod with the one injection would make now; `label` names it in the diff's
 * header (`Pod shop/web-5d8f-abcde`).
 */
export function comparePods(running: PodParts, wanted: PodParts, diff: boolean, label: string): PodComparison {
  const [a, b] = withoutServerDefaults(compared(running), compared(wanted)) as [PodParts, PodParts];
  if (jsonEqual(a, b)) return { same: true, changes: [] };
  const changes = podChanges(a, b);
  const out: PodComparison = { same: false, changes: changes.length > 0 ? changes : ["order of fields"] };
  if (diff) out.diff = objectDiff(label, writeYaml(a), writeYaml(b), "running", "injected now");
  return out;
}
