/**
 * Prometheus metrics merging: the agent serves the app's and Envoy's metrics together on the status
 * port, so the pod's scrape annotations are pointed there and the app's own are handed to the agent
 * (ISTIO_PROMETHEUS_ANNOTATIONS). Prometheus reads `prometheus.io/scrape`, `prometheus.io.scrape` and
 * `prometheus-io/scrape` alike (annotation names are compared as sanitised label names), and so do we.
 */

import { atoi, parseBool } from "../go/strconv.js";
import { annotationsOf, type Container, findContainer, goJSON, type Pod, PROXY_CONTAINER } from "./pod.js";
import { istioReservedPortReason, parseScrapeTargets, type ScrapeTarget } from "./scrape-targets.js";

const MERGE_METRICS = "prometheus.istio.io/merge-metrics";
const SCRAPE = "prometheus_io_scrape";
const PORT = "prometheus_io_port";
const PATH = "prometheus_io_path";
const SCRAPE_TARGETS = "prometheus_istio_io_scrape_targets";
const SECURE_PORT = "prometheus_istio_io_secure_port";
/** The proxy env whose port {@link applySecurePrometheusAnnotation} publishes. */
const SECURE_METRICS_PORT_ENV = "ENVOY_SECURE_MERGED_METRICS_PORT";

/** A scrape configuration the agent could not serve; injection fails with this message. */
export class PrometheusMergeError extends Error {
  override name = "PrometheusMergeError";
}

/** The proxy's env var holding the app's own scrape annotations (read back by uninject). */
export const PROMETHEUS_ENV = "ISTIO_PROMETHEUS_ANNOTATIONS";
/** The scrape annotations the merge points at the agent, by ISTIO_PROMETHEUS_ANNOTATIONS's field names. */
export const PROMETHEUS_ANNOTATIONS = {
  scrape: "prometheus.io/scrape",
  path: "prometheus.io/path",
  port: "prometheus.io/port",
} as const;
/** Several app endpoints for the agent to scrape (`port:path,...`); cleared by the merge. */
export const SCRAPE_TARGETS_ANNOTATION = "prometheus.istio.io/scrape-targets";
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

/** Istio's status.PrometheusScrapeConfiguration. */
export interface ScrapeConfiguration {
  scrape: string;
  path: string;
  port: string;
  targets: ScrapeTarget[];
}

/**
 * ISTIO_PROMETHEUS_ANNOTATIONS as Go marshals the agent's struct: `scrape`, `path`, `port` always
 * present, `targets` only when there are some.
 */
function scrapeConfigurationJSON(c: ScrapeConfiguration): string {
  const config: Record<string, unknown> = { scrape: c.scrape, path: c.path, port: c.port };
  if (c.targets.length > 0) config.targets = c.targets.map((t) => ({ port: t.port, path: t.path }));
  return goJSON(config);
}

/**
 * The pod's scrape annotations (the last spelling of each wins); a targets annotation that does not
 * parse is a warning and no targets. Istio: webhook.go getPrometheusScrapeConfiguration.
 */
export function prometheusScrapeConfiguration(
  annotations: Record<string, string>,
  warn: (message: string) => void,
): ScrapeConfiguration {
  const last = (label: string) => variants(annotations, label).at(-1) ?? "";
  const config: ScrapeConfiguration = { scrape: last(SCRAPE), path: last(PATH), port: last(PORT), targets: [] };
  for (const k of Object.keys(annotations).sort()) {
    if (sanitizeLabelName(k) !== SCRAPE_TARGETS) continue;
    try {
      config.targets = parseScrapeTargets(annotations[k] as string);
    } catch (e) {
      warn(`failed to parse ${k} annotation: ${(e as Error).message}`);
    }
  }
  return config;
}

/**
 * The port as Go's strconv.Atoi reads it, canonical (`015020` → `15020`), when it is 1–65535;
 * undefined otherwise (`http-metrics`, `99999`).
 */
function canonicalPort(port: string): string | undefined {
  const { value, err } = atoi(port);
  if (err !== undefined || value < 1n || value > 65535n) return undefined;
  return String(value);
}

