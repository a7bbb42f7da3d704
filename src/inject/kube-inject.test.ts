import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readYaml } from "../go/yaml/read.js";
import { loadInjectorConfig } from "../index.js";
import { oneLine } from "../kube/one-line.js";
import { injectPod, type PodInjection, typedPod } from "./inject.js";
import { DocumentError, type KubeInjectOptions, kubeInject } from "./kube-inject.js";
import type { Pod } from "./pod.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests read YAML-shaped output freely
type Obj = Record<string, any>;

const injector = loadInjectorConfig();

function run(yaml: string, warnings: string[] = []): Obj[] {
  const options: KubeInjectOptions = {
    settings: injector.settings,
    config: injector.config,
    meshConfig: injector.meshConfig,
    revision: "",
    nativeSidecar: false,
    warn: (w) => warnings.push(w),
  };
  return kubeInject(yaml, options)
    .split(/^---\n/m)
    .filter((d) => d.trim() !== "")
    .map((d) => readYaml(d) as Obj);
}

/** A webhook-style injection request for a pod named "p" with the default settings, and `extra`. */
function podRequest(pod: Pod, extra: Partial<PodInjection> = {}): PodInjection {
  return {
    pod,
    typeMeta: { kind: "Pod", apiVersion: "v1" },
    deployMeta: { name: "p", namespace: "default" },
    meshConfig: injector.meshConfig,
    proxyConfig: injector.meshConfig.defaultConfig ?? {},
    revision: "",
    defaultTemplates: ["sidecar"],
    aliases: {},
    injectedAnnotations: {},
    proxyEnvs: {},
    nativeSidecar: false,
    proxyUID: 1337n,
    proxyGID: 1337n,
    ...extra,
  };
}

/** A Deployment whose pod template carries the given YAML lines (indented under the template's metadata). */
function deployment(templateMetadata: string, name = "web"): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
${templateMetadata}
    spec:
      containers:
      - name: web
        image: nginx
