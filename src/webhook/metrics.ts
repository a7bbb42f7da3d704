/**
 * The injector's Prometheus metrics (prom-client), under Istio's names so its dashboards and alerts
 * work unchanged:
 *   sidecar_injection_requests_total            every request to an /inject path
 *   sidecar_injection_success_total             pods injected
 *   sidecar_injection_skip_total                pods left alone by policy
 *   sidecar_injection_failure_total{reason}     everything else (reason: a short fixed word)
 *   sidecar_injection_time_seconds              Istio's latency histogram, unlabelled, every /inject
 *                                               request (ISTIO_INJECTION_TIME_BUCKETS)
 * and ours:
 *   sidecar_injection_duration_seconds{outcome} request latency, body read to response written
 *   sidecar_injection_config_reloads_total / sidecar_injection_config_reload_errors_total
 *   sidecar_injection_cert_reloads_total / sidecar_injection_cert_reload_errors_total
 *   sidecar_injection_config_last_reload_success_timestamp_seconds
 *   sidecar_injection_cert_expiry_timestamp_seconds
 *   meshinject_connections_dropped_total         connections refused at once: --max-connections were open
 *   meshinject_namespace_lookup_failures_total   (--platform openshift) Namespace lookups that failed;
 *                                                the pod was injected with proxy UID/GID 1337
 * plus prom-client's default process and Node.js metrics. Each server has its own Registry, so
 * several servers (tests) can run in one process.
 *
 * With `serve --workers N` every worker keeps its own registry and the primary serves their
 * aggregate (cluster-metrics.ts): counters and histograms summed, except that each worker watches the
 * files itself, so a reload counts as the most any worker counted (max), and the reload time and
 * certificate expiry are the oldest any worker serves with (min).
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Outcome } from "./outcome.js";

/** Failure reasons the server itself produces (the label stays low-cardinality). */
export const SERVER_FAILURE_REASONS = [
  "unsupported_media_type",
  "empty_body",
  "body_too_large",
  "malformed_json",
  "method_not_allowed",
  "request_aborted",
  "internal_error",
] as const;
export type ServerFailureReason = (typeof SERVER_FAILURE_REASONS)[number];

/**
 * The buckets of Istio's `sidecar_injection_time_seconds` (pkg/kube/inject, recorded around its whole
 * /inject handler): doubling from 1 ms, so that le-labelled queries of Istio's dashboards find the
 * same boundaries here.
 */
export const ISTIO_INJECTION_TIME_BUCKETS: readonly number[] = Array.from({ length: 13 }, (_, i) => 0.001 * 2 ** i);

export interface WebhookMetrics {
  registry: Registry;
  requests: Counter;
  success: Counter;
  skip: Counter;
  failure: Counter<"reason">;
  duration: Histogram<"outcome">;
  /** Istio's histogram, beside ours: the same observations without the outcome label. */
  injectionTime: Histogram;
  configReloads: Counter;
  configReloadErrors: Counter;
  configLastReloadSuccess: Gauge;
  certReloads: Counter;
  certReloadErrors: Counter;
  certExpiry: Gauge;
  /** OpenShift: pod Namespaces that could not be looked up (the proxy then runs as 1337). */
  namespaceLookupFailures: Counter;
  /** Requests whose body waits for room in the memory budget for bodies (see body-budget.ts). */
  bodiesWaiting: Gauge;
  /** Connections closed at once because `maxConnections` were open. */
  connectionsDropped: Counter;
  /** Counts one review's outcome and its latency. */
  recordOutcome(outcome: Outcome, seconds: number): void;
  /** Counts a request the server refused before review (415, 400, 413...). */
  recordRejected(reason: ServerFailureReason, seconds: number): void;
}

