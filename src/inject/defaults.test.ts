/**
 * The built-in configuration: its documents load, and its templates inject the same pods as Istio's
 * own templates, template by template and through kube-inject. Istio's templates are read at test time from the istio-inject conformance corpus
 * (../shared, outside the repository); without the corpus, the equivalence tests are skipped.
 *
 * Equivalence: both template sets are rendered with the same dot for many pods (every corpus input,
 * plus pods carrying each injection annotation), under the values/mesh of every corpus case, of our
 * defaults and of value variants that switch on the rarer branches; the two outputs must both fail,
 * or both parse (as YAML, the way the injector reads them) to the same document, nulls included
 * (a null in a template output deletes the key when merged over the pod).
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { readYaml } from "../go/yaml/read.js";
import { splitYamlStream } from "../kube/stream.js";
import { deployMetaOf, podOf } from "../kube/workloads.js";
import {
  type MeshConfig,
  meshConfigView,
  messagesEqual,
  podProxyConfig,
  proxyConfigView,
  readMeshConfig,
} from "../mesh/index.js";
import type { Template } from "../template/index.js";
import { type InjectionValues, type InjectorConfig, parseInjectorConfig, parseValues } from "./config.js";
import { templateData } from "./data.js";
import { DEFAULT_TEMPLATE_NAMES, defaultConfigFiles, defaultTemplate } from "./defaults.js";
import { proxyImage, proxyInitImage } from "./images.js";
import { compileTemplates, loadInjector } from "./injector.js";
import { kubeInject } from "./kube-inject.js";

const CORPUS = new URL("../../../shared/conformance/istio-inject/", import.meta.url);
const haveCorpus = existsSync(new URL("FORMAT.md", CORPUS));
const skipWithoutCorpus = haveCorpus
  ? false
  : 'the istio-inject conformance corpus is absent: it is generated from Istio\'s sources and placed beside the clone as ../shared/conformance (README, "Conformance")';
const corpusFile = (c: string, f: string): string => readFileSync(new URL(`${c}/${f}`, CORPUS), "utf8");

describe("defaultConfigFiles", () => {
  const files = defaultConfigFiles();

  test("config: injection enabled, sidecar by default, our four templates verbatim", () => {
    const config = parseInjectorConfig(files.config);
    assert.equal(config.policy, "enabled");
    assert.deepEqual(config.defaultTemplates, ["sidecar"]);
    assert.deepEqual(Object.keys(config.templates), [...DEFAULT_TEMPLATE_NAMES]);
    for (const name of DEFAULT_TEMPLATE_NAMES) assert.equal(config.templates[name], defaultTemplate(name));
    assert.deepEqual(config.neverInjectSelector, []);
    assert.deepEqual(config.injectedAnnotations, {});
    assert.equal(compileTemplates(config, () => undefined).size, 4);
  });

  test("values: a default install's images and proxy settings", () => {
    const values = parseValues(files.values).json as { global: Record<string, unknown> } & Record<string, unknown>;
    assert.equal(values.global.hub, "docker.io/istio");
    assert.equal(values.global.tag, "1.28.0");
    assert.equal(values.global.istioNamespace, "istio-system");
    assert.equal(proxyImage(values, undefined, {}), "docker.io/istio/proxyv2:1.28.0");
    assert.equal(proxyInitImage(values, {}), "docker.io/istio/proxyv2:1.28.0");
    const proxy = values.global.proxy as Record<string, unknown>;
    assert.equal(proxy.statusPort, 15020);
    assert.deepEqual(proxy.resources, {
      requests: { cpu: "100m", memory: "128Mi" },
      limits: { cpu: "2000m", memory: "1024Mi" },
    });
    assert.deepEqual(values.pilot, { cni: { enabled: false, provider: "default" }, env: {} });
    assert.equal(values.revision, "");
  });

  test("mesh: istiod in istio-system, MeshConfig defaults elsewhere", () => {
    const mesh = readMeshConfig(files.mesh);
    assert.equal(mesh.defaultConfig?.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.equal(mesh.defaultConfig?.statusPort, 15020);
    assert.equal(mesh.trustDomain, "cluster.local");
    assert.equal(mesh.rootNamespace, "istio-system");
    assert.equal(mesh.enablePrometheusMerge, true);
  });

  test("a named revision's control plane: values.revision and the discovery address name it", () => {
    const canary = defaultConfigFiles("canary");
    assert.equal(canary.config, files.config);
    const values = parseValues(canary.values).json as Record<string, unknown>;
    assert.equal(values.revision, "canary");
    const { revision: _ours, ...rest } = values;
    const { revision: _default, ...defaultRest } = parseValues(files.values).json as Record<string, unknown>;
    assert.deepEqual(rest, defaultRest);
    assert.equal(readMeshConfig(canary.mesh).defaultConfig?.discoveryAddress, "istiod-canary.istio-system.svc:15012");
    assert.match(canary.mesh, /revision "canary"/);
    assert.doesNotMatch(canary.mesh, /revision "default"/);
    // "default" is the default control plane, not one called istiod-default.
    assert.deepEqual(defaultConfigFiles("default"), files);
    // istiod-REV is a Service name: a revision must be a DNS-1123 label.
    assert.throws(() => defaultConfigFiles("Bad_Rev"), /revision "Bad_Rev" is not a valid revision name/);
    assert.throws(() => defaultConfigFiles("-x"), /not a valid revision name/);
    assert.equal(defaultConfigFiles("1-28-0").values.includes('"revision": "1-28-0"'), true);
  });

  test("kube-inject with a revision's built-in default reaches that revision's istiod", () => {
    const loaded = loadInjector(defaultConfigFiles("canary"));
    const out = kubeInject(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: app\n",
      {
        settings: loaded.settings,
        config: loaded.config,
        meshConfig: loaded.meshConfig,
        revision: "canary",
        nativeSidecar: false,
        warn: () => {},
      },
    );
    assert.match(out, /value: istiod-canary\.istio-system\.svc:15012/);
    assert.match(out, /discoveryAddress":"istiod-canary\.istio-system\.svc:15012"|discoveryAddress: istiod-canary/);
    assert.doesNotMatch(out, /istiod\.istio-system/);
  });

  test("matches the values and mesh of the corpus's default case, but for hub and tag", {
    skip: skipWithoutCorpus,
  }, () => {
    const ours = parseValues(files.values).json as { global: Record<string, unknown> };
    const theirs = parseValues(corpusFile("auth.yaml.injected", "values.json")).json as {
      global: Record<string, unknown>;
    };
    // Every key we ship has the corpus's value (we leave out keys no template or injector reads).
    const differing: string[] = [];
    const walk = (a: unknown, b: unknown, path: string): void => {
      if (a !== null && typeof a === "object" && !Array.isArray(a) && Object.keys(a).length > 0) {
        for (const [k, v] of Object.entries(a))
          walk(v, (b as Record<string, unknown> | undefined)?.[k], `${path}.${k}`);
      } else if (!isDeepStrictEqual(a, b)) differing.push(path);
    };
    walk(ours, theirs, "");
    assert.deepEqual(differing, [".global.hub", ".global.tag"]);
    const mesh = readMeshConfig(corpusFile("auth.yaml.injected", "mesh.yaml"));
    assert.ok(messagesEqual("MeshConfig", readMeshConfig(files.mesh), mesh));
  });
});

/** One set of injector settings: values and effective mesh. */
interface Settings {
  name: string;
  /** The values and mesh texts, to find settings equal to a given case's. */
  key: string;
  values: InjectionValues;
  mesh: MeshConfig;
}

