import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "./pod.js";
import { applyPrometheusMerge } from "./prometheus-merge.js";
import { ScrapeTargetError } from "./scrape-targets.js";

function pod(annotations: Record<string, string> | undefined): Pod {
  return {
    metadata: annotations === undefined ? {} : { annotations: { ...annotations } },
    spec: { containers: [{ name: "app" }, { name: "istio-proxy", env: [] }] },
  } as Pod;
}

function merged(p: Pod): boolean {
  return p.metadata.annotations?.["prometheus.io/port"] === "15020";
}

function agentEnv(p: Pod): string | undefined {
  const proxy = p.spec.containers?.find((c) => c.name === "istio-proxy");
  const env = (proxy?.env ?? []) as Array<{ name: string; value?: string }>;
  return env.find((e) => e.name === "ISTIO_PROMETHEUS_ANNOTATIONS")?.value;
}

// Istio pkg/kube/inject/webhook_test.go TestEnablePrometheusAggregation: mesh setting and pod
// annotation decide whether metrics are merged (its table: name, mesh, annotation, want).
describe("metrics merging on or off: Istio's TestEnablePrometheusAggregation table", () => {
  const cases: Array<[string, boolean | undefined, Record<string, string> | undefined, boolean]> = [
    ["no settings", undefined, undefined, true],
    ["mesh on", true, undefined, true],
    ["mesh off", false, undefined, false],
    ["annotation on", false, { "prometheus.istio.io/merge-metrics": "true" }, true],
    ["annotation off", true, { "prometheus.istio.io/merge-metrics": "false" }, false],
  ];
  for (const [name, mesh, annotations, want] of cases) {
    it(name, () => {
      const p = pod(annotations);
      applyPrometheusMerge(p, 15020, mesh);
      assert.equal(merged(p), want);
    });
  }
});

describe("applyPrometheusMerge", () => {
  it("reads prometheus.io/scrape as Go's ParseBool: 0, f, F, FALSE, False turn scraping off", () => {
    for (const off of ["0", "f", "F", "FALSE", "False", "false"]) {
      const p = pod({ "prometheus.io/scrape": off, "prometheus.io/port": "9090" });
      applyPrometheusMerge(p, 15020, undefined);
      assert.equal(p.metadata.annotations?.["prometheus.io/port"], "9090", off);
    }
    const p = pod({ "prometheus.io/scrape": "maybe", "prometheus.io/port": "9090" });
    applyPrometheusMerge(p, 15020, undefined);
    assert.ok(merged(p), "an unparsable value scrapes");
  });

  it("hands the agent Go's JSON of its scrape struct: scrape, path and port always present", () => {
    const p = pod({ "prometheus.io/scrape": "true", "prometheus.io/port": "9090" });
    applyPrometheusMerge(p, 15020, undefined);
    assert.equal(agentEnv(p), '{"scrape":"true","path":"","port":"9090"}');
    const q = pod({ "prometheus.io/path": "/m?a=1&b=<2>" });
    applyPrometheusMerge(q, 15020, undefined);
    assert.equal(agentEnv(q), '{"scrape":"","path":"/m?a=1\\u0026b=\\u003c2\\u003e","port":""}');
  });

  it("reads and clears every spelling Prometheus treats alike (prometheus.io.scrape, prometheus-io/port)", () => {
    const p = pod({ "prometheus.io.scrape": "true", "prometheus-io/port": "9090", "prometheus_io/path": "/m" });
    applyPrometheusMerge(p, 15020, undefined);
    assert.equal(agentEnv(p), '{"scrape":"true","path":"/m","port":"9090"}');
    assert.deepEqual(p.metadata.annotations, {
      "prometheus.io/port": "15020",
      "prometheus.io/path": "/stats/prometheus",
      "prometheus.io/scrape": "true",
    });
    const off = pod({ "prometheus-io/scrape": "false", "prometheus.io/port": "9090" });
    applyPrometheusMerge(off, 15020, undefined);
    assert.equal(off.metadata.annotations?.["prometheus.io/port"], "9090");
    const again = pod({ "prometheus.io.port": "15020" });
    applyPrometheusMerge(again, 15020, undefined);
    assert.deepEqual(again.metadata.annotations, { "prometheus.io.port": "15020" }, "already pointing at the agent");
  });

  it("puts the agent env on the proxy only, an init container when native", () => {
    const p = {
      metadata: { annotations: { "prometheus.io/port": "9090" } },
      spec: { containers: [{ name: "app" }], initContainers: [{ name: "istio-proxy" }] },
    } as unknown as Pod;
    applyPrometheusMerge(p, 15020, undefined);
    assert.deepEqual(p.spec.initContainers?.[0]?.env, [
      { name: "ISTIO_PROMETHEUS_ANNOTATIONS", value: '{"scrape":"","path":"","port":"9090"}' },
    ]);
    assert.equal(p.spec.containers?.[0]?.env, undefined);
  });

  it("adds no agent env when the pod has no scrape annotations", () => {
    const p = pod(undefined);
    applyPrometheusMerge(p, 15020, undefined);
    assert.equal(agentEnv(p), undefined);
    assert.ok(merged(p));
  });

  it("hands every prometheus.istio.io/scrape-targets endpoint to the agent, in order", () => {
    const p = pod({ "prometheus.istio.io/scrape-targets": "8080:/metrics, 9100 ,9200:/stats?x=1" });
    applyPrometheusMerge(p, 15020, undefined);
    assert.equal(
      agentEnv(p),
      '{"scrape":"","path":"","port":"","targets":[{"port":"8080","path":"/metrics"},{"port":"9100","path":"/metrics"},{"port":"9200","path":"/stats?x=1"}]}',
    );
    assert.ok(merged(p));
  });

  it("refuses targets on the agent's port or a port Istio reserves, and bad entries", () => {
    for (const value of ["15020:/metrics", "8080:/m,15090:/m", "15000", "abc:/m", "0:/m", "70000:/m", ":/m"]) {
      assert.throws(
        () => applyPrometheusMerge(pod({ "prometheus.istio.io/scrape-targets": value }), 15020, undefined),
        ScrapeTargetError,
        value,
      );
    }
    assert.throws(
      () => applyPrometheusMerge(pod({ "prometheus.io/port": "15090" }), 15020, undefined),
      /reserved for Istio \(Envoy Prometheus telemetry\)/,
    );
    // A status port moved off 15020 frees nothing: 15020 stays reserved, the new port is the agent's.
    assert.throws(
      () => applyPrometheusMerge(pod({ "prometheus.istio.io/scrape-targets": "123" }), 123, undefined),
      /agent's status port/,
    );
  });

  it("leaves a pod whose scrape port already points at the agent alone (re-injection)", () => {
    const p = pod({ "prometheus.io/port": "15020", "prometheus.io/path": "/stats/prometheus" });
    applyPrometheusMerge(p, 15020, undefined);
    assert.equal(agentEnv(p), undefined);
  });
});
