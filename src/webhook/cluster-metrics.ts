/**
 * The metrics of `serve --workers N`, served by the primary on the metrics port: every worker's
 * registry (asked over the IPC channel, cluster-worker.ts) and the primary's own, aggregated by
 * prom-client's AggregatorRegistry (each metric by its `aggregator`: sums by default; see
 * metrics.ts), plus what only the primary knows:
 *   meshinject_workers                          workers serving now
 *   meshinject_worker_restarts_total            workers that exited unexpectedly and were replaced
 *   meshinject_worker_requests_total{worker}    each worker's sidecar_injection_requests_total, by
 *                                               worker place (0..N-1), to see the load spread
 */

import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";

export type MetricsJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;

/** One worker's registry as JSON, with its place. */
export interface WorkerMetrics {
  slot: number;
  metrics: MetricsJson;
}

export interface PrimaryMetrics {
  registry: Registry;
  workers: Gauge;
  restarts: Counter;
  /** The aggregate of the primary's registry and the workers' (already gathered). */
  aggregate(workers: readonly WorkerMetrics[]): Promise<Registry>;
}

const REQUESTS = "sidecar_injection_requests_total";

export function createPrimaryMetrics(options: { defaultMetrics?: boolean } = {}): PrimaryMetrics {
  const registry = new Registry();
  // The primary's own process metrics are summed with the workers': process_cpu_seconds_total and
  // process_resident_memory_bytes then count the whole container.
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const workers = new Gauge({
    name: "meshinject_workers",
    help: "Worker processes serving the HTTPS port (serve --workers).",
    registers: [registry],
  });
  const restarts = new Counter({
    name: "meshinject_worker_restarts_total",
    help: "Worker processes that exited unexpectedly and were replaced.",
    registers: [registry],
  });
  return {
    registry,
    workers,
    restarts,
    async aggregate(perWorker) {
      const spread = new Registry();
      const byWorker = new Counter({
        name: "meshinject_worker_requests_total",
        help: "Requests to an /inject path, by worker place (0 to --workers minus 1).",
        labelNames: ["worker"] as const,
        registers: [spread],
      });
      for (const w of perWorker) {
        const requests = w.metrics.find((m) => m.name === REQUESTS);
        const value = requests?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
        byWorker.inc({ worker: String(w.slot) }, value);
      }
      return AggregatorRegistry.aggregate([
        await registry.getMetricsAsJSON(),
        await spread.getMetricsAsJSON(),
        ...perWorker.map((w) => w.metrics),
      ]);
    },
  };
}
