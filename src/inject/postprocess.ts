/**
 * What happens to the merged pod after the templates: cluster/network env from the webhook path,
 * Prometheus metrics merging, the injection status annotation, and container order.
 */

import { parseBool } from "../template/strconv.js";
import {
  annotationsOf,
  CORE_DUMP_CONTAINER,
  type Container,
  findContainer,
  goJSON,
  INIT_CONTAINER,
  injectionStatus,
  labelsOf,
  type Pod,
  PROXY_CONTAINER,
  placeContainer,
  STATUS_ANNOTATION,
  VALIDATION_CONTAINER,
} from "./pod.js";
import { checkScrapePort, parseScrapeTargets, type ScrapeTarget } from "./scrape-targets.js";

const PROMETHEUS_SCRAPE = "prometheus.io/scrape";
const PROMETHEUS_PORT = "prometheus.io/port";
const PROMETHEUS_PATH = "prometheus.io/path";
const MERGE_METRICS = "prometheus.istio.io/merge-metrics";
const SCRAPE_TARGETS = "prometheus.istio.io/scrape-targets";
const NETWORK_LABEL = "topology.istio.io/network";

function proxyContainers(pod: Pod): Container[] {
  return [pod.spec.containers, pod.spec.initContainers].flatMap(
    (l) => l?.filter((c) => c.name === PROXY_CONTAINER) ?? [],
  );
}

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

/** Whether metrics merging applies: the pod annotation decides (when it parses as a bool), else the mesh setting, else on. */
function prometheusMergeEnabled(annotations: Record<string, string>, meshMerge: boolean | undefined): boolean {
  const v = annotations[MERGE_METRICS];
  if (v !== undefined) {
    const b = parseBool(v);
    if (b !== undefined) return b;
  }
  return meshMerge ?? true;
}

/** Whether the pod is scraped at all: `prometheus.io/scrape` parsed as Go's ParseBool, on when absent or unparsable. */
function prometheusScrape(annotations: Record<string, string>): boolean {
  const v = annotations[PROMETHEUS_SCRAPE];
  return v === undefined ? true : (parseBool(v) ?? true);
}

/**
 * What the agent is handed in ISTIO_PROMETHEUS_ANNOTATIONS: the app's own scrape annotations and, from
 * `prometheus.istio.io/scrape-targets`, every endpoint to merge. Written as Go marshals the agent's
 * struct: `scrape`, `path`, `port` always present, `targets` only when there are some.
 */
function scrapeConfigurationJSON(scrape: string, path: string, port: string, targets: ScrapeTarget[]): string {
  const config: Record<string, unknown> = { scrape, path, port };
  if (targets.length > 0) config.targets = targets.map((t) => ({ port: t.port, path: t.path }));
  return goJSON(config);
}

/**
 * Prometheus metrics merging: the agent serves the app's and Envoy's metrics together on the status
 * port, so the pod's scrape annotations are pointed there and the app's own are handed to the agent.
 * An app endpoint on the agent's port or on a port Istio reserves cannot be merged: that is an
 * injection error (the agent would refuse to start).
 */
export function applyPrometheusMerge(pod: Pod, statusPort: number, meshMerge: boolean | undefined): void {
  const annotations = annotationsOf(pod);
  if (!prometheusScrape(annotations)) return;
  if (!prometheusMergeEnabled(annotations, meshMerge)) return;
  const target = String(statusPort);
  // Already pointing at the agent: re-injected, or set up by the user on purpose.
  if (annotations[PROMETHEUS_PORT] === target) return;
  const scrape = annotations[PROMETHEUS_SCRAPE] ?? "";
  const path = annotations[PROMETHEUS_PATH] ?? "";
  const port = annotations[PROMETHEUS_PORT] ?? "";
  const targets = parseScrapeTargets(annotations[SCRAPE_TARGETS] ?? "");
  if (targets.length > 0) {
    for (const t of targets) checkScrapePort(t.port, statusPort, `${SCRAPE_TARGETS} target`);
  } else if (port !== "" && /^\d+$/.test(port.trim())) {
    checkScrapePort(port.trim(), statusPort, PROMETHEUS_PORT);
  }
  if (scrape !== "" || path !== "" || port !== "" || targets.length > 0) {
    const value = scrapeConfigurationJSON(scrape, path, port, targets);
    for (const proxy of proxyContainers(pod)) {
      const env = (proxy.env as unknown[] | undefined) ?? [];
      env.push({ name: "ISTIO_PROMETHEUS_ANNOTATIONS", value });
      proxy.env = env;
    }
  }
  annotations[PROMETHEUS_PORT] = target;
  annotations[PROMETHEUS_PATH] = "/stats/prometheus";
  annotations[PROMETHEUS_SCRAPE] = "true";
}

/** Removes the scrape annotations a previous injection set (when they point at the agent). */
export function clearPrometheusAnnotations(pod: Pod, statusPort: number): void {
  const annotations = pod.metadata.annotations;
  if (annotations?.[PROMETHEUS_PORT] !== String(statusPort)) return;
  delete annotations[PROMETHEUS_PORT];
  delete annotations[PROMETHEUS_PATH];
  delete annotations[PROMETHEUS_SCRAPE];
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
