// The reports' pod model agrees with the running agent: for pods injected with the library and then
// varied (environment values Istio warns about, annotations, a mounted mesh config, podinfo not
// mounted), what `proxy-config` reports and the playground's Envoy bootstrap preview show is what
// `meshinject agent` plans and writes when a kubelet starts that pod. The kubelet here is the test's
// own (test/kubelet.ts: its env resolution and the files it mounts, written under a --root), not the
// reports' pod-env.ts and mounts.ts.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { containerEnv } from "../../test/kubelet.js";
import { readYaml } from "../go/yaml/read.js";
import { defaultConfigFiles, injectYaml, loadInjectorConfig } from "../index.js";
import { splitYamlStream } from "../kube/stream.js";
import { podOf } from "../kube/workloads.js";
import { readMeshConfig } from "../mesh/index.js";
import { formatDownwardAPI } from "./bootstrap/downward-api.js";
import { envoyBootstrapPreview } from "./bootstrap/envoy-preview.js";
import { podBootstrap } from "./bootstrap/pod.js";
import { renderAgentBootstrap } from "./cmd/bootstrap.js";
import { expandVars } from "./expand.js";
import { planFromCommandLine } from "./options/agent-options.js";

type Json = Record<string, unknown>;

const POD_IP = "10.0.0.1";
const NAMESPACE = "shop";
const MESH_PATH = "etc/istio/config/mesh";

interface Case {
  name: string;
  /** Annotations on the pod before injection. */
  annotations?: Record<string, string>;
  /** Changes to the injected istio-proxy container's env: a value, or undefined to remove it. */
  env?: Record<string, string | undefined>;
  /** The mesh config file mounted at --meshConfig (a ConfigMap volume), with this text. */
  meshConfig?: string;
  /** The podinfo volume (the downward-API annotations and labels) is not mounted. */
  noPodinfo?: boolean;
  /** Arguments added to istio-proxy's. */
  args?: string[];
}

const CASES: Case[] = [
  { name: "as injected" },
  // config.CPULimit is an IntVar: set but empty does not parse, which Istio logs, and 0 is used.
  { name: "ISTIO_CPU_LIMIT set empty", env: { ISTIO_CPU_LIMIT: "" } },
  {
    name: "values that do not parse",
    env: { ISTIO_CPU_LIMIT: "two", ENVOY_STATUS_PORT: "x", ISTIO_DELTA_XDS: "maybe", MINIMUM_DRAIN_DURATION: "5" },
  },
  { name: "ISTIO_CPU_LIMIT 3", env: { ISTIO_CPU_LIMIT: "3" } },
  {
    name: "annotations",
    annotations: {
      "proxy.istio.io/config": "{concurrency: 3, drainDuration: 30s, proxyMetadata: {ISTIO_META_X: abc}}",
      "sidecar.istio.io/discoveryAddress": "istiod-canary.istio-system.svc:15012",
      "status.sidecar.istio.io/port": "15030",
    },
  },
  { name: "the legacy --concurrency flag", args: ["--concurrency", "5"] },
  {
    name: "a mounted mesh config",
    meshConfig: "defaultConfig:\n  drainDuration: 11s\n  concurrency: 4\n  discoveryAddress: istiod.other:15012\n",
  },
  {
    name: "podinfo not mounted",
    annotations: { "proxy.istio.io/config": "{concurrency: 3}" },
    noPodinfo: true,
  },
];

const CURL = readFileSync(new URL("../../examples/curl.yaml", import.meta.url), "utf8");

