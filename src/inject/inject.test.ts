import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { InjectionError, inject, loadInjectorConfig } from "../index.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests read YAML-shaped output freely
type Obj = Record<string, any>;

const injector = loadInjectorConfig();

function deployment(pod: { annotations?: Record<string, string>; labels?: Record<string, string>; spec?: Obj }): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "shop" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web", ...pod.labels }, annotations: pod.annotations },
        spec: pod.spec ?? { containers: [{ name: "web", image: "nginx", ports: [{ containerPort: 8080 }] }] },
      },
    },
  };
}

const podSpec = (d: Obj): Obj => d.spec.template.spec;
const names = (list: Obj[] | undefined) => (list ?? []).map((c) => c.name);

describe("inject", () => {
  test("adds the proxy last, the traffic setup as an init container, and the status annotation", () => {
    const out = inject(injector, deployment({}));
    assert.deepEqual(names(podSpec(out).containers), ["web", "istio-proxy"]);
    assert.deepEqual(names(podSpec(out).initContainers), ["istio-init"]);
    const status = JSON.parse(out.spec.template.metadata.annotations["sidecar.istio.io/status"]);
    assert.deepEqual(status.containers, ["istio-proxy"]);
    assert.equal(status.revision, "default");
    assert.equal(out.spec.template.metadata.labels["service.istio.io/canonical-name"], "web");
  });

  test("does not change its input", () => {
    const input = deployment({});
    const copy = structuredClone(input);
    inject(injector, input);
    assert.deepEqual(input, copy);
  });

  // Istio pkg/kube/inject/webhook.go reapplyOverwrittenContainers: a container the previous
  // injection's status lists is skipped, so on re-injection the template's value wins (the recorded
  // proxy.istio.io/overrides only reach the templates' input, through reinsertOverrides).
  test("re-injection: the template's proxy wins over the user's image, which stays recorded", () => {
    const once = inject(
      injector,
      deployment({
        spec: {
          containers: [
            { name: "web", image: "nginx" },
            { name: "istio-proxy", image: "custom/proxy:1" },
          ],
        },
      }),
    );
    const proxyOf = (d: Obj) => podSpec(d).containers.find((c: Obj) => c.name === "istio-proxy");
    assert.equal(proxyOf(once).image, "custom/proxy:1");
    const again = inject(injector, once);
    assert.match(proxyOf(again).image, /\/proxyv2:/);
    const overrides = JSON.parse(again.spec.template.metadata.annotations["proxy.istio.io/overrides"]);
    assert.equal(overrides.containers[0].image, "custom/proxy:1");
  });

  // Istio pkg/kube/inject/webhook.go postProcessPod: applyPrometheusMerge, then
  // applySecurePrometheusAnnotation.
  describe("metrics merging, end to end", () => {
    const annotationsOf = (d: Obj) => d.spec.template.metadata.annotations;
    const agentEnv = (d: Obj) =>
      podSpec(d)
        .containers.find((c: Obj) => c.name === "istio-proxy")
        .env.find((e: Obj) => e.name === "ISTIO_PROMETHEUS_ANNOTATIONS")?.value;

    test("scrape targets: the first is the legacy port and path, and the annotation is cleared", () => {
      const out = inject(
        injector,
        deployment({ annotations: { "prometheus.istio.io/scrape-targets": "9100:/m,9200" } }),
      );
      assert.equal(
        agentEnv(out),
        '{"scrape":"","path":"/m","port":"9100","targets":[{"port":"9100","path":"/m"},{"port":"9200","path":"/metrics"}]}',
      );
      assert.equal(annotationsOf(out)["prometheus.istio.io/scrape-targets"], undefined);
      assert.equal(annotationsOf(out)["prometheus.io/port"], "15020");
    });

    test("an unparsable scrape-targets annotation is a warning naming the pod; the pod is injected", () => {
      const warnings: string[] = [];
      const out = inject(injector, deployment({ annotations: { "prometheus.istio.io/scrape-targets": "9100,:/x" } }), {
        onWarning: (w) => warnings.push(w),
      });
      assert.deepEqual(warnings, [
        'shop/web: failed to parse prometheus.istio.io/scrape-targets annotation: empty port in scrape target ":/x"',
      ]);
      assert.equal(annotationsOf(out)["prometheus.io/port"], "15020");
    });

    test("a legacy prometheus.io/port Istio refuses is an InjectionError", () => {
      for (const port of ["http-metrics", "015020", "99999"]) {
        assert.throws(
          () => inject(injector, deployment({ annotations: { "prometheus.io/port": port } })),
          (e: unknown) =>
            e instanceof InjectionError &&
            /failed to process pod: invalid prometheus scrape configuration/.test(e.message),
          port,
        );
      }
    });

    test("ENVOY_SECURE_MERGED_METRICS_PORT from proxyMetadata is published as prometheus.istio.io/secure-port", () => {
      const out = inject(
        injector,
        deployment({
          annotations: { "proxy.istio.io/config": "proxyMetadata:\n  ENVOY_SECURE_MERGED_METRICS_PORT: '15092'\n" },
        }),
      );
      assert.equal(annotationsOf(out)["prometheus.istio.io/secure-port"], "15092");
    });
  });

  test("a user-written istio-proxy overrides the template; image auto keeps the injected image", () => {
    const out = inject(
      injector,
      deployment({
        spec: {
          containers: [
            { name: "web", image: "nginx" },
            { name: "istio-proxy", image: "auto", resources: { limits: { memory: "2Gi" } } },
          ],
        },
      }),
    );
    const proxy = podSpec(out).containers.find((c: Obj) => c.name === "istio-proxy");
    assert.match(proxy.image, /\/proxyv2:/);
    assert.equal(proxy.resources.limits.memory, "2Gi");
    assert.ok(proxy.args.includes("proxy"), "the template's settings are kept where the user set none");
    const overrides = JSON.parse(out.spec.template.metadata.annotations["proxy.istio.io/overrides"]);
    assert.deepEqual(names(overrides.containers), ["istio-proxy"]);
  });

  test("holdApplicationUntilProxyStarts moves the proxy first", () => {
    const out = inject(
      injector,
      deployment({ annotations: { "proxy.istio.io/config": "holdApplicationUntilProxyStarts: true" } }),
    );
    assert.deepEqual(names(podSpec(out).containers), ["istio-proxy", "web"]);
  });

  test("native sidecars put the proxy among the init containers, after the traffic setup", () => {
    const out = inject(injector, deployment({}), { nativeSidecars: true });
    assert.deepEqual(names(podSpec(out).containers), ["web"]);
    assert.deepEqual(names(podSpec(out).initContainers), ["istio-init", "istio-proxy"]);
    assert.equal(podSpec(out).initContainers[1].restartPolicy, "Always");
  });

  test("proxyCPU and proxyMemory annotations set the proxy's requests", () => {
    const out = inject(
      injector,
      deployment({ annotations: { "sidecar.istio.io/proxyCPU": "300m", "sidecar.istio.io/proxyMemory": "256Mi" } }),
    );
    const proxy = podSpec(out).containers.find((c: Obj) => c.name === "istio-proxy");
    assert.deepEqual(proxy.resources.requests, { cpu: "300m", memory: "256Mi" });
  });

  test("an invalid annotation is an InjectionError naming it", () => {
    assert.throws(
      () => inject(injector, deployment({ annotations: { "sidecar.istio.io/proxyCPU": "lots" } })),
      (e: unknown) => e instanceof Error && /sidecar\.istio\.io\/proxyCPU/.test(e.message),
    );
  });

  test("an unknown template is named in the error", () => {
    assert.throws(
      () => inject(injector, deployment({ annotations: { "inject.istio.io/templates": "nope" } })),
      (e: unknown) =>
        e instanceof Error &&
        /failed to run injection template: requested template "nope" not found; have sidecar/.test(e.message),
    );
  });

  test("opted-out and host-network workloads come back unchanged, with a warning", () => {
    const warnings: string[] = [];
    const optedOut = deployment({ labels: { "sidecar.istio.io/inject": "false" } });
    assert.deepEqual(inject(injector, optedOut, { onWarning: (w) => warnings.push(w) }), optedOut);
    const hostNetwork = deployment({ spec: { hostNetwork: true, containers: [{ name: "web", image: "nginx" }] } });
    assert.deepEqual(inject(injector, hostNetwork, { onWarning: (w) => warnings.push(w) }), hostNetwork);
    assert.match(warnings[0] ?? "", /Deployment "shop\/web" has sidecar injection disabled/);
    assert.match(warnings[1] ?? "", /Deployment "shop\/web" has host networking enabled/);
  });

  test("kinds that are not workloads pass through", () => {
    const service = { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { ports: [{ port: 80 }] } };
    assert.deepEqual(inject(injector, service), service);
  });

  test("injecting an injected workload again gives the same workload", () => {
    const once = inject(injector, deployment({}));
    assert.deepEqual(inject(injector, once), once);
  });

  test("label and annotation values that are not strings are typed first, as Go decodes them", () => {
    // What a manifest built in code (or read with a YAML 1.1 reader) may hold: `inject: yes`, `proxyCPU: 1`.
    const manifest = deployment({}) as Obj;
    manifest.spec.template.metadata.labels.canary = true;
    manifest.spec.template.metadata.annotations = { "sidecar.istio.io/inject": true, "sidecar.istio.io/proxyCPU": 1 };
    const out = inject(injector, manifest);
    assert.deepEqual(names(podSpec(out).containers), ["web", "istio-proxy"]);
    assert.equal(out.spec.template.metadata.labels.canary, "true");
    const proxy = podSpec(out).containers.find((c: Obj) => c.name === "istio-proxy");
    assert.equal(proxy.resources.requests.cpu, "1");
  });

  test("a map as an annotation value is an InjectionError naming the workload and the field", () => {
    const manifest = deployment({}) as Obj;
    manifest.spec.template.metadata.annotations = { "sidecar.istio.io/inject": { on: true } };
    assert.throws(
      () => inject(injector, manifest),
      (e: unknown) =>
        e instanceof InjectionError &&
        e.message ===
          'Deployment "web": spec.template.metadata.annotations["sidecar.istio.io/inject"] must be a string, got map',
    );
  });

  test("a workload without a pod template is an InjectionError, not an injected proxy-only pod", () => {
    const manifest = deployment({}) as Obj;
    delete manifest.spec.template;
    assert.throws(
      () => inject(injector, manifest),
      (e: unknown) => e instanceof InjectionError && e.message === 'Deployment "web": spec.template is missing',
    );
    assert.throws(
      () => inject(injector, { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }),
      (e: unknown) => e instanceof InjectionError && e.message === 'Pod "p": spec is missing',
    );
    assert.throws(
      () =>
        inject(injector, {
          apiVersion: "v1",
          kind: "List",
          items: [{ apiVersion: "apps/v1", kind: "Deployment", spec: "hello" }],
        }),
      (e: unknown) =>
        e instanceof InjectionError && /item 1 \(Deployment\): spec must be a map, got string/.test(e.message),
    );
  });

  test("InjectionError is exported for callers to tell injection failures apart", () => {
    assert.equal(typeof InjectionError, "function");
  });
});

