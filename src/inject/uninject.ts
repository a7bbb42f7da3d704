/**
 * Uninjection (the inverse of kube-inject): each injected workload of an object or a YAML stream
 * gets back the pod it had before injection, as far as the pod's own record tells (uninject-pod.ts).
 *
 * Labels and annotations that the templates derive (`security.istio.io/tlsMode`,
 * `service.istio.io/canonical-name`, `istio.io/rev`, `kubectl.kubernetes.io/default-container`...)
 * are not recorded anywhere, and the user may have written the same ones. They are worked out by
 * injecting again: a candidate is dropped only when injecting the workload without it writes the
 * very same value, so that injecting the result gives the input back; every other one stays.
 */

import { isRecord } from "../go/json.js";
import { readYaml } from "../go/yaml/read.js";
import { writeYaml } from "../go/yaml/write.js";
import { jsonEqual } from "../kube/json-patch.js";
import { oneLine } from "../kube/one-line.js";
import { marshalTyped } from "../kube/typed.js";
import { withoutTypedEmpties } from "../kube/typed-empties.js";
import {
  describeObject,
  foreignApiVersion,
  InvalidWorkloadError,
  isInjectable,
  mapInjectableItems,
  podOf,
  workloadOf,
} from "../kube/workloads.js";
import { appendMultusNetwork } from "./funcs.js";
import { InjectionError, typedPod } from "./inject.js";
import { DocumentError, injectObject, type KubeInjectOptions, splitDocuments } from "./kube-inject.js";
import type { Pod } from "./pod.js";
import { hasProxyContainer, stripInjection, UninjectError } from "./uninject-pod.js";

export { UninjectError } from "./uninject-pod.js";

/** Keys templates commonly derive: tried together first. Any other key is tried alone afterwards. */
const DERIVED_KEY =
  /^([a-z0-9.-]*\.)?istio\.io\/|^kubectl\.kubernetes\.io\/default-(logs-)?container$|^k8s\.v1\.cni\.cncf\.io\/networks$/;
/** Handled by stripInjection from the proxy's record, not by re-injection. */
const RECORDED_KEY = /^prometheus\.io\//;
const MULTUS_NETWORKS = "k8s.v1.cni.cncf.io/networks";

type StringMap = Record<string, string>;
/** Labels and annotations, each as a set of keys. */
type KeySets = { labels: Set<string>; annotations: Set<string> };

function without(map: StringMap | undefined, keys: ReadonlySet<string>): StringMap | undefined {
  if (map === undefined) return undefined;
  const out: StringMap = {};
  for (const [k, v] of Object.entries(map)) if (!keys.has(k)) out[k] = v;
  return out;
}

function podWithout(pod: Pod, keys: KeySets): Pod {
  const metadata = { ...pod.metadata };
  const l = without(pod.metadata.labels, keys.labels);
  const a = without(pod.metadata.annotations, keys.annotations);
  if (l !== undefined) metadata.labels = l;
  if (a !== undefined) metadata.annotations = a;
  return { ...pod, metadata };
}

const size = (k: KeySets) => k.labels.size + k.annotations.size;

/** The keys of `keys` whose value injecting `pod` without them writes again, unchanged. */
function regenerated(pod: Pod, keys: KeySets, reinject: Reinject): KeySets | undefined {
  const again = reinject(podWithout(pod, keys))?.metadata;
  if (again === undefined) return undefined;
  const same = (set: Set<string>, before: StringMap | undefined, after: StringMap | undefined) =>
    new Set([...set].filter((k) => after?.[k] === before?.[k]));
  return {
    labels: same(keys.labels, pod.metadata.labels, again.labels),
    annotations: same(keys.annotations, pod.metadata.annotations, again.annotations),
  };
}

/**
 * The largest subset of `keys` that injection writes again when all of them are dropped together:
 * a key that does not come back is kept, which may change what the others derive from, so the
 * choice is checked again until it holds.
 */
function droppable(pod: Pod, keys: KeySets, reinject: Reinject): KeySets {
  let current = keys;
  for (let round = 0; round < 4 && size(current) > 0; round++) {
    const back = regenerated(pod, current, reinject);
    if (back === undefined) break;
    if (size(back) === size(current)) return current;
    current = back;
  }
  return { labels: new Set(), annotations: new Set() };
}

/**
 * The Multus networks annotation before Istio's CNI network was appended to it (appendMultusNetwork):
 * the list or JSON form without its last entry, when appending `network` to that gives `value` back.
 */
