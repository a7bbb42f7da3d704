// Live check-inject against our fake API server (test/fake-apiserver.ts: real HTTPS and bearer
// tokens; kube-apiserver cannot be installed here), run in-process as the other check-inject tests.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type FakeApiServer, startFakeApiServer } from "../../test/fake-apiserver.js";
import { runManifestCommand } from "../../test/manifest-command-run.js";
import { webhookConfiguration } from "../webhook/webhook-config.js";
import { checkInjectCommand } from "./check-inject.js";

const podTemplate = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ name: "web", image: "nginx" }] },
});

const objects = [
  {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "shop", labels: { "istio-injection": "enabled", "kubernetes.io/metadata.name": "shop" } },
  },
  {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "plain", labels: { "kubernetes.io/metadata.name": "plain" } },
  },
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "shop" },
    spec: { selector: { matchLabels: { app: "web" } }, template: podTemplate({ app: "web" }) },
  },
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "plain" },
    spec: { selector: { matchLabels: { app: "web" } }, template: podTemplate({ app: "web" }) },
  },
  // List items come without kind and apiVersion, as from a real API server.
  { kind: "Pod", metadata: { name: "web-1", namespace: "shop", labels: { app: "web" } }, spec: podTemplate({}).spec },
  {
    kind: "Pod",
    metadata: { name: "web-2", namespace: "shop", labels: { app: "web", "sidecar.istio.io/inject": "false" } },
    spec: podTemplate({}).spec,
  },
  webhookConfiguration(),
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "istio-sidecar-injector", namespace: "istio-system" },
    data: { config: "policy: enabled\nneverInjectSelector: []\nalwaysInjectSelector: []\ntemplates: {}\n" },
  },
];

describe("check-inject on live objects", () => {
  let api: FakeApiServer;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "meshinject-live-"));
    api = await startFakeApiServer(objects);
    kubeconfig = await api.kubeconfig(dir);
  });
  after(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });
  const run = (args: string[]) => runManifestCommand(checkInjectCommand, {}, [...args, "--kubeconfig", kubeconfig]);

  it("reads the workload, its namespace, the webhooks and the injector config, and reports as for files", async () => {
    const r = await run(["deployment/web", "-n", "shop"]);
    assert.equal(r.stderr, "");
    assert.match(
      r.stdout,
      /^# live objects from https:\/\/127\.0\.0\.1:\d+, context fake\n# injector config: ConfigMap istio-system\/istio-sidecar-injector\n/,
    );
    assert.match(r.stdout, /^# Deployment shop\/web$/m);
    assert.match(r.stdout, /^namespace labels: istio-injection=enabled, kubernetes\.io\/metadata\.name=shop$/m);
    assert.match(r.stdout, /^verdict: injected by /m);
    const plain = await run(["deploy/web", "-n", "plain"]);
    assert.match(plain.stdout, /^verdict: not injected: no injection webhook is called/m);
    assert.ok(
      api.requests.some((q) => q === "GET /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"),
    );
  });

  it("checks the pods a selector matches, as JSON with -o json", async () => {
    const r = await run(["-l", "app=web", "-n", "shop", "-o", "json"]);
    assert.equal(r.stderr, "");
    const out = JSON.parse(r.stdout) as { workloads: Array<{ workload: string; verdict: { injected: boolean } }> };
    assert.deepEqual(
      out.workloads.map((w) => [w.workload, w.verdict.injected]),
      [
        ["Pod shop/web-1", true],
        ["Pod shop/web-2", false],
      ],
    );
  });

  it("fails in one line: unknown kind, missing object, forbidden, nothing selected, no input named", async () => {
    const fails = async (args: string[], re: RegExp) => {
      const r = await run(args);
      assert.equal(r.failed, true, r.stdout);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.split("\n").length, 2, r.stderr);
    };
    await fails(
      ["gizmo/web", "-n", "shop"],
      /^meshinject: "gizmo\/web" is not KIND\/NAME with KIND one of pod, deployment/,
    );
    await fails(
      ["deployment/nope", "-n", "shop"],
      /^meshinject: cannot read Deployment shop\/nope from .*: not found \(404: deployments "nope" not found\)$/m,
    );
    await fails(["-l", "app=none", "-n", "shop"], /^meshinject: no pod in namespace shop matches -l app=none$/m);
    api.failOn("/apis/admissionregistration.k8s.io", 403);
    await fails(
      ["deployment/web", "-n", "shop"],
      /^meshinject: cannot read the MutatingWebhookConfigurations from .*: forbidden/m,
    );
    api.reset();
    const none = await runManifestCommand(checkInjectCommand, {}, []);
    assert.match(
      none.stderr,
      /^meshinject: name what to check: -f FILE, a live object \(deployment\/web\), or -l SELECTOR/,
    );
  });
});
