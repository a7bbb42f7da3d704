import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import fc from "fast-check";
import { readYaml } from "../go/yaml/read.js";
import { inject, loadInjectorConfig, uninject } from "../index.js";
import { marshalTyped } from "../kube/typed.js";
import { DocumentError, injectObject, type KubeInjectOptions, kubeInject } from "./kube-inject.js";
import { kubeUninject, UninjectError, uninjectObject } from "./uninject.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests read YAML-shaped output freely
type Obj = Record<string, any>;

const injector = loadInjectorConfig();

function options(nativeSidecar = false, warnings: string[] = []): KubeInjectOptions {
  return {
    settings: injector.settings,
    config: injector.config,
    meshConfig: injector.meshConfig,
    revision: "",
    nativeSidecar,
    warn: (w) => warnings.push(w),
  };
}

const typed = (o: Obj): Obj => marshalTyped(o, String(o.kind)) as Obj;

/**
 * What the app wrote, as uninject should give it back: typed, without the empty structs and null
 * times Go's typed write adds (`status: {}`, `resources: {}`, `creationTimestamp: null`) and
 * without the empty `metadata: {}` these tests write; `emptyDir: {}` means something and stays.
 */
function asWritten(o: Obj): Obj {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== "object") return v;
    const out: Obj = {};
    for (const [k, child] of Object.entries(v)) {
      const empty =
        child === null || (typeof child === "object" && !Array.isArray(child) && Object.keys(child).length === 0);
      if (!empty || k === "emptyDir") out[k] = strip(child);
    }
    return out;
  };
  return strip(typed(o)) as Obj;
}

function roundTrip(obj: Obj, nativeSidecar = false): { injected: Obj; back: Obj } {
  const injected = typed(injectObject(structuredClone(obj), options(nativeSidecar)));
  return { injected, back: uninjectObject(injected, options(nativeSidecar)) };
}

function deployment(pod: Obj, name = "web"): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "shop" },
    spec: { selector: { matchLabels: { app: name } }, template: pod },
  };
}

