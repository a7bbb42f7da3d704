/**
 * Prometheus metrics merging: the agent serves the app's and Envoy's metrics together on the status
 * port, so the pod's scrape annotations are pointed there and the app's own are handed to the agent
 * (ISTIO_PROMETHEUS_ANNOTATIONS). Prometheus reads `prometheus.io/scrape`, `prometheus.io.scrape` and
 * `prometheus-io/scrape` alike (annotation names are compared as sanitised label names), and so do we.
 */

import { parseBool } from "../go/strconv.js";
import { annotationsOf, type Container, findContainer, goJSON, type Pod, PROXY_CONTAINER } from "./pod.js";
import { checkScrapePort, parseScrapeTargets, type ScrapeTarget } from "./scrape-targets.js";

const MERGE_METRICS = "prometheus.istio.io/merge-metrics";
const SCRAPE_TARGETS = "prometheus.istio.io/scrape-targets";
const SCRAPE = "prometheus_io_scrape";
const PORT = "prometheus_io_port";
const PATH = "prometheus_io_path";

/** The proxy's env var holding the app's own scrape annotations (read back by uninject). */
export const PROMETHEUS_ENV = "ISTIO_PROMETHEUS_ANNOTATIONS";
/** The scrape annotations the merge points at the agent, by ISTIO_PROMETHEUS_ANNOTATIONS's field names. */
export const PROMETHEUS_ANNOTATIONS = {
  scrape: "prometheus.io/scrape",
  path: "prometheus.io/path",
  port: "prometheus.io/port",
} as const;
/** Where the agent serves the merged metrics (on its status port). */
export const AGENT_SCRAPE_PATH = "/stats/prometheus";

/** An annotation name as a Prometheus label name: every character outside [a-zA-Z0-9_] becomes `_`. */
export function sanitizeLabelName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_]/g, "_");
}

/**
 * The values of the annotations that mean `label` (sorted by annotation name, so that a pod carrying
 * two spellings gets the same answer every time; Istio takes them in map order).
 */
function variants(annotations: Record<string, string>, label: string): string[] {
  return Object.keys(annotations)
    .filter((k) => sanitizeLabelName(k) === label)
    .sort()
    .map((k) => annotations[k] as string);
}

/** Whether merging applies: the pod annotation decides (when it parses as a bool), else the mesh, else on. */
export function prometheusMergeEnabled(annotations: Record<string, string>, meshMerge: boolean | undefined): boolean {
  const v = annotations[MERGE_METRICS];
  if (v !== undefined) {
    const b = parseBool(v);
    if (b !== undefined) return b;
  }
  return meshMerge ?? true;
}

/** Whether the pod is scraped at all: the first scrape annotation that parses (Go's ParseBool) decides; on otherwise. */
function prometheusScrape(annotations: Record<string, string>): boolean {
  for (const v of variants(annotations, SCRAPE)) {
    const b = parseBool(v);
    if (b !== undefined) return b;
  }
  return true;
}

/** The proxy the agent env goes on: istio-proxy among the containers, else among the init containers. */
function sidecar(pod: Pod): Container | undefined {
  return findContainer(PROXY_CONTAINER, pod.spec.containers) ?? findContainer(PROXY_CONTAINER, pod.spec.initContainers);
}

/**
 * ISTIO_PROMETHEUS_ANNOTATIONS as Go marshals the agent's struct: `scrape`, `path`, `port` always
 * present (the last spelling of each wins), `targets` only when there are some.
 */
function scrapeConfigurationJSON(scrape: string, path: string, port: string, targets: ScrapeTarget[]): string {
  const config: Record<string, unknown> = { scrape, path, port };
  if (targets.length > 0) config.targets = targets.map((t) => ({ port: t.port, path: t.path }));
  return goJSON(config);
}

/**
 * Points the pod's scrape annotations at the agent and hands the app's own to it. An app endpoint on
 * the agent's port or on a port Istio reserves cannot be merged: that is a ScrapeTargetError (the
 * agent would refuse to start).
 */
export function applyPrometheusMerge(pod: Pod, statusPort: number, meshMerge: boolean | undefined): void {
  const annotations = annotationsOf(pod);
  if (!prometheusScrape(annotations) || !prometheusMergeEnabled(annotations, meshMerge)) return;
  const target = String(statusPort);
  const ports = variants(annotations, PORT);
  // Already pointing at the agent: re-injected, or set up by the user on purpose.
  if (ports.length > 0 && ports[0] === target) return;
  const last = (label: string) => variants(annotations, label).at(-1) ?? "";
  const scrape = last(SCRAPE);
  const path = last(PATH);
  const port = last(PORT);
  const targets = parseScrapeTargets(annotations[SCRAPE_TARGETS] ?? "");
  if (targets.length > 0) {
    for (const t of targets) checkScrapePort(t.port, statusPort, `${SCRAPE_TARGETS} target`);
  } else if (port !== "") {
    checkScrapePort(port.trim(), statusPort, PROMETHEUS_ANNOTATIONS.port);
  }
  const proxy = sidecar(pod);
  if (proxy !== undefined && (scrape !== "" || path !== "" || port !== "" || targets.length > 0)) {
    const env = (proxy.env as unknown[] | undefined) ?? [];
    env.push({ name: PROMETHEUS_ENV, value: scrapeConfigurationJSON(scrape, path, port, targets) });
    proxy.env = env;
  }
  // Every spelling goes, or Prometheus would see two paths and pick either.
  clearPrometheusAnnotations(pod);
  annotations[PROMETHEUS_ANNOTATIONS.port] = target;
  annotations[PROMETHEUS_ANNOTATIONS.path] = AGENT_SCRAPE_PATH;
  annotations[PROMETHEUS_ANNOTATIONS.scrape] = "true";
}

/** Removes every spelling of the scrape, port and path annotations. */
export function clearPrometheusAnnotations(pod: Pod): void {
  const annotations = pod.metadata.annotations;
  if (annotations === undefined || annotations === null) return;
  for (const k of Object.keys(annotations)) {
    const label = sanitizeLabelName(k);
    if (label === SCRAPE || label === PORT || label === PATH) delete annotations[k];
  }
}

/** Before re-injection: drops the scrape annotations a previous injection pointed at the agent. */
export function clearAgentScrapeAnnotations(pod: Pod, statusPort: number): void {
  const annotations = pod.metadata.annotations;
  if (annotations === undefined || annotations === null) return;
  if (variants(annotations, PORT)[0] === String(statusPort)) clearPrometheusAnnotations(pod);
}
