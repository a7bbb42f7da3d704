// Istio's sidecar_injection_time_seconds beside ours, scraped from a real server's metrics port.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { call, metricValue, postReview, scrapeMetrics } from "./https-client.js";
import { createLogger } from "./logging.js";
import { ISTIO_INJECTION_TIME_BUCKETS } from "./metrics.js";
import { startServer } from "./server.js";

const EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8"));

describe("sidecar_injection_time_seconds (Istio's histogram)", () => {
  it("doubling buckets from 1 ms, as Istio's", () => {
    assert.equal(ISTIO_INJECTION_TIME_BUCKETS[0], 0.001);
    for (let i = 1; i < ISTIO_INJECTION_TIME_BUCKETS.length; i++) {
      assert.ok(
        Math.abs((ISTIO_INJECTION_TIME_BUCKETS[i] as number) / (ISTIO_INJECTION_TIME_BUCKETS[i - 1] as number) - 2) <
          1e-9,
      );
    }
  });

  it("counts every /inject request, reviewed or refused, as ours does, with Istio's bucket boundaries", async () => {
    const server = await startServer({
      port: 0,
      host: "127.0.0.1",
      metricsPort: 0,
      metricsHost: "127.0.0.1",
      logger: createLogger({ level: "silent" }),
      defaultMetrics: false,
    });
    try {
      await postReview({ port: server.port, review: EXAMPLE });
      await postReview({ port: server.port, review: EXAMPLE });
      const refused = await call({ port: server.port, body: "{}", headers: { "content-type": "text/plain" } });
      assert.equal(refused.status, 415);
      const text = await scrapeMetrics(server.metricsPort);
      assert.match(text, /^# TYPE sidecar_injection_time_seconds histogram$/m);
      assert.equal(metricValue(text, "sidecar_injection_time_seconds_count"), 3);
      assert.equal(metricValue(text, 'sidecar_injection_time_seconds_bucket{le="+Inf"}'), 3);
      for (const le of ISTIO_INJECTION_TIME_BUCKETS) {
        assert.ok(text.includes(`sidecar_injection_time_seconds_bucket{le="${le}"}`), `le=${le}`);
      }
      const ours = text
        .split("\n")
        .filter((l) => l.startsWith("sidecar_injection_duration_seconds_count{"))
        .reduce((sum, l) => sum + Number(l.split(" ")[1]), 0);
      assert.equal(ours, 3);
      assert.ok(metricValue(text, "sidecar_injection_time_seconds_sum") > 0);
    } finally {
      await server.close();
    }
  });
});