describe("uninject", () => {
  test("gives back the curl example's Deployment", () => {
    const docs = readFileSync(new URL("../../examples/curl.yaml", import.meta.url), "utf8").split(/^---$/m);
    const curl = readYaml(docs[2] as string) as Obj;
    const { injected, back } = roundTrip(curl);
    assert.ok(injected.spec.template.spec.containers.some((c: Obj) => c.name === "istio-proxy"));
    assert.deepEqual(back, asWritten(curl));
  });

  test("restores HTTP (HTTPS, headers), TCP and gRPC probes and lifecycle hooks", () => {
    const pod = {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "app:1",
            ports: [{ name: "http", containerPort: 8080 }, { containerPort: 9090 }],
            readinessProbe: {
              httpGet: { path: "/ready", port: 8080, scheme: "HTTPS", httpHeaders: [{ name: "X", value: "y" }] },
              periodSeconds: 3,
            },
            livenessProbe: { tcpSocket: { port: 9090 }, timeoutSeconds: 4 },
            startupProbe: { grpc: { port: 9091, service: "health" }, failureThreshold: 30 },
            lifecycle: { preStop: { httpGet: { path: "/stop", port: 9090 } } },
          },
        ],
      },
    };
    const { injected, back } = roundTrip(deployment(pod));
    const app = injected.spec.template.spec.containers.find((c: Obj) => c.name === "app");
    assert.equal(app.readinessProbe.httpGet.path, "/app-health/app/readyz");
    assert.equal(app.livenessProbe.tcpSocket, undefined);
    assert.deepEqual(back, asWritten(deployment(pod)));
  });

  test("a probe port comes back as the injection recorded it: a number stays a number, a name comes back as its number", () => {
    const pod = {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "app:1",
            ports: [{ name: "http", containerPort: 8080 }],
            readinessProbe: { httpGet: { path: "/ready", port: 8080 } },
            livenessProbe: { tcpSocket: { port: "http" } },
          },
        ],
      },
    };
    const { injected, back } = roundTrip(deployment(pod));
    const proxy = injected.spec.template.spec.containers.find((c: Obj) => c.name === "istio-proxy");
    const probers = JSON.parse(proxy.env.find((e: Obj) => e.name === "ISTIO_KUBE_APP_PROBERS").value);
    assert.deepEqual(probers["/app-health/app/livez"], { tcpSocket: { port: 8080 } });
    const app = back.spec.template.spec.containers[0];
    assert.deepEqual(app.readinessProbe, { httpGet: { path: "/ready", port: 8080 } });
    assert.deepEqual(app.livenessProbe, { tcpSocket: { port: 8080 } });
  });

  test("adds nothing the app did not write: no status, strategy: {} or resources: {}", () => {
    const app = { name: "app", image: "app:1", securityContext: {} };
    const pod = {
      metadata: { labels: { app: "web" } },
      spec: { containers: [app], volumes: [{ name: "v", emptyDir: {} }] },
    };
    const { injected, back } = roundTrip(deployment(pod));
    // Written typed, as istioctl writes it, the injected Deployment has Go's empty structs.
    assert.deepEqual(injected.status, {});
    assert.deepEqual(injected.spec.strategy, {});
    assert.deepEqual(injected.spec.template.spec.containers[0].resources, {});
    assert.equal(back.status, undefined);
    assert.equal(back.spec.strategy, undefined);
    assert.equal(back.spec.template.metadata.creationTimestamp, undefined);
    assert.deepEqual(back.spec.template.spec.containers, [app]);
    // Empty objects that mean something stay.
    assert.deepEqual(back.spec.template.spec.volumes, [{ name: "v", emptyDir: {} }]);
  });

  test("restores the app's own Prometheus annotations, and removes those the merge added", () => {
    const own = { "prometheus.io/scrape": "true", "prometheus.io/port": "9000", "prometheus.io/path": "/m" };
    const pod = { metadata: { annotations: own }, spec: { containers: [{ name: "app", image: "app:1" }] } };
    const { injected, back } = roundTrip(deployment(pod));
    assert.equal(injected.spec.template.metadata.annotations["prometheus.io/port"], "15020");
    assert.deepEqual(back.spec.template.metadata.annotations, own);
    const plain = { metadata: {}, spec: { containers: [{ name: "app", image: "app:1" }] } };
    assert.deepEqual(roundTrip(deployment(plain)).back, asWritten(deployment(plain)));
  });

  test("puts the user's istio-proxy settings back as they were written (image: auto)", () => {
    const proxy = { name: "istio-proxy", image: "auto", resources: { limits: { cpu: "2" } } };
    const pod = { metadata: {}, spec: { containers: [{ name: "app", image: "app:1" }, proxy] } };
    for (const native of [false, true]) {
      const { injected, back } = roundTrip(deployment(pod), native);
      const list = native ? injected.spec.template.spec.initContainers : injected.spec.template.spec.containers;
      assert.ok(
        list.some((c: Obj) => c.name === "istio-proxy" && c.image !== "auto"),
        `native ${native}`,
      );
      assert.deepEqual(back, asWritten(deployment(pod)), `native ${native}`);
    }
  });

  test("keeps labels and annotations the user set to other values than injection derives", () => {
    const pod = {
      metadata: {
        labels: { app: "web", "service.istio.io/canonical-name": "shop-web", "security.istio.io/tlsMode": "disabled" },
        annotations: { "kubectl.kubernetes.io/default-container": "sidecar-app", "sidecar.istio.io/proxyCPU": "200m" },
      },
      spec: {
        containers: [
          { name: "app", image: "app:1" },
          { name: "sidecar-app", image: "helper:1" },
        ],
      },
    };
    assert.deepEqual(roundTrip(deployment(pod)).back, asWritten(deployment(pod)));
  });

  test("Pods, CronJobs and Lists; other documents and workloads that were not injected pass through", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "a", image: "a" }] },
    };
    assert.deepEqual(roundTrip(pod).back, asWritten(pod));
    const cron = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "c" },
      spec: {
        schedule: "* * * * *",
        jobTemplate: { spec: { template: { spec: { containers: [{ name: "a", image: "a" }] } } } },
      },
    };
    assert.deepEqual(roundTrip(cron).back, asWritten(cron));
    const yaml = `apiVersion: v1\nkind: List\nitems:\n- ${JSON.stringify(pod)}\n- {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}\n`;
    const back = readYaml(kubeUninject(kubeInject(yaml, options()), options()).split("---\n")[0] as string) as Obj;
    assert.deepEqual(back.items[0], asWritten(pod));
    assert.deepEqual(back.items[1], { apiVersion: "v1", kind: "Service", metadata: { name: "s" } });
    const custom = { apiVersion: "example.com/v1", kind: "Deployment", metadata: { name: "c" }, spec: {} };
    assert.equal(uninjectObject(custom, options()), custom);
    const service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s # kept verbatim\n";
    assert.equal(kubeUninject(service, options()), `${service}---\n`);
    assert.equal(
      kubeUninject(
        `apiVersion: v1\nkind: Pod\n${"metadata: {name: p}"}\nspec: {containers: [{name: a}]}\n`,
        options(),
      ).includes("name: a"),
      true,
    );
  });

  test("warns about an istio-proxy container without an injection record, and leaves it", () => {
    const warnings: string[] = [];
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "istio-proxy", image: "x" }] },
    };
    assert.equal(uninjectObject(pod, options(false, warnings)), pod);
    assert.match(
      warnings.join(""),
      /Pod "p" has an istio-proxy container but no sidecar\.istio\.io\/status annotation/,
    );
  });

  test("refuses, naming the document and the reason, what it cannot undo safely", () => {
    const injected = typed(
      injectObject(
        deployment({
          metadata: {},
          spec: { containers: [{ name: "app", image: "a", readinessProbe: { httpGet: { port: 80 } } }] },
        }),
        options(),
      ),
    );
    const annotations = injected.spec.template.metadata.annotations;
    const proxyOf = (o: Obj) => o.spec.template.spec.containers.find((c: Obj) => c.name === "istio-proxy");

    const badStatus = structuredClone(injected);
    badStatus.spec.template.metadata.annotations = { ...annotations, "sidecar.istio.io/status": "{not json" };
    assert.throws(
      () => uninjectObject(badStatus, options()),
      (e: Error) =>
        e instanceof UninjectError &&
        /Deployment "web": annotation sidecar.istio.io\/status is not a JSON object/.test(e.message),
    );

    const noProbers = structuredClone(injected);
    proxyOf(noProbers).env = proxyOf(noProbers).env.filter((e: Obj) => e.name !== "ISTIO_KUBE_APP_PROBERS");
    assert.throws(
      () => uninjectObject(noProbers, options()),
      /containers\["app"\]\.readinessProbe points at the agent \(\/app-health\/app\/readyz\) but ISTIO_KUBE_APP_PROBERS has no entry for it/,
    );

    const badProbers = structuredClone(injected);
    for (const e of proxyOf(badProbers).env) if (e.name === "ISTIO_KUBE_APP_PROBERS") e.value = "[1]";
    assert.throws(() => uninjectObject(badProbers, options()), /ISTIO_KUBE_APP_PROBERS of istio-proxy does not decode/);

    const text = `apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n${JSON.stringify(badStatus)}\n`;
    assert.throws(
      () => kubeUninject(text, options()),
      (e: Error) => e instanceof DocumentError && /^document 2: Deployment "web": annotation/.test(e.message),
    );
  });
});