function withoutAppendedNetwork(value: string, network: string): string | undefined {
  const candidates: string[] = [];
  if (value.endsWith("]")) {
    const entry = value.lastIndexOf(", {");
    if (entry !== -1) candidates.push(`${value.slice(0, entry)}]`);
  } else {
    const comma = value.lastIndexOf(", ");
    if (comma !== -1) candidates.push(value.slice(0, comma));
  }
  return candidates.find((c) => appendMultusNetwork(c, network) === value);
}

/** Puts back what a template appended to an annotation the pod had: the Multus networks list. */
function unappendNetworks(pod: Pod, reinject: Reinject): Pod {
  const value = pod.metadata.annotations?.[MULTUS_NETWORKS];
  if (value === undefined) return pod;
  const alone = reinject(podWithout(pod, { labels: new Set(), annotations: new Set([MULTUS_NETWORKS]) }))?.metadata;
  const network = alone?.annotations?.[MULTUS_NETWORKS];
  if (network === undefined || network === value) return pod;
  const original = withoutAppendedNetwork(value, network);
  if (original === undefined) return pod;
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations: { ...pod.metadata.annotations, [MULTUS_NETWORKS]: original } },
  };
}

/** Injects a candidate pod; the injected pod, or undefined when this injector does not inject it. */
type Reinject = (pod: Pod) => Pod | undefined;

/**
 * Drops the labels and annotations that injecting the pod without them writes again with the same
 * value: first the keys templates usually derive, together; then each key left, one at a time (a
 * custom template may write any, and a key kept in the first step because dropping another changed
 * what it derives from gets its own chance); last, the whole choice is checked once more.
 */
function dropDerivedMetadata(stripped: Pod, reinject: Reinject): Pod {
  const pod = unappendNetworks(stripped, reinject);
  const keys = (map: StringMap | undefined, derived: boolean) =>
    new Set(Object.keys(map ?? {}).filter((k) => !RECORDED_KEY.test(k) && DERIVED_KEY.test(k) === derived));
  const first = droppable(
    pod,
    { labels: keys(pod.metadata.labels, true), annotations: keys(pod.metadata.annotations, true) },
    reinject,
  );
  const rest = podWithout(pod, first);
  const drop: KeySets = { labels: new Set(first.labels), annotations: new Set(first.annotations) };
  for (const [field, set] of [
    ["labels", drop.labels],
    ["annotations", drop.annotations],
  ] as const) {
    for (const key of Object.keys(rest.metadata[field] ?? {}).filter((k) => !RECORDED_KEY.test(k))) {
      const one: KeySets = { labels: new Set(), annotations: new Set() };
      one[field].add(key);
      const back = regenerated(rest, one, reinject);
      if (back !== undefined && size(back) === 1) set.add(key);
    }
  }
  return podWithout(pod, droppable(pod, drop, reinject));
}

/** The pod spec's own lists: stripInjection took out what the injection added to them. */
const RECORDED_SPEC_FIELDS = new Set(["containers", "initContainers", "volumes", "imagePullSecrets"]);

/**
 * Drops the pod spec fields a template set (a gateway's `securityContext.sysctls`, say): each field,
 * or each key of a field that is an object, goes when injecting the pod without it writes the same
 * value again; the user's own settings, which injection does not write, stay.
 */
function dropDerivedSpec(stripped: Pod, reinject: Reinject): Pod {
  let pod = stripped;
  const tryWithout = (candidate: Pod, read: (p: Pod) => unknown) => {
    const again = reinject(candidate);
    if (again !== undefined && jsonEqual(read(again), read(pod))) pod = candidate;
  };
  for (const key of Object.keys(stripped.spec)) {
    if (RECORDED_SPEC_FIELDS.has(key)) continue;
    const value = pod.spec[key];
    if (isRecord(value)) {
      for (const sub of Object.keys(value)) {
        const current = pod.spec[key];
        if (!isRecord(current)) break;
        const { [sub]: _dropped, ...rest } = current;
        const spec = { ...pod.spec };
        if (Object.keys(rest).length === 0) delete spec[key];
        else spec[key] = rest;
        tryWithout({ ...pod, spec }, (p) => (isRecord(p.spec[key]) ? p.spec[key][sub] : undefined));
      }
    } else {
      const { [key]: _dropped, ...spec } = pod.spec;
      tryWithout({ ...pod, spec }, (p) => p.spec[key]);
    }
  }
  return pod;
}