describe("Prometheus metrics merging", () => {
  const proxyEnv = (out: Obj) =>
    podSpec(out).containers.find((c: Obj) => c.name === "istio-proxy").env as { name: string; value?: string }[];

  test("the app's scrape annotations move to the agent's env, the pod's point at the agent", () => {
    const out = inject(
      injector,
      deployment({
        annotations: { "prometheus.io/scrape": "true", "prometheus.io/port": "9090", "prometheus.io/path": "/m" },
      }),
    );
    const annotations = out.spec.template.metadata.annotations;
    assert.equal(annotations["prometheus.io/port"], "15020");
    assert.equal(annotations["prometheus.io/path"], "/stats/prometheus");
    assert.equal(annotations["prometheus.io/scrape"], "true");
    const merged = proxyEnv(out).find((e) => e.name === "ISTIO_PROMETHEUS_ANNOTATIONS");
    assert.deepEqual(JSON.parse(merged?.value ?? "{}"), { scrape: "true", path: "/m", port: "9090" });
  });

  test("scrape false or merge-metrics false leave the annotations alone", () => {
    const cases: Record<string, string>[] = [
      { "prometheus.io/scrape": "false", "prometheus.io/port": "9090" },
      { "prometheus.istio.io/merge-metrics": "false", "prometheus.io/port": "9090" },
    ];
    for (const annotations of cases) {
      const out = inject(injector, deployment({ annotations }));
      assert.equal(out.spec.template.metadata.annotations["prometheus.io/port"], "9090");
      assert.equal(
        proxyEnv(out).some((e) => e.name === "ISTIO_PROMETHEUS_ANNOTATIONS"),
        false,
      );
    }
  });

  test("without app annotations the agent is scraped and no merge env is added", () => {
    const out = inject(injector, deployment({}));
    assert.equal(out.spec.template.metadata.annotations["prometheus.io/port"], "15020");
    assert.equal(
      proxyEnv(out).some((e) => e.name === "ISTIO_PROMETHEUS_ANNOTATIONS"),
      false,
    );
  });
});