// Generated workloads: whatever the pod holds, uninject(inject(x)) is x written as Kubernetes types
// it, and injecting the result again gives the same injected workload.
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/);
const port = fc.integer({ min: 1, max: 65000 });
const handler = (ports: Obj[]) => {
  const named = ports.filter((p) => p.name).map((p) => p.name as string);
  const portRef = named.length > 0 ? fc.oneof(port, fc.constantFrom(...named)) : port;
  return fc.oneof(
    fc.record({
      httpGet: fc.record(
        {
          path: fc.constantFrom("/", "/healthz", "/ready?x=1"),
          port: portRef,
          scheme: fc.constantFrom("HTTP", "HTTPS"),
        },
        { requiredKeys: ["port"] },
      ),
    }),
    fc.record({ tcpSocket: fc.record({ port: portRef }) }),
    fc.record({ grpc: fc.record({ port, service: fc.constantFrom("", "health") }, { requiredKeys: ["port"] }) }),
    fc.record({ exec: fc.record({ command: fc.constant(["cat", "/tmp/ok"]) }) }),
  );
};
const probe = (ports: Obj[]) =>
  fc
    .tuple(
      handler(ports),
      fc.record(
        { periodSeconds: fc.integer({ min: 1, max: 60 }), timeoutSeconds: fc.integer({ min: 1, max: 9 }) },
        { requiredKeys: [] },
      ),
    )
    .map(([h, rest]) => ({ ...h, ...rest }));