/** The options of kube-inject: the same injector re-derives what the templates wrote. */
export type UninjectOptions = KubeInjectOptions;

/**
 * Uninjects one decoded object (recursing into Lists): the workload with its pod as before injection,
 * written as a typed object; the object as it was when it is no workload or was not injected.
 * Throws {@link UninjectError} naming the object when the injection cannot be undone safely.
 */
export function uninjectObject(obj: Record<string, unknown>, options: UninjectOptions): Record<string, unknown> {
  if (obj.kind === "List") {
    return mapInjectableItems(obj, (item, name) => {
      try {
        return uninjectObject(item, options);
      } catch (e) {
        if (!(e instanceof UninjectError)) throw e;
        throw new UninjectError(`${name}: ${e.message}`, { cause: e });
      }
    });
  }
  const what = describeObject(obj);
  // A workload kind of another API group is a custom resource, which injection leaves alone too.
  if (foreignApiVersion(obj) !== undefined) return obj;
  let ref: ReturnType<typeof workloadOf>;
  let pod: Pod;
  try {
    ref = workloadOf(obj);
    if (ref === undefined) return obj;
    pod = typedPod(ref.pod, ref.paths);
  } catch (e) {
    if (e instanceof InvalidWorkloadError || e instanceof InjectionError) {
      throw new UninjectError(`${what}: ${oneLine(e.message)}`, { cause: e });
    }
    throw e;
  }
  const statusPort = Number(options.meshConfig.defaultConfig?.statusPort ?? 15020);
  let stripped: Pod | undefined;
  try {
    stripped = stripInjection(pod, statusPort);
  } catch (e) {
    if (e instanceof UninjectError) throw new UninjectError(`${what}: ${e.message}`, { cause: e });
    throw e;
  }
  if (stripped === undefined) {
    if (hasProxyContainer(pod)) {
      options.warn(
        `meshinject: warning: ${what} has an istio-proxy container but no sidecar.istio.io/status annotation: left as it is\n`,
      );
    }
    return obj;
  }
  const workload = ref;
  const quiet: UninjectOptions = { ...options, warn: () => {} };
  const reinject: Reinject = (candidate) => {
    try {
      const injected = injectObject(workload.withPod(candidate), quiet);
      const pod = podOf(injected);
      return pod === undefined ? undefined : (pod as unknown as Pod);
    } catch {
      // The injector cannot inject it (another configuration made it): nothing is dropped.
      return undefined;
    }
  };
  const result = workload.withPod(dropDerivedMetadata(dropDerivedSpec(stripped, reinject), reinject));
  const kind = String(obj.kind);
  // Typed, then without the empty structs a typed write adds by itself (status: {}, resources: {}):
  // the app's workload gets nothing it did not have, and kube-inject, writing typed, adds them again.
  return withoutTypedEmpties(marshalTyped(result, kind) as Record<string, unknown>, kind);
}

/**
 * One raw document of a stream (`index`: 0-based) uninjected, followed by `---\n`: an injected
 * workload gets its pod back, every other document is copied through verbatim. Throws
 * {@link DocumentError} (one line, naming the document) when the document cannot be read or its
 * injection cannot be undone safely.
 */
export function uninjectDocument(raw: string, index: number, options: UninjectOptions): string {
  let doc: unknown;
  try {
    doc = readYaml(raw);
  } catch (e) {
    throw new DocumentError(`document ${index + 1}: invalid YAML: ${oneLine((e as Error).message)}`);
  }
  if (!isRecord(doc) || !isInjectable(doc)) return `${raw}---\n`;
  let result: Record<string, unknown>;
  try {
    result = uninjectObject(doc, options);
  } catch (e) {
    if (!(e instanceof UninjectError)) throw e;
    throw new DocumentError(`document ${index + 1}: ${e.message}`, { cause: e });
  }
  return result === doc ? `${raw}---\n` : `${writeYaml(result)}---\n`;
}

/**
 * Uninjects every injected workload of a YAML stream ({@link uninjectDocument} of each document).
 * Throws {@link DocumentError} as uninjectDocument does, or for a bad separator line.
 */
export function kubeUninject(text: string, options: UninjectOptions): string {
  return splitDocuments(text)
    .map((raw, index) => uninjectDocument(raw.text, index, options))
    .join("");
}