interface PodCase {
  name: string;
  doc: unknown;
}

/** Every injectable document of the corpus inputs (List items included). */
function corpusPods(): PodCase[] {
  const out: PodCase[] = [];
  const seen = new Set<string>();
  for (const c of readdirSync(CORPUS).sort()) {
    if (!existsSync(new URL(`${c}/input.yaml`, CORPUS))) continue;
    const input = corpusFile(c, "input.yaml");
    if (seen.has(input)) continue;
    seen.add(input);
    for (const [i, raw] of splitYamlStream(input).entries()) {
      const doc = readYaml(raw) as { kind?: string; items?: unknown[] } | null;
      const docs = doc?.kind === "List" && Array.isArray(doc.items) ? doc.items : [doc];
      for (const [j, d] of docs.entries()) out.push({ name: `${c}#${i}.${j}`, doc: d });
    }
  }
  return out.filter((p) => safePodOf(p.doc) !== undefined);
}

function safePodOf(doc: unknown): ReturnType<typeof podOf> {
  try {
    return podOf(doc);
  } catch {
    return undefined;
  }
}

/** A Deployment with two app containers, carrying the given annotations and extra labels. */
function syntheticPod(
  annotations: Record<string, string>,
  labels: Record<string, string> = {},
  spec: Record<string, unknown> = {},
): unknown {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "shop" },
    spec: {
      template: {
        metadata: { labels: { app: "web", version: "v2", ...labels }, annotations },
        spec: {
          containers: [
            {
              name: "web",
              image: "example.com/web:1",
              ports: [
                { name: "http", containerPort: 8080 },
                { name: "dns", containerPort: 53, protocol: "UDP" },
              ],
              readinessProbe: { httpGet: { path: "/ready", port: 8080 } },
            },
            { name: "worker", image: "example.com/worker:1", ports: [{ containerPort: 9090 }] },
          ],
          ...spec,
        },
      },
    },
  };
}

