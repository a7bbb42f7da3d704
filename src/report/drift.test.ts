// meshinject drift's core: freshly injected workloads (Istio's golden outputs, read at test time from
// ../shared/conformance/istio-inject) are up to date; workloads injected by an older configuration
// (another proxy tag, made here by injecting with it) are stale with what changes; missing,
// unexpected and unknown revisions; what the API server adds to a live pod is not drift.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { caseInjector, ISTIO_NOT_FIXED_POINTS } from "../../conformance/kinds/istio-inject-case.js";
import { corpusAbsent, corpusCases } from "../../test/istio-inject-corpus.js";
import { readYaml } from "../go/yaml/read.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import { type LoadedInjector, loadInjector } from "../inject/injector.js";
import { kubeInject } from "../inject/kube-inject.js";
import type { Json } from "../inject/pod.js";
import { DriftChecker, type DriftOptions, type DriftSide, podRevision } from "./drift.js";
import { driftOfManifest } from "./drift-documents.js";
import { driftTable } from "./drift-table.js";

function injectorWithTag(tag: string | undefined, revision = ""): LoadedInjector {
  const files = defaultConfigFiles(revision);
  const values = JSON.parse(files.values) as { global: { tag: string } };
  if (tag !== undefined) values.global.tag = tag;
  return loadInjector({ ...files, values: JSON.stringify(values) });
}

const side = (byRevision: Record<string, LoadedInjector>): DriftSide => ({
  injectorFor: (revision) => {
    const injector = byRevision[revision];
    return injector === undefined ? undefined : { revision, injector };
  },
});

function kubeInjectWith(injector: LoadedInjector, yaml: string, revision = ""): string {
  return kubeInject(yaml, {
    settings: injector.settings,
    config: injector.config,
    meshConfig: injector.meshConfig,
    revision,
    nativeSidecar: false,
    warn: () => {},
  });
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
`;

const fileOptions = (current: DriftSide, extra: Partial<DriftOptions> = {}): DriftOptions => ({
  style: "kube-inject",
  namespace: "default",
  defaultRevision: "",
  current,
  ...extra,
});

describe("drift of manifests", () => {
  const today = injectorWithTag(undefined);
  const older = injectorWithTag("1.19.0");

  it("a workload injected with today's configuration is up to date", () => {
    const report = driftOfManifest(kubeInjectWith(today, DEPLOYMENT), "app.yaml", fileOptions(side({ "": today })));
    assert.equal(report.totals["up-to-date"], 1, JSON.stringify(report));
    assert.equal(report.restart.length, 0);
  });

  it("a workload injected with an older proxy tag is stale, with the tag change, and gets a restart command", () => {
    const report = driftOfManifest(kubeInjectWith(older, DEPLOYMENT), "app.yaml", {
      ...fileOptions(side({ "": today })),
      diff: true,
    });
    assert.equal(report.totals.stale, 1, JSON.stringify(report));
    const pod = report.owners[0]?.pods[0];
    const tag = (today.settings.values.json as { global: { tag: string } }).global.tag;
    assert.ok(
      pod?.changes.some((c) => c === `istio-proxy image tag 1.19.0 → ${tag}`),
      JSON.stringify(pod?.changes),
    );
    assert.match(pod?.diff ?? "", /^-\s+image: .*:1\.19\.0$/m);
    assert.deepEqual(report.restart, ["kubectl rollout restart deployment/web -n shop"]);
    const table = driftTable(report, true);
    assert.match(table, /Deployment shop\/web +1 +default +stale +.*istio-proxy image tag 1\.19\.0 →/);
  });

  it("a workload without a sidecar that the policy injects is missing; one the policy now leaves alone is unexpected", () => {
    const missing = driftOfManifest(DEPLOYMENT, "app.yaml", fileOptions(side({ "": today })));
    assert.equal(missing.totals.missing, 1);
    const optedOut = kubeInjectWith(today, DEPLOYMENT).replace(
      "labels:\n        app: web",
      'labels:\n        app: web\n        sidecar.istio.io/inject: "false"',
    );
    assert.notEqual(optedOut, kubeInjectWith(today, DEPLOYMENT), "the label was added");
    const unexpected = driftOfManifest(optedOut, "app.yaml", fileOptions(side({ "": today })));
    assert.equal(unexpected.totals.unexpected, 1, JSON.stringify(unexpected));
  });

  it("a sidecar of a revision without configuration is an unknown revision", () => {
    const canary = injectorWithTag(undefined, "canary");
    const injected = kubeInjectWith(canary, DEPLOYMENT, "canary");
    const report = driftOfManifest(injected, "app.yaml", fileOptions(side({ "": today })));
    assert.equal(report.totals["unknown-revision"], 1, JSON.stringify(report));
    const known = driftOfManifest(injected, "app.yaml", fileOptions(side({ "": today, canary })));
    assert.equal(known.totals["up-to-date"], 1, JSON.stringify(known));
  });

  it("a planned configuration: every injected workload that the new tag changes is stale", () => {
    const injected = kubeInjectWith(older, DEPLOYMENT);
    const same = driftOfManifest(injected, "app.yaml", {
      ...fileOptions(side({ "": older })),
      planned: side({ "": older }),
    });
    assert.equal(same.mode, "planned");
    assert.equal(same.totals["up-to-date"], 1, JSON.stringify(same));
    const upgrade = driftOfManifest(injected, "app.yaml", {
      ...fileOptions(side({ "": older })),
      planned: side({ "": today }),
    });
    assert.equal(upgrade.totals.stale, 1, JSON.stringify(upgrade));
    // Planned over a workload not injected yet: it would be (missing), as today.
    const fresh = driftOfManifest(DEPLOYMENT, "app.yaml", {
      ...fileOptions(side({ "": older })),
      planned: side({ "": today }),
    });
    assert.equal(fresh.totals.missing, 0, "injected by both configurations: compared, not missing");
    assert.equal(fresh.totals.stale, 1, JSON.stringify(fresh));
  });
});

describe("drift of live pods (webhook injection)", () => {
  const today = injectorWithTag(undefined);
  const checker = new DriftChecker({
    style: "webhook",
    namespace: "default",
    defaultRevision: "",
    current: side({ "": today }),
  });

  /** A pod of Deployment web as the webhook injected it, then as the API server stores it. */
  function livePod(injector: LoadedInjector): Json {
    const injected = kubeInjectWith(
      injector,
      `apiVersion: v1
kind: Pod
metadata:
  name: web-7d4b9c-x2x9q
  generateName: web-7d4b9c-
  namespace: shop
  labels: {app: web, pod-template-hash: 7d4b9c}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d4b9c, uid: u1, controller: true}]