/** Refuses a port that is not one, is the agent's own, or is Istio's (Istio's messages). */
function checkPort(port: string, agentPort: string, what: "targets" | "configuration"): void {
  const prefix =
    what === "targets"
      ? "invalid prometheus scrape targets: target port"
      : "invalid prometheus scrape configuration: port";
  const canon = canonicalPort(port);
  if (canon === undefined) {
    const invalid = what === "targets" ? "invalid target port" : "invalid port";
    throw new PrometheusMergeError(`invalid prometheus scrape ${what}: ${invalid} ${JSON.stringify(port)}`);
  }
  if (canon === agentPort) throw new PrometheusMergeError(`${prefix} ${port} conflicts with agent port`);
  const reason = istioReservedPortReason(canon);
  if (reason !== "") {
    throw new PrometheusMergeError(`${prefix} ${port} is reserved for Istio (${reason}) and cannot be scraped`);
  }
}

/**
 * Points the pod's scrape annotations at the agent and hands the app's own to it. With scrape
 * targets, the legacy port and path are the first target's (for agents that do not read targets).
 * A port that is not one, is the agent's, or is reserved for Istio is a {@link PrometheusMergeError}.
 * Istio: pkg/kube/inject/webhook.go applyPrometheusMerge.
 */
export function applyPrometheusMerge(
  pod: Pod,
  statusPort: number,
  meshMerge: boolean | undefined,
  warn: (message: string) => void = () => {},
): void {
  const annotations = annotationsOf(pod);
  if (!prometheusScrape(annotations) || !prometheusMergeEnabled(annotations, meshMerge)) return;
  const target = String(statusPort);
  const ports = variants(annotations, PORT);
  // Already pointing at the agent: re-injected, or set up by the user on purpose.
  if (ports.length > 0 && ports[0] === target) return;
  const scrape = prometheusScrapeConfiguration(annotations, warn);
  const first = scrape.targets[0];
  if (first !== undefined) {
    scrape.port = first.port;
    scrape.path = first.path;
    for (const t of scrape.targets) checkPort(t.port, target, "targets");
  } else if (scrape.port !== "") {
    checkPort(scrape.port, target, "configuration");
  }
  const proxy = sidecar(pod);
  const empty = scrape.scrape === "" && scrape.path === "" && scrape.port === "" && scrape.targets.length === 0;
  if (proxy !== undefined && !empty) {
    const env = (proxy.env as unknown[] | undefined) ?? [];
    env.push({ name: PROMETHEUS_ENV, value: scrapeConfigurationJSON(scrape) });
    proxy.env = env;
  }
  // Every spelling goes, or Prometheus would see two paths and pick either.
  clearPrometheusAnnotations(pod);
  annotations[PROMETHEUS_ANNOTATIONS.port] = target;
  annotations[PROMETHEUS_ANNOTATIONS.path] = AGENT_SCRAPE_PATH;
  annotations[PROMETHEUS_ANNOTATIONS.scrape] = "true";
}

/**
 * Publishes the proxy's secure merged-metrics port (env ENVOY_SECURE_MERGED_METRICS_PORT, when set
 * and not 0) as `prometheus.istio.io/secure-port`, unless the pod has that annotation (any spelling)
 * already. Istio: pkg/kube/inject/webhook.go applySecurePrometheusAnnotation.
 */
export function applySecurePrometheusAnnotation(pod: Pod): void {
  const annotations = annotationsOf(pod);
  if (Object.keys(annotations).some((k) => sanitizeLabelName(k) === SECURE_PORT)) return;
  const proxy = sidecar(pod);
  if (proxy === undefined) return;
  for (const e of (proxy.env as Array<{ name?: unknown; value?: unknown }> | undefined) ?? []) {
    if (e.name === SECURE_METRICS_PORT_ENV && typeof e.value === "string" && e.value !== "" && e.value !== "0") {
      annotations["prometheus.istio.io/secure-port"] = e.value;
      return;
    }
  }
}

/** Removes every spelling of the scrape, port, path and scrape-targets annotations. Istio: clearPrometheusAnnotations. */
export function clearPrometheusAnnotations(pod: Pod): void {
  const annotations = pod.metadata.annotations;
  if (annotations === undefined || annotations === null) return;
  for (const k of Object.keys(annotations)) {
    const label = sanitizeLabelName(k);
    if (label === SCRAPE || label === PORT || label === PATH || label === SCRAPE_TARGETS) delete annotations[k];
  }
}

/** Before re-injection: drops the scrape annotations a previous injection pointed at the agent. */
export function clearAgentScrapeAnnotations(pod: Pod, statusPort: number): void {
  const annotations = pod.metadata.annotations;
  if (annotations === undefined || annotations === null) return;
  if (variants(annotations, PORT)[0] === String(statusPort)) clearPrometheusAnnotations(pod);
}