const PROXY_CONFIG = "proxy.istio.io/config";

/** Pods exercising each annotation and label the templates read. */
function syntheticPods(): PodCase[] {
  const cases: Array<[string, Record<string, string>, Record<string, string>?, Record<string, unknown>?]> = [
    ["plain", {}],
    ["tproxy", { "sidecar.istio.io/interceptionMode": "TPROXY" }],
    ["no-capture", { "sidecar.istio.io/interceptionMode": "NONE" }],
    ["redirect", { "sidecar.istio.io/interceptionMode": "REDIRECT" }],
    ["requests", { "sidecar.istio.io/proxyCPU": "250m", "sidecar.istio.io/proxyMemory": "256Mi" }],
    ["cpu-only", { "sidecar.istio.io/proxyCPU": "1" }],
    ["limits", { "sidecar.istio.io/proxyCPULimit": "2", "sidecar.istio.io/proxyMemoryLimit": "2Gi" }],
    [
      "requests-limits",
      {
        "sidecar.istio.io/proxyCPU": "100m",
        "sidecar.istio.io/proxyMemory": "64Mi",
        "sidecar.istio.io/proxyCPULimit": "300m",
        "sidecar.istio.io/proxyMemoryLimit": "1Gi",
      },
    ],
    [
      "inbound-ports",
      {
        "traffic.sidecar.istio.io/includeInboundPorts": "8080,9090",
        "traffic.sidecar.istio.io/excludeInboundPorts": "9091",
      },
    ],
    ["status-port-off", { "status.sidecar.istio.io/port": "0" }],
    [
      "status-port-readiness",
      {
        "status.sidecar.istio.io/port": "15021",
        "readiness.status.sidecar.istio.io/initialDelaySeconds": "3",
        "readiness.status.sidecar.istio.io/periodSeconds": "7",
        "readiness.status.sidecar.istio.io/failureThreshold": "11",
      },
    ],
    ["rewrite-probers-off", { "sidecar.istio.io/rewriteAppHTTPProbers": "false" }],
    ["rewrite-probers-on", { "sidecar.istio.io/rewriteAppHTTPProbers": "true" }],
    ["native-on", { "sidecar.istio.io/nativeSidecar": "true" }],
    ["native-off", { "sidecar.istio.io/nativeSidecar": "false" }],
    ["native-empty", { "sidecar.istio.io/nativeSidecar": "" }],
    ["hold", { [PROXY_CONFIG]: "holdApplicationUntilProxyStarts: true" }],
    ["hold-tproxy", { [PROXY_CONFIG]: "holdApplicationUntilProxyStarts: true\ninterceptionMode: TPROXY" }],
    ["proxy-image-full", { "sidecar.istio.io/proxyImage": "example.com/mesh/proxy:9" }],
    ["proxy-image-bare", { "sidecar.istio.io/proxyImage": "proxyv3" }],
    ["proxy-image-type", { "sidecar.istio.io/proxyImageType": "distroless" }],
    [
      "user-volumes",
      {
        "sidecar.istio.io/userVolume": '{"extra":{"configMap":{"name":"extra"}},"scratch":{"emptyDir":{}}}',
        "sidecar.istio.io/userVolumeMount":
          '{"extra":{"mountPath":"/etc/extra","readOnly":true},"scratch":{"mountPath":"/tmp/s"}}',
      },
    ],
    ["exclude-interfaces", { "traffic.sidecar.istio.io/excludeInterfaces": "eth1,eth2" }],
    ["kubevirt", { "traffic.sidecar.istio.io/kubevirtInterfaces": "net1" }],
    [
      "reroute-and-kubevirt",
      { "istio.io/reroute-virtual-interfaces": "net2", "traffic.sidecar.istio.io/kubevirtInterfaces": "net1" },
    ],
    [
      "outbound",
      {
        "traffic.sidecar.istio.io/includeOutboundIPRanges": "10.0.0.0/8",
        "traffic.sidecar.istio.io/excludeOutboundIPRanges": "10.1.0.0/16",
        "traffic.sidecar.istio.io/includeOutboundPorts": "443",
        "traffic.sidecar.istio.io/excludeOutboundPorts": "3306",
      },
    ],
    [
      "empty-includes",
      { "traffic.sidecar.istio.io/includeOutboundIPRanges": "", "traffic.sidecar.istio.io/includeInboundPorts": "" },
    ],
    ["cap-net-bind", { "sidecar.istio.io/capNetBindService": "true" }],
    [
      "cap-net-bind-tproxy",
      { "sidecar.istio.io/capNetBindService": "true", "sidecar.istio.io/interceptionMode": "TPROXY" },
    ],
    ["bootstrap-override", { "sidecar.istio.io/bootstrapOverride": "my-bootstrap" }],
    [
      "log-levels",
      {
        "sidecar.istio.io/logLevel": "debug",
        "sidecar.istio.io/componentLogLevel": "upstream:debug",
        "sidecar.istio.io/agentLogLevel": "default:debug",
      },
    ],
    [
      "proxy-metadata",
      { [PROXY_CONFIG]: 'proxyMetadata:\n  ISTIO_META_ENABLE_HBONE: "true"\n  FOO: bar\n  DNS_AGENT: ""' },
    ],
    ["iptables-trace", { [PROXY_CONFIG]: 'proxyMetadata:\n  IPTABLES_TRACE_LOGGING: "true"' }],
    ["mesh-tproxy", { [PROXY_CONFIG]: "interceptionMode: TPROXY\nconcurrency: 2" }],
    ["lightstep", { [PROXY_CONFIG]: "tracing:\n  tlsSettings:\n    caCertificates: /etc/lightstep/ca.pem" }],
    ["datadog-env", { "apm.datadoghq.com/env": '{"DD_ENV":"prod","DD_SERVICE":"web"}' }],
    [
      "default-containers-set",
      { "kubectl.kubernetes.io/default-container": "worker", "kubectl.kubernetes.io/default-logs-container": "worker" },
    ],
    ["multus-list", { "k8s.v1.cni.cncf.io/networks": "macvlan, sriov" }],
    ["multus-json", { "k8s.v1.cni.cncf.io/networks": '[{"name":"macvlan"}]' }],
    ["templates-annotation", { "inject.istio.io/templates": "gateway" }],
    [
      "labels",
      {},
      {
        "service.istio.io/canonical-name": "a-very-long-canonical-service-name-that-goes-beyond-sixty-three-chars-",
        "service.istio.io/canonical-revision": "r7",
        "service.istio.io/workload-name": "web-workload",
        "security.istio.io/tlsMode": "disabled",
        "networking.istio.io/tunnel": "h2",
      },
    ],
    ["app-kubernetes-labels", {}, { "app.kubernetes.io/name": "shop-web", "app.kubernetes.io/version": "3.1" }],
    ["service-account", {}, {}, { serviceAccountName: "web-sa" }],
    [
      "user-proxy",
      { "inject.istio.io/templates": "gateway" },
      {},
      { containers: [{ name: "istio-proxy", image: "auto", ports: [{ containerPort: 8443, name: "https" }] }] },
    ],
    ["no-containers", {}, {}, { containers: [] }],
  ];
  return cases.map(([name, annotations, labels, spec]) => ({ name, doc: syntheticPod(annotations, labels, spec) }));
}