/** The curl Deployment's pod as a Pod `curl-1` in `shop`, with `annotations`, injected. */
function injectedPod(c: Case): Json {
  const docs = splitYamlStream(CURL).map((d) => readYaml(d) as Json);
  const deployment = docs.find((d) => d.kind === "Deployment") as Json;
  const template = (deployment.spec as Json).template as Json;
  const meta = template.metadata as Json;
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { ...meta, name: "curl-1", namespace: NAMESPACE, annotations: c.annotations ?? {} },
    spec: template.spec,
  };
  const injected = readYaml(injectYaml(loadInjectorConfig(), JSON.stringify(pod))) as Json;
  const spec = injected.spec as Json;
  const proxy = (spec.containers as Json[]).find((x) => x.name === "istio-proxy") as Json;
  let env = proxy.env as Json[];
  for (const [name, value] of Object.entries(c.env ?? {})) {
    env = env.filter((e) => e.name !== name);
    if (value !== undefined) env.push({ name, value });
  }
  proxy.env = env;
  proxy.args = [...(proxy.args as string[]), ...(c.args ?? [])];
  if (c.meshConfig !== undefined) {
    (proxy.volumeMounts as Json[]).push({ name: "config-volume", mountPath: "/etc/istio/config" });
    (spec.volumes as Json[]).push({ name: "config-volume", configMap: { name: "istio" } });
  }
  if (c.noPodinfo) proxy.volumeMounts = (proxy.volumeMounts as Json[]).filter((m) => m.name !== "istio-podinfo");
  return injected;
}

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** What the kubelet hands the agent of `pod`: its argv after the program, its env, its files under a root. */
function kubeletStart(pod: Json, c: Case): { args: string[]; env: Record<string, string>; root: string } {
  const meta = pod.metadata as Json;
  const spec = pod.spec as Json;
  const proxy = (spec.containers as Json[]).find((x) => x.name === "istio-proxy") as Json;
  const env = containerEnv(
    proxy,
    {
      "metadata.name": meta.name as string,
      "metadata.namespace": NAMESPACE,
      "spec.serviceAccountName": spec.serviceAccountName as string,
      "status.podIP": POD_IP,
      "status.hostIP": POD_IP,
    },
    {},
  );
  const args = (proxy.args as string[]).map((a) => expandVars(a, (n) => env[n]));
  const root = mkdtempSync(join(tmpdir(), "pod-agent-"));
  roots.push(root);
  if (!c.noPodinfo) {
    mkdirSync(join(root, "etc/istio/pod"), { recursive: true });
    writeFileSync(
      join(root, "etc/istio/pod/annotations"),
      formatDownwardAPI(meta.annotations as Record<string, string>),
    );
    writeFileSync(join(root, "etc/istio/pod/labels"), formatDownwardAPI(meta.labels as Record<string, string>));
  }
  if (c.meshConfig !== undefined) {
    mkdirSync(dirname(join(root, MESH_PATH)), { recursive: true });
    writeFileSync(join(root, MESH_PATH), c.meshConfig);
  }
  return { args, env, root };
}

/** The bootstrap JSON of a preview's only section (its comment lines dropped). */
function previewJSON(text: string): unknown {
  assert.doesNotMatch(text, /would not start/);
  return JSON.parse(
    text
      .split("\n")
      .filter((l) => !l.startsWith("#"))
      .join("\n"),
  );
}

describe("the reports' pod model and the running agent", () => {
  for (const c of CASES) {
    it(`agree on a pod: ${c.name}`, async () => {
      const pod = injectedPod(c);
      const meshConfigText = c.meshConfig ?? defaultConfigFiles().mesh;
      const start = kubeletStart(pod, c);
      const cl = { ...start, interfaces: { eth0: [POD_IP] } };
      const { plan } = await planFromCommandLine(cl);

      // proxy-config's report: the proxy config, its concurrency and what pilot-agent would log.
      const report = podBootstrap(pod, podOf(pod) as NonNullable<ReturnType<typeof podOf>>, {
        meshConfigText,
        mesh: readMeshConfig(meshConfigText),
        namespace: "default",
      });
      assert.ok(report);
      assert.deepEqual(report.proxyConfig, plan.proxyConfig);
      assert.equal(report.concurrency, plan.proxyConfig.concurrency ?? undefined);
      assert.equal(report.domain, plan.domain);
      assert.equal(report.proxyType, plan.proxyType);
      for (const w of plan.warnings) assert.ok(report.notes.includes(w), `the report does not say: ${w}`);

      // The playground's bootstrap preview: the file `agent proxy` writes.
      const preview = envoyBootstrapPreview(JSON.stringify(pod), {
        source: "pod.yaml",
        namespace: "default",
        podIP: POD_IP,
        meshConfigText,
      });
      assert.deepEqual(previewJSON(preview), JSON.parse(await renderAgentBootstrap(cl)));
    });
  }
});
