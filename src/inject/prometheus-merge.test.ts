import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "./pod.js";
import {
  applyPrometheusMerge,
  applySecurePrometheusAnnotation,
  PrometheusMergeError,
  prometheusScrapeConfiguration,
} from "./prometheus-merge.js";

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

  it("hands every prometheus.istio.io/scrape-targets endpoint to the agent, the first as the legacy port and path", () => {
    const p = pod({ "prometheus.istio.io/scrape-targets": "8080:/metrics, 9100 ,9200:/stats?x=1" });
    applyPrometheusMerge(p, 15020, undefined);
    assert.equal(
      agentEnv(p),
      '{"scrape":"","path":"/metrics","port":"8080","targets":[{"port":"8080","path":"/metrics"},{"port":"9100","path":"/metrics"},{"port":"9200","path":"/stats?x=1"}]}',
    );
    assert.ok(merged(p));
    assert.equal(p.metadata.annotations?.["prometheus.istio.io/scrape-targets"], undefined, "cleared with the others");
  });

  it("refuses targets that are not ports, on the agent's port or a port Istio reserves", () => {
    for (const value of ["15020:/metrics", "8080:/m,15090:/m", "15000", "abc:/m", "0:/m", "70000:/m"]) {
      assert.throws(
        () => applyPrometheusMerge(pod({ "prometheus.istio.io/scrape-targets": value }), 15020, undefined),
        PrometheusMergeError,
        value,
      );
    }
    // A status port moved off 15020 frees nothing: 15020 stays reserved, the new port is the agent's.
    assert.throws(
      () => applyPrometheusMerge(pod({ "prometheus.istio.io/scrape-targets": "123" }), 123, undefined),
      /target port 123 conflicts with agent port/,
    );
  });

  it("an unparsable scrape-targets annotation is a warning, not an error; the pod is merged without targets", () => {
    const warnings: string[] = [];
    const p = pod({ "prometheus.istio.io/scrape-targets": ":/m", "prometheus.io/port": "9090" });
    applyPrometheusMerge(p, 15020, undefined, (w) => warnings.push(w));
    assert.deepEqual(warnings, [
      'failed to parse prometheus.istio.io/scrape-targets annotation: empty port in scrape target ":/m"',
    ]);
    assert.equal(agentEnv(p), '{"scrape":"","path":"","port":"9090"}');
    assert.ok(merged(p));
  });

  it("validates the legacy prometheus.io/port as Go's Atoi reads it", () => {
    const refused: Array<[string, RegExp]> = [
      ["http-metrics", /invalid prometheus scrape configuration: invalid port "http-metrics"/],
      ["99999", /invalid port "99999"/],
      ["0", /invalid port "0"/],
      ["015020", /invalid prometheus scrape configuration: port 015020 conflicts with agent port/],
      ["+15020", /port \+15020 conflicts with agent port/],
      ["15090", /port 15090 is reserved for Istio \(Envoy Prometheus \(already merged\)\)/],
      ["015000", /port 015000 is reserved for Istio \(Envoy admin\)/],
    ];
    for (const [port, want] of refused) {
      assert.throws(() => applyPrometheusMerge(pod({ "prometheus.io/port": port }), 15020, undefined), want, port);
    }
    assert.throws(
      () => applyPrometheusMerge(pod({ "prometheus.io/port": "0123" }), 123, undefined),
      /port 0123 conflicts with agent port/,
    );
    const ok = pod({ "prometheus.io/port": "+9090" });
    applyPrometheusMerge(ok, 15020, undefined);
    assert.equal(agentEnv(ok), '{"scrape":"","path":"","port":"+9090"}', "handed over as written");
  });

  it("leaves a pod whose scrape port already points at the agent alone (re-injection)", () => {
    const p = pod({ "prometheus.io/port": "15020", "prometheus.io/path": "/stats/prometheus" });
    applyPrometheusMerge(p, 15020, undefined);
    assert.equal(agentEnv(p), undefined);
  });
});

// Istio pkg/kube/inject/webhook_test.go TestGetPrometheusScrapeConfigurationMultiTarget: its table.
describe("prometheusScrapeConfiguration: Istio's TestGetPrometheusScrapeConfigurationMultiTarget table", () => {
  const rows: Array<[string, Record<string, string>, string, string, Array<{ port: string; path: string }>]> = [
    [
      "scrape-targets only",
      { "prometheus.istio.io/scrape-targets": "8080:/metrics,9100:/custom" },
      "",
      "",
      [
        { port: "8080", path: "/metrics" },
        { port: "9100", path: "/custom" },
      ],
    ],
    [
      "scrape-targets with legacy port annotation",
      {
        "prometheus.io/port": "8080",
        "prometheus.io/path": "/metrics",
        "prometheus.istio.io/scrape-targets": "8080:/metrics,9100:/custom",
      },
      "8080",
      "/metrics",
      [
        { port: "8080", path: "/metrics" },
        { port: "9100", path: "/custom" },
      ],
    ],
    [
      "legacy only, no targets",
      { "prometheus.io/port": "8080", "prometheus.io/path": "/health" },
      "8080",
      "/health",
      [],
    ],
    [
      "whitespace trimmed in scrape-targets",
      { "prometheus.istio.io/scrape-targets": " 8080:/metrics , 9100:/custom " },
      "",
      "",
      [
        { port: "8080", path: "/metrics" },
        { port: "9100", path: "/custom" },
      ],
    ],
    [
      "malformed scrape-targets is logged and Targets left nil",
      { "prometheus.istio.io/scrape-targets": ":/metrics" },
      "",
      "",
      [],
    ],
  ];
  for (const [name, annotations, port, path, targets] of rows) {
    it(name, () => {
      const got = prometheusScrapeConfiguration(annotations, () => {});
      assert.equal(got.port, port);
      assert.equal(got.path, path);
      assert.deepEqual(got.targets, targets);
    });
  }
});