type Obj = Record<string, unknown>;
/** The parts of the values document the variants change. */
type ValuesDoc = Obj & { global: Obj & { proxy: Obj; proxy_init: Obj }; pilot: Obj; gateways: Obj };

/** Mutations of our default values that switch on the branches a default install leaves off. */
function valueVariants(): Array<[string, (v: ValuesDoc) => void]> {
  return [
    [
      "everything-on",
      (v) => {
        Object.assign(v.global, {
          meshID: "mesh-a",
          caAddress: "ca.example.com:15012",
          network: "net-a",
          multiCluster: { clusterName: "cluster-a" },
          imagePullPolicy: "Always",
          imagePullSecrets: ["pull-a", "pull-b"],
          logAsJson: true,
          sts: { servicePort: 15463 },
          mountMtlsCerts: true,
          nativeNftables: true,
          trustBundleName: "bundle",
        });
        Object.assign(v.global.proxy, {
          outlierLogPath: "/dev/stdout",
          privileged: true,
          seccompProfile: { type: "RuntimeDefault" },
          includeOutboundPorts: "443",
          excludeOutboundPorts: "3306",
          tracer: "datadog",
          startupProbe: { enabled: false, failureThreshold: 600 },
          resources: { requests: { cpu: null, memory: "1Gi" }, limits: { cpu: "3", memory: null } },
        });
        v.global.proxy_init.forceApplyIptables = true;
        v.revision = "canary";
        v.pilot.env = { ENABLE_CLUSTER_TRUST_BUNDLE_API: true };
        v.pilot.crlConfigMapName = "crl";
        v.gateways.securityContext = { runAsUser: 1000, sysctls: [{ name: "a", value: "1" }] };
      },
    ],
    [
      "cni-multus-lightstep",
      (v) => {
        v.pilot.cni = { enabled: true, provider: "multus" };
        v.global.proxy.tracer = "lightstep";
        v.global.caName = "GkeWorkloadCertificate";
        v.global.pilotCertProvider = "kubernetes";
        v.global.proxy.lifecycle = { preStop: { exec: { command: ["sleep", "5"] } } };
        v.global.proxy.resources = {};
      },
    ],
    [
      "cni-hold",
      (v) => {
        v.pilot.cni = { enabled: true, provider: "default" };
        v.global.proxy.holdApplicationUntilProxyStarts = true;
        v.global.proxy.capNetBindService = true;
        v.global.proxy.statusPort = 0;
      },
    ],
  ];
}