`;
}

const containerNames = (d: Obj) => (d.spec.template.spec.containers as Obj[]).map((c) => c.name);

function rejects(yaml: string, message: RegExp): void {
  assert.throws(
    () => run(yaml),
    (e: unknown) => {
      assert.ok(e instanceof DocumentError, `a DocumentError, got ${String(e)}`);
      assert.match(e.message, message);
      return true;
    },
  );
}

describe("kube-inject types the pod before deciding and validating", () => {
  test('`sidecar.istio.io/inject: yes` (a YAML 1.1 bool) is "true": the workload is injected', () => {
    const [out] = run(deployment("      labels: {app: web}\n      annotations:\n        sidecar.istio.io/inject: yes"));
    assert.deepEqual(containerNames(out as Obj), ["web", "istio-proxy"]);
    assert.equal((out as Obj).spec.template.metadata.annotations["sidecar.istio.io/inject"], "true");
  });

  test('`sidecar.istio.io/inject: no` is "false": skipped with istioctl\'s warning', () => {
    const warnings: string[] = [];
    const [out] = run(deployment("      annotations:\n        sidecar.istio.io/inject: no"), warnings);
    assert.deepEqual(containerNames(out as Obj), ["web"]);
    assert.match(warnings[0] ?? "", /Deployment "web" has sidecar injection disabled/);
  });

  test("a boolean or numeric pod label is injected and written as a string", () => {
    const [out] = run(
      deployment("      labels: {app: web, canary: true, version: 1.10, build: 7, sidecar.istio.io/inject: true}"),
    );
    assert.deepEqual(containerNames(out as Obj), ["web", "istio-proxy"]);
    const labels = (out as Obj).spec.template.metadata.labels;
    assert.equal(labels.canary, "true");
    assert.equal(labels.version, "1.1");
    assert.equal(labels.build, "7");
  });

  test('an unquoted `sidecar.istio.io/proxyCPU: 1` is the valid quantity "1"', () => {
    const [out] = run(deployment("      annotations:\n        sidecar.istio.io/proxyCPU: 1"));
    const proxy = ((out as Obj).spec.template.spec.containers as Obj[]).find((c) => c.name === "istio-proxy");
    assert.equal(proxy?.resources.requests.cpu, "1");
  });

  test("a map as an annotation value is an error naming the field", () => {
    rejects(
      deployment("      annotations:\n        sidecar.istio.io/inject: {a: b}"),
      /^document 1 \(Deployment "web"\): spec\.template\.metadata\.annotations\["sidecar\.istio\.io\/inject"\] must be a string, got map$/,
    );
    rejects(
      deployment("      labels:\n        app: [web]"),
      /spec\.template\.metadata\.labels\["app"\] must be a string, got list/,
    );
  });

  test("injectPod types a pod given untyped (callers that did not type it)", () => {
    const pod = {
      metadata: { name: "p", annotations: { "sidecar.istio.io/proxyCPU": 1 as unknown as string } },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    };
    const out = injectPod(injector.settings, podRequest(pod as Pod));
    assert.equal(out.metadata.annotations?.["sidecar.istio.io/proxyCPU"], "1");
    assert.equal(pod.metadata.annotations["sidecar.istio.io/proxyCPU"], 1, "the input is left alone");
  });

  test("injectPod does not modify a typed pod it is given (the webhook passes its typed reading without a copy)", () => {
    const deepFreeze = <T>(v: T): T => {
      if (typeof v === "object" && v !== null) {
        for (const x of Object.values(v)) deepFreeze(x);
        Object.freeze(v);
      }
      return v;
    };
    const requestOf = (pod: Pod, nativeSidecar: boolean): PodInjection =>
      podRequest(pod, {
        podTyped: true,
        nativeSidecar,
        injectedAnnotations: { "example.com/injected": "yes" },
        proxyEnvs: { ISTIO_META_CLUSTER_ID: "c1" },
      });
    // Injected into a copy, then into the same pod frozen: the same answer, and no write to it.
    const injectFrozen = (pod: Pod, native: boolean): Pod => {
      const expected = injectPod(injector.settings, requestOf(structuredClone(pod), native));
      const got = injectPod(injector.settings, requestOf(deepFreeze(pod), native));
      assert.deepEqual(got, expected);
      return got;
    };
    const pods: Obj[] = [
      {
        metadata: { name: "p", labels: { app: "p" }, annotations: { "prometheus.io/scrape": "true" } },
        spec: {
          containers: [
            {
              name: "app",
              image: "nginx",
              ports: [{ containerPort: 8080 }],
              readinessProbe: { httpGet: { path: "/ready", port: 8080 } },
              livenessProbe: { tcpSocket: { port: 8080 } },
            },
            { name: "istio-proxy", image: "auto", resources: { limits: { memory: "2Gi" } } },
          ],
          initContainers: [{ name: "setup", image: "busybox" }],
        },
      },
      { metadata: { generateName: "q-" }, spec: { containers: [{ name: "app", image: "nginx" }] } },
    ];
    // Each pod injected as it is, then again as injected (re-injection strips and re-adds).
    for (const native of [false, true]) {
      for (const pod of pods) injectFrozen(typedPod(structuredClone(injectFrozen(typedPod(pod), native))), native);
    }
  });
});

describe("kube-inject refuses workloads without a pod", () => {
  const head = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n";

  test("no spec, a spec that is not a map, no spec.template", () => {
    rejects(head, /^document 1 \(Deployment "x"\): spec is missing$/);
    rejects(`${head}spec: hello\n`, /^document 1 \(Deployment "x"\): spec must be a map, got string$/);
    rejects(`${head}spec:\n  replicas: 1\n`, /^document 1 \(Deployment "x"\): spec\.template is missing$/);
    rejects(
      `${head}spec:\n  template:\n    metadata: {labels: {a: b}}\n`,
      /^document 1 \(Deployment "x"\): spec\.template\.spec is missing$/,
    );
  });

  test("other workload kinds", () => {
    for (const [apiVersion, kind] of [
      ["apps/v1", "StatefulSet"],
      ["apps/v1", "DaemonSet"],
      ["batch/v1", "Job"],
      ["v1", "ReplicationController"],
    ]) {
      rejects(
        `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: w\nspec: {}\n`,
        new RegExp(`^document 1 \\(${kind} "w"\\): spec\\.template is missing$`),
      );
    }
  });

  test("a CronJob needs spec.jobTemplate.spec.template", () => {
    const cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: c\nspec:\n  schedule: '* * * * *'\n";
    rejects(cron, /^document 1 \(CronJob "c"\): spec\.jobTemplate is missing$/);
    rejects(`${cron}  jobTemplate: {}\n`, /^document 1 \(CronJob "c"\): spec\.jobTemplate\.spec is missing$/);
    rejects(
      `${cron}  jobTemplate:\n    spec: {}\n`,
      /^document 1 \(CronJob "c"\): spec\.jobTemplate\.spec\.template is missing$/,
    );
  });

  test("a bare Pod without spec", () => {
    rejects("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n", /^document 1 \(Pod "x"\): spec is missing$/);
    rejects("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec: [1]\n", /spec must be a map, got list$/);
  });

  test("a List item without a pod names the item", () => {
    rejects(
      `apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: d}\n`,
      /^document 1 \(List\): item 1 \(Deployment "d"\): spec is missing$/,
    );
  });

  test("other kinds still pass through untouched", () => {
    const [svc] = run("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec: hello\n");
    assert.equal((svc as Obj).spec, "hello");
  });
});

describe("oneLine", () => {
  test("joins Go's multierror lists, after a prefix too, and other line breaks", () => {
    assert.equal(oneLine("1 error occurred:\n\t* invalid value a\n\n"), "invalid value a");
    assert.equal(oneLine("2 errors occurred:\n\t* a\n\t* b\n\n"), "a; b");
    assert.equal(
      oneLine("mesh.yaml: 1 error occurred:\n\t* invalid discovery address: x\n\n"),
      "mesh.yaml: invalid discovery address: x",
    );
    assert.equal(oneLine("line one\nline two"), "line one; line two");
  });
});

describe("kube-inject says what Istio only logs", () => {
  test("a DNS policy other than ClusterFirst is injected, with a warning naming the pod", () => {
    const warnings: string[] = [];
    const yaml = `apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: ns
spec:
  dnsPolicy: Default
  containers:
  - name: web
    image: nginx
`;
    const [pod] = run(yaml, warnings);
    assert.ok(((pod?.spec.containers ?? []) as Obj[]).some((c) => c.name === "istio-proxy"));
    assert.deepEqual(warnings, [
      `"ns/p"'s DNSPolicy is not "ClusterFirst". The Envoy sidecar may not able to connect to Istio Pilot\n`,
    ]);
    const quiet: string[] = [];
    run(yaml.replace("dnsPolicy: Default", "dnsPolicy: ClusterFirst"), quiet);
    assert.deepEqual(quiet, []);
  });
});