// Istio pkg/kube/inject/webhook_test.go TestApplyPrometheusMergeScrapeTargets: its subtests.
describe("applyPrometheusMerge: Istio's TestApplyPrometheusMergeScrapeTargets", () => {
  const newPod = (annotations: Record<string, string>) =>
    ({ metadata: { annotations }, spec: { containers: [{ name: "app" }, { name: "istio-proxy" }] } }) as unknown as Pod;
  it("reserved port rejected at injection time", () => {
    const p = newPod({
      "prometheus.io/scrape": "true",
      "prometheus.istio.io/scrape-targets": "8080:/metrics,15000:/metrics",
    });
    assert.throws(() => applyPrometheusMerge(p, 15020, true), /15000.*reserved for Istio/);
  });
  it("agent port rejected independently of reserved check", () => {
    const p = newPod({ "prometheus.io/scrape": "true", "prometheus.istio.io/scrape-targets": "15020:/metrics" });
    assert.throws(() => applyPrometheusMerge(p, 15020, true), PrometheusMergeError);
  });
  it("legacy port equal to agent port triggers no-op via early-return guard", () => {
    const p = newPod({ "prometheus.io/scrape": "true", "prometheus.io/port": "15020" });
    applyPrometheusMerge(p, 15020, true);
    assert.equal(p.metadata.annotations?.["prometheus.io/port"], "15020");
  });
  it("legacy reserved port rejected at injection time", () => {
    const p = newPod({ "prometheus.io/scrape": "true", "prometheus.io/port": "15000" });
    assert.throws(() => applyPrometheusMerge(p, 15020, true), /15000.*reserved for Istio/);
  });
  it("happy path strips prometheus.istio.io/scrape-targets annotation", () => {
    const p = newPod({
      "prometheus.io/scrape": "true",
      "prometheus.istio.io/scrape-targets": "8080:/metrics,9100:/custom",
    });
    applyPrometheusMerge(p, 15020, true);
    assert.equal(p.metadata.annotations?.["prometheus.istio.io/scrape-targets"], undefined);
    assert.equal(p.metadata.annotations?.["prometheus.io/port"], "15020");
    assert.equal(p.metadata.annotations?.["prometheus.io/path"], "/stats/prometheus");
  });
});

// Istio pkg/kube/inject/webhook_test.go TestApplySecurePrometheusAnnotation: its subtests.
describe("applySecurePrometheusAnnotation: Istio's TestApplySecurePrometheusAnnotation", () => {
  const newPod = (env: Array<{ name: string; value: string }>, annotations: Record<string, string> = {}) =>
    ({
      metadata: { annotations: { ...annotations } },
      spec: { containers: [{ name: "app" }, { name: "istio-proxy", env }] },
    }) as unknown as Pod;
  const secure = (p: Pod) => p.metadata.annotations?.["prometheus.istio.io/secure-port"];
  it("sidecar: auto-annotates from ENVOY_SECURE_MERGED_METRICS_PORT", () => {
    const p = newPod([
      { name: "ENVOY_SECURE_METRICS_PORT", value: "15091" },
      { name: "ENVOY_SECURE_MERGED_METRICS_PORT", value: "15092" },
    ]);
    applySecurePrometheusAnnotation(p);
    assert.equal(secure(p), "15092");
  });
  it("gateway: direct env var is picked up (no proxyMetadata annotation needed)", () => {
    const p = newPod([{ name: "ENVOY_SECURE_MERGED_METRICS_PORT", value: "15092" }]);
    applySecurePrometheusAnnotation(p);
    assert.equal(secure(p), "15092");
  });
  it("user-set annotation is not overwritten", () => {
    const p = newPod([{ name: "ENVOY_SECURE_MERGED_METRICS_PORT", value: "15092" }], {
      "prometheus.istio.io/secure-port": "19999",
    });
    applySecurePrometheusAnnotation(p);
    assert.equal(secure(p), "19999");
  });
  it("disabled (port=0) does not annotate", () => {
    const p = newPod([{ name: "ENVOY_SECURE_MERGED_METRICS_PORT", value: "0" }]);
    applySecurePrometheusAnnotation(p);
    assert.equal(secure(p), undefined);
  });
  it("no env var: no annotation", () => {
    const p = newPod([{ name: "SOME_OTHER_VAR", value: "value" }]);
    applySecurePrometheusAnnotation(p);
    assert.equal(secure(p), undefined);
  });
  it("no istio-proxy container: no annotation", () => {
    const p = { metadata: { annotations: {} }, spec: { containers: [{ name: "app" }] } } as unknown as Pod;
    applySecurePrometheusAnnotation(p);
    assert.equal(secure(p), undefined);
  });
  it("another spelling of the annotation counts as set (names compared as label names)", () => {
    const p = newPod([{ name: "ENVOY_SECURE_MERGED_METRICS_PORT", value: "15092" }], {
      "prometheus.istio.io.secure-port": "19999",
    });
    applySecurePrometheusAnnotation(p);
    assert.equal(secure(p), undefined);
  });
});