const container = (cname: string) =>
  fc
    .uniqueArray(
      fc.record({
        name: fc.option(fc.constantFrom("http", "grpc", "metrics"), { nil: undefined }),
        containerPort: port,
      }),
      { selector: (p) => p.containerPort, maxLength: 3 },
    )
    .map((ports) => {
      // Port names are unique in a container: a repeated name is dropped.
      const seen = new Set<string>();
      return ports.map((p) => {
        if (p.name === undefined || seen.has(p.name)) return { containerPort: p.containerPort };
        seen.add(p.name);
        return p;
      });
    })
    .chain((ports) =>
      fc.record(
        {
          name: fc.constant(cname),
          image: fc.constantFrom("app:1", "registry.example/app@sha256:0123"),
          ports: fc.constant(ports),
          readinessProbe: probe(ports),
          livenessProbe: probe(ports),
          startupProbe: probe(ports),
        },
        { requiredKeys: ["name", "image", "ports"] },
      ),
    );
const podTemplate = fc
  .uniqueArray(name, { minLength: 1, maxLength: 3 })
  .filter((names) => !names.some((n) => n.startsWith("istio")))
  .chain((names) =>
    fc.record({
      metadata: fc.record(
        {
          labels: fc.dictionary(fc.constantFrom("app", "version", "tier", "app.kubernetes.io/name"), name, {
            maxKeys: 3,
          }),
          annotations: fc.dictionary(
            fc.constantFrom(
              "prometheus.io/scrape",
              "prometheus.io/port",
              "prometheus.io/path",
              "team",
              "sidecar.istio.io/proxyCPU",
            ),
            fc.constantFrom("true", "false", "9090", "/metrics", "100m", "payments"),
            { maxKeys: 3 },
          ),
        },
        { requiredKeys: [] },
      ),
      spec: fc.record(
        {
          containers: fc.tuple(...names.map(container)),
          serviceAccountName: name,
          terminationGracePeriodSeconds: fc.integer({ min: 0, max: 60 }),
        },
        { requiredKeys: ["containers"] },
      ),
    }),
  )
  .filter((pod) => {
    // Annotation values must be valid for the annotation (injection refuses the others).
    const a = (pod.metadata.annotations ?? {}) as Record<string, string>;
    const cpu = a["sidecar.istio.io/proxyCPU"];
    // Istio's applyPrometheusMerge refuses a prometheus.io/port that is not a port (when it merges).
    const port = a["prometheus.io/port"];
    return (cpu === undefined || cpu === "100m") && (port === undefined || port === "9090");
  });
const workload = fc
  .tuple(podTemplate, fc.constantFrom("Deployment", "Pod", "StatefulSet", "Job"), fc.boolean())
  .map(([pod, kind, native]) => {
    const obj: Obj =
      kind === "Pod"
        ? { apiVersion: "v1", kind, metadata: { ...pod.metadata, name: "w" }, spec: pod.spec }
        : {
            apiVersion: kind === "Job" ? "batch/v1" : "apps/v1",
            kind,
            metadata: { name: "w" },
            spec: { template: pod },
          };
    return { obj, native };
  });

/**
 * The workload with its HTTP and TCP probes' named ports as numbers: the injection records a probe
 * by its port number (istioctl's DumpAppProbers), and uninject gives back what was recorded.
 */
function namedPortsResolved(obj: Obj): Obj {
  const out = structuredClone(obj);
  const pod = out.kind === "Pod" ? out : out.spec.template;
  for (const c of pod.spec.containers as Obj[]) {
    const byName = new Map((c.ports ?? []).filter((p: Obj) => p.name).map((p: Obj) => [p.name, p.containerPort]));
    for (const field of ["readinessProbe", "livenessProbe", "startupProbe"]) {
      const action = c[field]?.httpGet ?? c[field]?.tcpSocket;
      if (typeof action?.port === "string") action.port = byName.get(action.port);
    }
  }
  return out;
}

test("uninject(inject(x)) is x for generated workloads (fast-check, seed 15)", () => {
  fc.assert(
    fc.property(workload, ({ obj, native }) => {
      const injected = typed(injectObject(structuredClone(obj), options(native)));
      const back = uninjectObject(injected, options(native));
      assert.deepEqual(back, asWritten(namedPortsResolved(obj)));
      assert.deepEqual(typed(injectObject(structuredClone(back), options(native))), injected);
    }),
    { seed: 15, numRuns: 150 },
  );
});

test("uninject gives back the prometheus.istio.io/scrape-targets annotation the merge cleared", () => {
  const injector = loadInjectorConfig();
  const annotations = { "prometheus.istio.io/scrape-targets": "9100:/m,9200:/metrics" };
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "metrics", namespace: "shop", annotations },
    spec: { containers: [{ name: "app", image: "app" }] },
  };
  const back = uninject(injector, inject(injector, pod));
  assert.deepEqual(back.metadata.annotations, annotations);
});