spec:
  containers:
  - name: web
    image: nginx:1.25
`,
    );
    const pod = JSON.parse(JSON.stringify(readYamlDoc(injected))) as Json;
    return withServerDefaults(pod);
  }

  it("a pod as the API server stores it (defaults, token mount) is up to date, owned by its Deployment", () => {
    const drift = checker.check(livePod(today));
    assert.equal(drift.status, "up-to-date", JSON.stringify(drift));
    assert.deepEqual(drift.owner, { kind: "Deployment", namespace: "shop", name: "web" });
  });

  it("a pod injected with an older tag is stale", () => {
    const drift = checker.check(livePod(injectorWithTag("1.19.0")));
    assert.equal(drift.status, "stale");
    assert.ok(
      drift.changes.some((c) => c.startsWith("istio-proxy image tag 1.19.0 →")),
      JSON.stringify(drift.changes),
    );
  });

  it("a changed field the API server does not default is stale, not hidden as a default", () => {
    const pod = livePod(today);
    const spec = pod.spec as { containers: Json[] };
    const proxy = spec.containers.find((c) => c.name === "istio-proxy") as Json;
    (proxy.args as string[]).push("--extra");
    const drift = checker.check(pod);
    assert.equal(drift.status, "stale");
    assert.ok(drift.changes.includes("istio-proxy args"), JSON.stringify(drift.changes));
  });
});

function readYamlDoc(text: string): unknown {
  return readYaml(text.replace(/---\n$/, ""));
}

/** What the API server and its admission plugins add to a created pod's containers. */
function withServerDefaults(pod: Json): Json {
  const spec = pod.spec as { containers: Json[]; initContainers?: Json[]; volumes?: Json[] };
  spec.volumes = [
    ...(spec.volumes ?? []),
    { name: "kube-api-access-abcde", projected: { defaultMode: 420, sources: [] } },
  ];
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    c.terminationMessagePath = "/dev/termination-log";
    c.terminationMessagePolicy = "File";
    c.imagePullPolicy ??= "IfNotPresent";
    c.volumeMounts = [
      ...((c.volumeMounts as Json[] | undefined) ?? []),
      { name: "kube-api-access-abcde", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true },
    ];
    for (const p of (c.ports as Json[] | undefined) ?? []) p.protocol ??= "TCP";
    for (const probe of ["readinessProbe", "livenessProbe", "startupProbe"]) {
      const pr = c[probe] as Json | undefined;
      if (pr !== undefined) {
        pr.timeoutSeconds ??= 1;
        pr.successThreshold ??= 1;
      }
    }
  }
  for (const v of spec.volumes) {
    if (v.configMap !== undefined) (v.configMap as Json).defaultMode ??= 420;
    if (v.secret !== undefined) (v.secret as Json).defaultMode ??= 420;
    if (v.downwardAPI !== undefined) (v.downwardAPI as Json).defaultMode ??= 420;
  }
  pod.status = { phase: "Running" };
  return pod;
}

const REINJECTED_GOLDEN = "merge-probers.yaml.injected";

if (corpusAbsent !== undefined) {
  it("drift of Istio's golden outputs", { skip: corpusAbsent }, () => {});
} else {
  describe("Istio's golden outputs are up to date with their own configuration", () => {
    const cases = corpusCases((meta) => meta.kubeInject && meta.expectedError === null);

    it("finds the corpus cases", () => assert.ok(cases.length >= 90, `only ${cases.length} cases`));

    for (const c of cases) {
      // Drift un-injects (the user's istio-proxy comes back from the recorded overrides) and injects
      // afresh, so a golden that changes only when re-injected as it stands is up to date; only a golden
      // that is itself a re-injection of an older injection (merge-probers) is stale.
      const reason = c.name === REINJECTED_GOLDEN ? ISTIO_NOT_FIXED_POINTS[c.name] : undefined;
      it(reason === undefined ? c.name : `${c.name} (stale: ${reason})`, () => {
        const injector = caseInjector(c.dir, c.meta);
        const revision = c.meta.kubeInjectRevision;
        const want = readFileSync(join(c.dir, "want.yaml"), "utf8");
        const report = driftOfManifest(want, c.name, {
          ...fileOptions(side({ [revision]: injector })),
          defaultRevision: revision,
          nativeSidecars: c.meta.nativeSidecars,
        });
        const bad = report.owners.flatMap((o) =>
          o.pods
            .filter((p) => p.status !== "up-to-date")
            .map((p) => `${o.kind} ${o.name}: ${p.status} ${p.reason} ${p.changes.join("; ")}`),
        );
        if (reason !== undefined) {
          assert.ok(report.totals.stale > 0, "the golden that is no fixed point shows as stale");
          return;
        }
        assert.deepEqual(bad, []);
      });
    }
  });
}

describe("the library's drift()", () => {
  it("takes objects or YAML, one injector per revision, and a planned injector", async () => {
    const { drift, inject, loadInjectorConfig } = await import("../index.js");
    const today = loadInjectorConfig();
    const canary = loadInjectorConfig({ revision: "canary" });
    const older = loadInjectorConfig({ values: JSON.stringify(olderValues()) });
    const deployment = readYamlDoc(DEPLOYMENT) as Json;
    const objects = [inject(older, deployment), inject(canary, deployment), deployment];
    const report = drift(objects, { injector: [today, canary] });
    // The three are the same Deployment (one owner): injected by the old tag, by canary, not at all.
    assert.deepEqual(
      report.owners[0]?.pods.map((p) => p.status),
      ["stale", "up-to-date", "missing"],
    );
    assert.equal(drift(kubeInjectWith(today, DEPLOYMENT), { injector: today }).totals["up-to-date"], 1);
    const planned = drift([inject(older, deployment)], { injector: older, planned: today });
    assert.equal(planned.mode, "planned");
    assert.equal(planned.totals.stale, 1);
    assert.throws(() => drift([], { injector: today, injection: "nope" as "webhook" }), /injection must be/);
  });
});

function olderValues(): unknown {
  const values = JSON.parse(defaultConfigFiles("").values) as { global: { tag: string } };
  values.global.tag = "1.19.0";
  return values;
}

describe("a pod's revision", () => {
  const pod = (annotations: Record<string, string>, labels: Record<string, string> = {}) =>
    ({ metadata: { annotations, labels }, spec: {} }) as unknown as Parameters<typeof podRevision>[0];
  it("is the istio.io/rev annotation, else the status annotation's, else the istio.io/rev label (istioctl's order)", () => {
    const status = JSON.stringify({ revision: "stable" });
    assert.equal(
      podRevision(pod({ "istio.io/rev": "canary", "sidecar.istio.io/status": status }, { "istio.io/rev": "x" })),
      "canary",
    );
    assert.equal(podRevision(pod({ "sidecar.istio.io/status": status }, { "istio.io/rev": "x" })), "stable");
    assert.equal(podRevision(pod({}, { "istio.io/rev": "x" })), "x");
    assert.equal(podRevision(pod({ "istio.io/rev": "default" })), "");
  });
});
