import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createPrimaryMetrics } from "./cluster-metrics.js";
import { metricValue } from "./https-client.js";
import { createMetrics } from "./metrics.js";

describe("serve --workers: the aggregate of the workers' metrics", () => {
  test("counters and histograms summed, reloads by the most, timestamps by the oldest; the spread by worker", async () => {
    const [a, b] = [createMetrics({ defaultMetrics: false }), createMetrics({ defaultMetrics: false })];
    for (let i = 0; i < 3; i++) a.requests.inc();
    b.requests.inc();
    a.recordOutcome({ kind: "injected" } as Parameters<typeof a.recordOutcome>[0], 0.002);
    b.recordOutcome({ kind: "injected" } as Parameters<typeof b.recordOutcome>[0], 0.004);
    b.recordRejected("malformed_json", 0.001);
    // Each worker watched the same files and reloaded once; one also refused a later version.
    for (const m of [a, b]) m.configReloads.inc();
    b.configReloadErrors.inc();
    a.certExpiry.set(2000);
    b.certExpiry.set(1000);
    const primary = createPrimaryMetrics({ defaultMetrics: false });
    primary.workers.set(2);
    primary.restarts.inc();
    const registry = await primary.aggregate([
      { slot: 0, metrics: await a.registry.getMetricsAsJSON() },
      { slot: 1, metrics: await b.registry.getMetricsAsJSON() },
    ]);
    const text = await registry.metrics();
    const expected: Record<string, number> = {
      sidecar_injection_requests_total: 4,
      sidecar_injection_success_total: 2,
      'sidecar_injection_failure_total{reason="malformed_json"}': 1,
      sidecar_injection_time_seconds_count: 3,
      'sidecar_injection_time_seconds_bucket{le="0.004"}': 3,
      'sidecar_injection_time_seconds_bucket{le="0.002"}': 2,
      sidecar_injection_config_reloads_total: 1,
      sidecar_injection_config_reload_errors_total: 1,
      sidecar_injection_cert_expiry_timestamp_seconds: 1000,
      'meshinject_worker_requests_total{worker="0"}': 3,
      'meshinject_worker_requests_total{worker="1"}': 1,
      meshinject_workers: 2,
      meshinject_worker_restarts_total: 1,
    };
    const got = Object.fromEntries(Object.keys(expected).map((series) => [series, metricValue(text, series)]));
    assert.deepEqual(got, expected);
  });

  test("the primary's process metrics are summed with the workers'", async () => {
    const worker = createMetrics({ defaultMetrics: true });
    const primary = createPrimaryMetrics({ defaultMetrics: true });
    const json = await worker.registry.getMetricsAsJSON();
    const cpu = json.find((m) => m.name === "process_cpu_seconds_total");
    assert.ok(cpu?.values[0]);
    cpu.values[0].value = 100; // a worker that has worked a while
    const alone = metricValue(await primary.registry.metrics(), "process_cpu_seconds_total");
    const text = await (await primary.aggregate([{ slot: 0, metrics: json }])).metrics();
    const total = metricValue(text, "process_cpu_seconds_total");
    assert.ok(total >= 100 + alone && total < 101 + alone, `${total} = 100 + the primary's ${alone}`);
    assert.match(text, /^nodejs_version_info\{/m);
  });
});
