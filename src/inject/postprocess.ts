/**
 * What happens to the merged pod after the templates: cluster/network env from the webhook path,
 * the injection status annotation, and container order (Prometheus metrics merging: prometheus-merge.ts).
 */

import {
  annotationsOf,
  CORE_DUMP_CONTAINER,
  findContainer,
  INIT_CONTAINER,
  injectionStatus,
  labelsOf,
  type Pod,
  PROXY_CONTAINER,
  placeContainer,
  STATUS_ANNOTATION,
  VALIDATION_CONTAINER,
} from "./pod.js";

const NETWORK_LABEL = "topology.istio.io/network";

/** Sets env from the webhook path (ISTIO_META_CLUSTER_ID, ISTIO_META_NETWORK) on the proxy: replaced, then sorted last. */
export function overwriteClusterInfo(pod: Pod, proxyEnvs: Record<string, string>): void {
  const keys = Object.keys(proxyEnvs).sort();
  if (keys.length === 0) return;
  const proxy =
    findContainer(PROXY_CONTAINER, pod.spec.containers) ?? findContainer(PROXY_CONTAINER, pod.spec.initContainers);
  if (proxy === undefined) return;
  const env = ((proxy.env as { name: string }[] | undefined) ?? []).filter((e) => !Object.hasOwn(proxyEnvs, e.name));
  for (const k of keys) env.push({ name: k, value: proxyEnvs[k] } as { name: string });
  proxy.env = env;
}

/** The status annotation, the network label, and the config's injectedAnnotations. */
export function applyMetadata(
  pod: Pod,
  templatePod: Pod,
  revision: string,
  proxyEnvs: Record<string, string>,
  injectedAnnotations: Record<string, string>,
): void {
  const network = proxyEnvs.ISTIO_META_NETWORK;
  if (network !== undefined) labelsOf(pod)[NETWORK_LABEL] = network;
  const annotations = annotationsOf(pod);
  annotations[STATUS_ANNOTATION] = injectionStatus(templatePod, revision);
  Object.assign(annotations, injectedAnnotations);
}

/**
 * Container order. The proxy goes last among containers (so `kubectl exec` and logs default to the
 * app), or first when the app must wait for it. As a native sidecar (an init container) it starts
 * right after the traffic setup and before the app's init containers, so those are in the mesh.
 * Otherwise the validation container goes first (it blocks the app until the CNI set traffic up),
 * while `istio-init` goes last, so the app's init containers run before traffic is redirected.
 * Istio: pkg/kube/inject/webhook.go reorderPod.
 */
export function reorderContainers(pod: Pod, holdApplication: boolean): void {
  const spec = pod.spec;
  spec.containers = placeContainer(spec.containers, PROXY_CONTAINER, holdApplication ? "first" : "last");
  let init = spec.initContainers;
  if (findContainer(PROXY_CONTAINER, init) !== undefined) {
    init = placeContainer(init, CORE_DUMP_CONTAINER, "first");
    init = placeContainer(init, PROXY_CONTAINER, "first");
    init = placeContainer(init, VALIDATION_CONTAINER, "first");
    init = placeContainer(init, INIT_CONTAINER, "first");
  } else {
    init = placeContainer(init, VALIDATION_CONTAINER, "first");
    init = placeContainer(init, INIT_CONTAINER, "last");
    init = placeContainer(init, CORE_DUMP_CONTAINER, "last");
  }
  if (init !== undefined) spec.initContainers = init;
}
