// `meshinject drift --from-cluster` against our fake API server (test/fake-apiserver.ts: real HTTPS,
// bearer tokens, list chunking; kube-apiserver cannot be installed here). The live pods are made here
// as a cluster makes them: each pod of a Deployment, StatefulSet, DaemonSet, Job, CronJob or bare
// Pod is sent through the webhook's own review (src/webhook/admission.ts) with the configuration of
// its time (today's, or an older proxy tag), the JSONPatch answered is applied by fast-json-patch
// (not our patch code), and what the API server adds (defaults, the token mount) is added after.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { clusterObjects, OLD_TAG, TODAY_TAG } from "../../test/drift-cluster.js";
import { type FakeApiServer, startFakeApiServer } from "../../test/fake-apiserver.js";
import { runMeshinject } from "../../test/meshinject-cli.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import type { DriftReport } from "../report/drift-report.js";

describe("meshinject drift --from-cluster", () => {
  let api: FakeApiServer;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "meshinject-drift-"));
    api = await startFakeApiServer(clusterObjects());
    kubeconfig = await api.kubeconfig(dir);
  });
  after(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });
  const drift = (...args: string[]) => runMeshinject(["drift", "--from-cluster", "--kubeconfig", kubeconfig, ...args]);

  it("reports each owner's pods: stale with the tag change, up to date, missing, unexpected, unknown revision", async () => {
    const r = await drift("-o", "json");
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as DriftReport;
    const statuses = Object.fromEntries(
      report.owners.map((o) => [`${o.kind} ${o.namespace}/${o.name}`, o.pods.map((p) => p.status).join(",")]),
    );
    assert.deepEqual(statuses, {
      "Deployment canaryns/api": "up-to-date",
      "Deployment late/shipping": "missing",
      "Deployment plain/legacy": "unexpected",
      "CronJob shop/report": "up-to-date",
      "DaemonSet shop/agent": "up-to-date",
      "Deployment shop/old": "unknown-revision",
      "Deployment shop/web": "stale,stale",
      "Job shop/migrate": "stale",
      "Pod shop/debug": "up-to-date",
      "StatefulSet shop/db": "up-to-date",
    });
    assert.deepEqual(
      { ...report.totals },
      {
        pods: 12,
        "up-to-date": 5,
        stale: 3,
        missing: 1,
        unexpected: 1,
        "unknown-revision": 1,
        "not-injected": 1,
        error: 0,
      },
    );
    const web = report.owners.find((o) => o.name === "web");
    assert.ok(web?.pods[0]?.changes.includes(`istio-proxy image tag ${OLD_TAG} → ${TODAY_TAG}`), JSON.stringify(web));
    assert.deepEqual(report.restart, [
      "kubectl rollout restart deployment/shipping -n late",
      "kubectl rollout restart deployment/legacy -n plain",
      "kubectl rollout restart deployment/web -n shop",
    ]);
    assert.equal(report.owners.find((o) => o.name === "migrate")?.restartNote?.startsWith("a Job"), true);
    // The pods were read a page at a time.
    assert.ok(
      api.requests.some((q) => /^GET \/api\/v1\/pods\?limit=\d+$/.test(q)),
      api.requests.join("\n"),
    );
  });

  it("prints a table with one row per owner and outcome, the totals and the restart commands", async () => {
    const r = await drift();
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `^Deployment shop/web +2 +default +stale +.*istio-proxy image tag ${OLD_TAG.replace(/\./g, "\\.")} → `,
        "m",
      ),
    );
    assert.match(r.stdout, /^Deployment late\/shipping +1 +- → default +missing +no sidecar/m);
    assert.match(r.stdout, /^12 pods: 5 up to date, 3 stale, 1 missing, 1 unexpected, 1 unknown revision; 1 without/m);
    assert.match(r.stdout, /^ {2}kubectl rollout restart deployment\/web -n shop$/m);
  });

  it("--exit-code fails when anything is stale, and passes in a namespace that is up to date", async () => {
    assert.equal((await drift("--exit-code")).code, 1);
    const ok = await drift("--exit-code", "-n", "canaryns");
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^Deployment canaryns\/api +1 +canary +up to date$/m);
  });

  it("--diff shows the image lines that change; -o yaml is the same report", async () => {
    const r = await drift("--diff", "-n", "shop", "-l", "app=web");
    assert.match(r.stdout, new RegExp(`^-\\s+image: .*:${OLD_TAG.replace(/\./g, "\\.")}$`, "m"));
    assert.match(r.stdout, new RegExp(`^\\+\\s+image: .*:${TODAY_TAG.replace(/\./g, "\\.")}$`, "m"));
    const yaml = await drift("-o", "yaml", "-n", "shop", "-l", "app=web");
    const json = await drift("-o", "json", "-n", "shop", "-l", "app=web");
    assert.deepEqual(parseYaml(yaml.stdout), JSON.parse(json.stdout));
  });

  it("--revision-before/--revision-after: what moving the default revision's pods to canary changes", async () => {
    const r = await drift("--revision-before", "default", "--revision-after", "canary", "-o", "json");
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as DriftReport;
    assert.equal(report.mode, "planned");
    const db = report.owners.find((o) => o.name === "db")?.pods[0];
    assert.equal(db?.status, "stale");
    assert.equal(db?.changes[0], "revision default → canary");
    assert.equal(
      report.owners.find((o) => o.name === "api"),
      undefined,
      "canary's own pods are not part of the move",
    );
  });

  it("--config-before/--config-after: an upgrade of the proxy tag, before it is made", async () => {
    const files = defaultConfigFiles("");
    const values = JSON.parse(files.values) as { global: { tag: string } };
    values.global.tag = "1.99.0";
    const cm = (v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio-sidecar-injector, namespace: istio-system}\ndata:\n  values: ${JSON.stringify(v)}\n`;
    await writeFile(join(dir, "before.yaml"), cm(files.values));
    await writeFile(join(dir, "after.yaml"), cm(JSON.stringify(values)));
    const r = await drift(
      "-n",
      "shop",
      "-l",
      "app=debug",
      "--config-before",
      join(dir, "before.yaml"),
      "--config-after",
      join(dir, "after.yaml"),
      "-o",
      "json",
    );
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as DriftReport;
    const debug = report.owners.find((o) => o.name === "debug")?.pods[0];
    assert.equal(debug?.status, "stale");
    assert.ok(debug?.changes.includes(`istio-proxy image tag ${TODAY_TAG} → 1.99.0`), JSON.stringify(debug));
  });

  it("says what is wrong with the flags, on one line", async () => {
    const r = await runMeshinject(["drift"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "meshinject: name the pods: -f FILE (a manifest), or --from-cluster for the live pods\n");
    const half = await drift("--config-before", "x.yaml");
    assert.equal(half.stderr, "meshinject: --config-before and --config-after go together\n");
    api.failOn("/api/v1/namespaces/istio-system/configmaps/istio-sidecar-injector-canary", 403);
    try {
      const refused = await drift("-n", "canaryns");
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /^meshinject: cannot read ConfigMap istio-system\/istio-sidecar-injector-canary from .*: forbidden: .*\(403: scripted 403\): revision canary's configuration is needed\n$/,
      );
    } finally {
      api.reset();
    }
  });
});

describe("meshinject drift -f", () => {
  const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`;

  it("kube-inject's output is up to date; the same with an older values file is stale; not injected is missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "meshinject-drift-f-"));
    try {
      const files = defaultConfigFiles("");
      const values = JSON.parse(files.values) as { global: { tag: string } };
      values.global.tag = OLD_TAG;
      await writeFile(join(dir, "old-values.json"), JSON.stringify(values));
      await writeFile(join(dir, "app.yaml"), deployment);
      const fresh = await runMeshinject(["kube-inject", "-f", join(dir, "app.yaml")]);
      const old = await runMeshinject([
        "kube-inject",
        "-f",
        join(dir, "app.yaml"),
        "--valuesFile",
        join(dir, "old-values.json"),
      ]);
      await writeFile(
        join(dir, "all.yaml"),
        `${fresh.stdout}${old.stdout.replace(/name: web\n/, "name: web-old\n")}${deployment}`,
      );
      const r = await runMeshinject(["drift", "-f", join(dir, "all.yaml"), "-o", "json", "--exit-code"]);
      assert.equal(r.code, 1, r.stderr);
      const report = JSON.parse(r.stdout) as DriftReport;
      const byName = Object.fromEntries(report.owners.map((o) => [o.name, o.pods.map((p) => p.status).join(",")]));
      assert.deepEqual(byName, { web: "up-to-date,missing", "web-old": "stale" });
      const stale = report.owners.find((o) => o.name === "web-old")?.pods[0];
      assert.ok(stale?.changes.includes(`istio-proxy image tag ${OLD_TAG} → ${TODAY_TAG}`), JSON.stringify(stale));
      const upToDate = await runMeshinject(["drift", "-f", "-", "--exit-code"], { input: fresh.stdout });
      assert.equal(upToDate.code, 0, upToDate.stdout + upToDate.stderr);
      assert.match(upToDate.stdout, /^1 pod: 1 up to date, 0 stale/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("meshinject drift --from-cluster over many pods", () => {
  it("reads them a page at a time and says how far it got on stderr every 1,000 pods", async () => {
    const [first] = clusterObjects().filter(
      (o) => o.kind === "Pod" && (o.metadata as { name?: string }).name?.startsWith("web-"),
    );
    assert.ok(first !== undefined);
    const text = JSON.stringify(first);
    const name = (first.metadata as { name: string }).name;
    const replicas = Array.from({ length: 1200 }, (_, i) => JSON.parse(text.replaceAll(name, `web-6f7c9-r${i}`)));
    const others = clusterObjects().filter((o) => o.kind !== "Pod");
    const api = await startFakeApiServer([...others, ...replicas]);
    const dir = await mkdtemp(join(tmpdir(), "meshinject-drift-many-"));
    try {
      const r = await runMeshinject([
        "drift",
        "--from-cluster",
        "--kubeconfig",
        await api.kubeconfig(dir),
        "-o",
        "json",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /^meshinject: drift: 1000 pods compared \(\d+\.\d s\)\n$/);
      const report = JSON.parse(r.stdout) as DriftReport;
      assert.equal(report.totals.stale, 1200);
      const pages = api.requests.filter((q) => q.startsWith("GET /api/v1/pods?"));
      assert.deepEqual(pages.length, 5, pages.join("\n"));
    } finally {
      await api.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