function allSettings(): Settings[] {
  const files = defaultConfigFiles();
  const ourMesh = readMeshConfig(files.mesh);
  const out: Settings[] = [{ name: "meshinject defaults", key: "", values: parseValues(files.values), mesh: ourMesh }];
  for (const [name, mutate] of valueVariants()) {
    const v = JSON.parse(files.values) as ValuesDoc;
    mutate(v);
    out.push({ name: `defaults/${name}`, key: "", values: parseValues(JSON.stringify(v)), mesh: ourMesh });
  }
  const seen = new Set<string>();
  for (const c of readdirSync(CORPUS).sort()) {
    if (!existsSync(new URL(`${c}/values.json`, CORPUS))) continue;
    const values = corpusFile(c, "values.json");
    const mesh = corpusFile(c, "mesh.yaml");
    if (seen.has(values + mesh)) continue;
    seen.add(values + mesh);
    out.push({ name: c, key: values + mesh, values: parseValues(values), mesh: readMeshConfig(mesh) });
  }
  return out;
}

interface Flags {
  nativeSidecars: boolean;
  compliancePolicy: string;
  proxyUID: bigint;
  revision: string;
}

function render(template: Template, data: unknown): { ok: true; doc: unknown } | { ok: false; error: string } {
  let text: string;
  try {
    text = template.execute(data as never);
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
  try {
    return { ok: true, doc: readYaml(text) };
  } catch (e) {
    return { ok: false, error: `YAML: ${(e as Error).message}` };
  }
}

describe("built-in templates render the same pods as Istio's", { skip: skipWithoutCorpus }, () => {
  if (!haveCorpus) return;
  const env = () => undefined;
  const ours = compileTemplates(parseInjectorConfig(defaultConfigFiles().config), env);
  const istioConfig = parseInjectorConfig("");
  const istioJSON = JSON.parse(corpusFile("hello-cncf-networks.yaml.injected", "injector-config.json")) as {
    templates: Record<string, string>;
  };
  for (const name of DEFAULT_TEMPLATE_NAMES) istioConfig.templates[name] = istioJSON.templates[name] as string;
  const istio = compileTemplates(istioConfig, env);
  const settings = allSettings();
  const corpus = corpusPods();
  const synthetic = syntheticPods();

  /** Renders every template for the pod under the settings and flags; returns a description of each mismatch. */
  function compare(pod: PodCase, s: Settings, flags: Flags, counts: { same: number; bothFail: number }): string[] {
    const parts = podOf(pod.doc);
    if (parts === undefined) return [];
    const deploy = deployMetaOf(pod.doc);
    const annotations = (parts.metadata.annotations ?? {}) as Record<string, string>;
    let proxyConfig: ReturnType<typeof podProxyConfig>;
    try {
      proxyConfig = podProxyConfig(s.mesh, annotations);
    } catch {
      return []; // an unreadable proxy.istio.io/config stops injection before any template runs
    }
    const imageType = proxyConfig.image?.imageType;
    const data = templateData({
      typeMeta: deploy.typeMeta,
      deployMeta: deploy,
      metadata: parts.metadata,
      spec: parts.spec,
      proxyConfig: proxyConfigView(proxyConfig),
      meshConfig: meshConfigView(s.mesh),
      values: s.values.go,
      revision: flags.revision,
      nativeSidecars: flags.nativeSidecars,
      proxyImage: proxyImage(s.values.json, imageType, annotations),
      proxyInitImage: proxyInitImage(s.values.json, annotations),
      proxyUID: flags.proxyUID,
      proxyGID: flags.proxyUID,
      inboundTrafficPolicyMode: s.mesh.inboundTrafficPolicy?.mode === "LOCALHOST" ? "localhost" : "passthrough",
      compliancePolicy: flags.compliancePolicy,
    });
    const problems: string[] = [];
    for (const name of DEFAULT_TEMPLATE_NAMES) {
      const want = render(istio.get(name) as Template, data);
      const got = render(ours.get(name) as Template, data);
      const where = `${name} | ${pod.name} | ${s.name} | ${JSON.stringify(flags, (_k, v) => (typeof v === "bigint" ? Number(v) : v))}`;
      if (want.ok && got.ok) {
        if (isDeepStrictEqual(want.doc, got.doc)) counts.same++;
        else {
          assert.deepStrictEqual(got.doc, want.doc, where); // shows the first difference in detail
        }
      } else if (!want.ok && !got.ok) counts.bothFail++;
      else problems.push(`${where}: istio ${want.ok ? "ok" : want.error} / ours ${got.ok ? "ok" : got.error}`);
    }
    return problems;
  }

  const FLAG_SETS: Flags[] = [
    { nativeSidecars: true, compliancePolicy: "", proxyUID: 1337n, revision: "default" },
    { nativeSidecars: false, compliancePolicy: "fips-140-3", proxyUID: 1000629999n, revision: "" },
  ];

  test("corpus pods, under our defaults and the corpus's default settings", (t) => {
    const counts = { same: 0, bothFail: 0 };
    const defaultCase = corpusFile("auth.yaml.injected", "values.json") + corpusFile("auth.yaml.injected", "mesh.yaml");
    const chosen = settings.filter((s) => s.name === "meshinject defaults" || s.key === defaultCase);
    assert.equal(chosen.length, 2);
    const problems = corpus.flatMap((p) => chosen.flatMap((s) => FLAG_SETS.flatMap((f) => compare(p, s, f, counts))));
    assert.deepEqual(problems, []);
    assert.ok(corpus.length >= 70, `only ${corpus.length} corpus pods`);
    t.diagnostic(`${corpus.length} pods: ${counts.same} renders equal, ${counts.bothFail} failing in both`);
    assert.ok(counts.same > counts.bothFail * 10, `${counts.same} same, ${counts.bothFail} both failing`);
  });

  test("annotated pods, under every corpus setting, our defaults and value variants", (t) => {
    const counts = { same: 0, bothFail: 0 };
    // To bound the run time (YAML parsing dominates), each pod runs under our settings and a third of
    // the corpus settings, rotating, and each pair under one flag set, alternating.
    let pairs = 0;
    const problems = synthetic.flatMap((p, i) =>
      settings.flatMap((s, j) => {
        if (s.key !== "" && (i + j) % 3 !== 0) return [];
        pairs++;
        return compare(p, s, FLAG_SETS[(i + j) % FLAG_SETS.length] as Flags, counts);
      }),
    );
    assert.deepEqual(problems, []);
    assert.ok(settings.length >= 15, `only ${settings.length} settings`);
    t.diagnostic(
      `${synthetic.length} pods, ${settings.length} settings, ${pairs} pairs: ${counts.same} renders equal, ${counts.bothFail} failing in both`,
    );
    assert.ok(counts.same > counts.bothFail * 10, `${counts.same} same, ${counts.bothFail} both failing`);
  });
});

interface CorpusCase {
  name: string;
  nativeSidecars: boolean;
  compliancePolicy: string;
  kubeInjectRevision: string;
  kubeInject: boolean;
}

/** kube-inject of a corpus case's input; the error message when it fails. */
function runKubeInject(
  c: CorpusCase,
  config: InjectorConfig,
  values: InjectionValues,
  meshConfig: MeshConfig,
): { output: string } | { error: string } {
  try {
    const output = kubeInject(corpusFile(c.name, "input.yaml"), {
      settings: { templates: compileTemplates(config, () => undefined), values, compliancePolicy: c.compliancePolicy },
      config,
      meshConfig,
      revision: c.kubeInjectRevision,
      nativeSidecar: c.nativeSidecars,
      warn: () => {},
    });
    return { output };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The case's injector config as Go loads it (injector-config.json). */
function corpusConfig(name: string): InjectorConfig {
  const parsed = JSON.parse(corpusFile(name, "injector-config.json")) as Partial<InjectorConfig>;
  const config = parseInjectorConfig("");
  config.defaultTemplates = parsed.defaultTemplates ?? ["sidecar"];
  config.templates = { ...parsed.templates };
  return config;
}

describe("kube-inject with the built-in templates", { skip: skipWithoutCorpus }, () => {
  if (!haveCorpus) return;
  const cases = readdirSync(CORPUS)
    .sort()
    .filter((c) => existsSync(new URL(`${c}/case.json`, CORPUS)))
    .map((c) => JSON.parse(corpusFile(c, "case.json")) as CorpusCase)
    .filter((c) => c.kubeInject);

  test("every corpus case gives the same output with Istio's built-in templates swapped for ours", (t) => {
    let same = 0;
    let bothFail = 0;
    const differing: string[] = [];
    for (const c of cases) {
      const istio = corpusConfig(c.name);
      const ours = corpusConfig(c.name);
      // Built-ins the case's overlay replaced (none in the corpus) would not be Istio's: keep those.
      const chart = corpusConfig("hello-cncf-networks.yaml.injected");
      for (const name of DEFAULT_TEMPLATE_NAMES) {
        if (ours.templates[name] === chart.templates[name]) ours.templates[name] = defaultTemplate(name);
      }
      const values = parseValues(corpusFile(c.name, "values.json"));
      // mesh.yaml is already the effective MeshConfig, in protobuf JSON form.
      const mesh = (readYaml(corpusFile(c.name, "mesh.yaml")) ?? {}) as MeshConfig;
      const want = runKubeInject(c, istio, values, mesh);
      const got = runKubeInject(c, ours, values, mesh);
      if ("output" in want && "output" in got && want.output === got.output) same++;
      else if ("error" in want && "error" in got) bothFail++;
      else differing.push(c.name);
    }
    assert.deepEqual(differing, []);
    t.diagnostic(`${cases.length} cases: ${same} identical outputs, ${bothFail} failing in both`);
  });

  test("our values and mesh give the same pods as a default install's, but for hub and tag", (t) => {
    const loaded = loadInjector(defaultConfigFiles());
    const defaultSettings =
      corpusFile("auth.yaml.injected", "values.json") + corpusFile("auth.yaml.injected", "mesh.yaml");
    const chart = corpusConfig("auth.yaml.injected");
    let same = 0;
    let bothFail = 0;
    const differing: string[] = [];
    for (const c of cases) {
      if (corpusFile(c.name, "values.json") + corpusFile(c.name, "mesh.yaml") !== defaultSettings) continue;
      if (!isDeepStrictEqual(corpusConfig(c.name), chart)) continue;
      const want = runKubeInject(
        c,
        chart,
        parseValues(corpusFile(c.name, "values.json")),
        (readYaml(corpusFile(c.name, "mesh.yaml")) ?? {}) as MeshConfig,
      );
      const got = runKubeInject(c, loaded.config, loaded.settings.values, loaded.meshConfig);
      if ("output" in want && "output" in got) {
        const retagged = got.output.replace(
          /docker\.io\/istio\/([\w.-]+):1\.28\.0/g,
          "registry.istio.io/testing/$1:latest",
        );
        if (retagged === want.output) same++;
        else differing.push(c.name);
      } else if ("error" in want && "error" in got) bothFail++;
      else differing.push(c.name);
    }
    assert.deepEqual(differing, []);
    assert.ok(same >= 60, `only ${same} cases with default settings`);
    t.diagnostic(`default-settings cases: ${same} identical outputs modulo hub/tag, ${bothFail} failing in both`);
  });
});