/** A label value for a failure: the outcome's reason when it is already a short word, else its kind. */
export function failureLabel(outcome: Outcome): string {
  if (outcome.kind === "injected" || outcome.kind === "skipped") return "";
  return /^[a-z][a-z0-9_]{0,47}$/.test(outcome.reason)
    ? outcome.reason
    : outcome.kind === "invalid"
      ? "invalid_review"
      : "injection_error";
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): WebhookMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new Counter({
    name: "sidecar_injection_requests_total",
    help: "Total number of sidecar injection requests.",
    registers,
  });
  const success = new Counter({
    name: "sidecar_injection_success_total",
    help: "Total number of successful sidecar injection requests.",
    registers,
  });
  const skip = new Counter({
    name: "sidecar_injection_skip_total",
    help: "Total number of skipped sidecar injection requests.",
    registers,
  });
  const failure = new Counter({
    name: "sidecar_injection_failure_total",
    help: "Total number of failed sidecar injection requests.",
    labelNames: ["reason"] as const,
    registers,
  });
  // Known reasons start at 0, so rate() and alerts work before the first failure.
  for (const reason of [...SERVER_FAILURE_REASONS, "injection_error", "invalid_review"]) failure.inc({ reason }, 0);
  const duration = new Histogram({
    name: "sidecar_injection_duration_seconds",
    help: "Time to answer a sidecar injection request, from its first byte to the response.",
    labelNames: ["outcome"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const injectionTime = new Histogram({
    name: "sidecar_injection_time_seconds",
    help: "Total time taken for injection in seconds.",
    buckets: [...ISTIO_INJECTION_TIME_BUCKETS],
    registers,
  });
  const configReloads = new Counter({
    name: "sidecar_injection_config_reloads_total",
    help: "Configurations loaded from the watched files and made active.",
    aggregator: "max",
    registers,
  });
  const configReloadErrors = new Counter({
    name: "sidecar_injection_config_reload_errors_total",
    help: "New configurations rejected (parse or reference-pod render error); the last good one stayed active.",
    aggregator: "max",
    registers,
  });
  const configLastReloadSuccess = new Gauge({
    name: "sidecar_injection_config_last_reload_success_timestamp_seconds",
    help: "When the active configuration was loaded (Unix time).",
    aggregator: "min",
    registers,
  });
  const certReloads = new Counter({
    name: "sidecar_injection_cert_reloads_total",
    help: "Serving certificates loaded from the watched files and made active.",
    aggregator: "max",
    registers,
  });
  const certReloadErrors = new Counter({
    name: "sidecar_injection_cert_reload_errors_total",
    help: "New certificate/key files rejected; the previous certificate stayed active.",
    aggregator: "max",
    registers,
  });
  const certExpiry = new Gauge({
    name: "sidecar_injection_cert_expiry_timestamp_seconds",
    help: "When the active serving certificate expires (Unix time).",
    aggregator: "min",
    registers,
  });
  const namespaceLookupFailures = new Counter({
    name: "meshinject_namespace_lookup_failures_total",
    help: "Namespace lookups (--platform openshift) that failed; the pod was injected with proxy UID/GID 1337.",
    registers,
  });
  const bodiesWaiting = new Gauge({
    name: "meshinject_request_bodies_waiting",
    help: "Requests paused, their bodies partly read, waiting for room in the memory budget for request bodies (--max-buffered-bytes).",
    registers,
  });
  const connectionsDropped = new Counter({
    name: "meshinject_connections_dropped_total",
    help: "Connections closed as soon as accepted because --max-connections connections were open.",
    registers,
  });
  return {
    registry,
    requests,
    success,
    skip,
    failure,
    duration,
    injectionTime,
    configReloads,
    configReloadErrors,
    configLastReloadSuccess,
    certReloads,
    certReloadErrors,
    certExpiry,
    namespaceLookupFailures,
    bodiesWaiting,
    connectionsDropped,
    recordOutcome(outcome, seconds) {
      if (outcome.kind === "injected") success.inc();
      else if (outcome.kind === "skipped") skip.inc();
      else failure.inc({ reason: failureLabel(outcome) });
      duration.observe({ outcome: outcome.kind }, seconds);
      injectionTime.observe(seconds);
    },
    recordRejected(reason, seconds) {
      failure.inc({ reason });
      duration.observe({ outcome: "rejected" }, seconds);
      injectionTime.observe(seconds);
    },
  };
}

/** What the metrics port serves: a registry, or (serve --workers) the workers' aggregate. */
export type MetricsSource = Pick<Registry, "metrics" | "contentType">;

/** The plain-HTTP handler of the metrics port: GET /metrics, everything else 404. */
export function metricsHandler(registry: MetricsSource): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": registry.contentType });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (e: unknown) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(`${(e as Error).message}\n`);
      },
    );
  };
}
