// deploy/ and the Dockerfile, checked without a cluster: every manifest reads as Kubernetes reads
// YAML, the generated files are current, and the objects agree with each other and with the image.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DEPLOY, generatedManifests, type ManifestOptions, manifestSet } from "../scripts/gen-deploy-manifests.js";
import { runCerts } from "../src/cli/certs.js";
import { serviceFor } from "../src/cli/service-defaults.js";
import { readYaml } from "../src/go/yaml/read.js";
import { parseValues } from "../src/inject/config.js";
import { loadInjector } from "../src/inject/injector.js";
import { splitYamlStream } from "../src/kube/stream.js";
import { selectorMatches } from "../src/webhook/webhook-match.js";

// biome-ignore lint/suspicious/noExplicitAny: the test walks manifests freely; a wrong path fails an assertion.
type Json = Record<string, any>;

const root = new URL("../", import.meta.url);
const text = (path: string) => readFile(new URL(path, root), "utf8");

/** The applied set (`kubectl apply -f deploy/`: the folder's own files, not its subfolders), by kind. */
async function manifests(): Promise<Map<string, Json>> {
  const files: Record<string, string> = {};
  for (const file of (await readdir(new URL("deploy/", root))).filter((f) => f.endsWith(".yaml"))) {
    files[file] = await text(`deploy/${file}`);
  }
  return objectsOf(files);
}

describe("deploy/", async () => {
  const objects = await manifests();
  const deployment = objects.get("Deployment") as Json;
  const pod = deployment.spec.template;
  const container = pod.spec.containers[0];

  it("has every object, in one namespace (no Namespace: it is not ours to create or delete)", () => {
    assert.deepEqual([...objects.keys()].sort(), [
      "ClusterRole",
      "ClusterRoleBinding",
      "ConfigMap",
      "Deployment",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "Service",
      "ServiceAccount",
    ]);
    for (const [kind, o] of objects) {
      if (kind.startsWith("Cluster")) assert.equal(o.metadata.namespace, undefined, kind);
      else assert.equal(o.metadata.namespace, DEPLOY.namespace, kind);
    }
  });

  it("generated files are current (scripts/gen-deploy-manifests.ts)", async () => {
    for (const [path, want] of Object.entries(generatedManifests()))
      assert.equal(await text(`deploy/${path}`), want, path);
  });

  it("the ConfigMap holds a configuration the injector loads", () => {
    const data = (objects.get("ConfigMap") as Json).data;
    const { config, values, mesh } = data as { config: string; values: string; mesh: string };
    assert.ok(loadInjector({ config, values, mesh }, {}));
  });

  it("Deployment: no system-cluster-critical (kube-system's class); a startup probe before liveness", () => {
    assert.equal(pod.spec.priorityClassName, undefined);
    assert.equal(container.startupProbe.httpGet.path, "/healthz");
    assert.equal(container.startupProbe.httpGet.scheme, "HTTPS");
    assert.ok(container.startupProbe.periodSeconds * container.startupProbe.failureThreshold >= 30);
    assert.equal(container.livenessProbe.initialDelaySeconds, undefined);
  });

  it("spread: required across nodes (honouring taints), preferred across zones; the PDB lets unhealthy pods go", () => {
    const [hosts, zones] = pod.spec.topologySpreadConstraints;
    assert.equal(hosts.topologyKey, "kubernetes.io/hostname");
    assert.equal(hosts.whenUnsatisfiable, "DoNotSchedule");
    assert.equal(hosts.nodeTaintsPolicy, "Honor");
    assert.equal(hosts.maxSkew, 1);
    assert.equal(zones.topologyKey, "topology.kubernetes.io/zone");
    assert.equal(zones.whenUnsatisfiable, "ScheduleAnyway");
    for (const c of [hosts, zones]) assert.ok(selectorMatches(c.labelSelector, pod.metadata.labels));
    assert.equal(pod.spec.affinity, undefined);
    assert.equal((objects.get("PodDisruptionBudget") as Json).spec.unhealthyPodEvictionPolicy, "AlwaysAllow");
  });

  it("NetworkPolicy: the webhook port from anywhere, metrics from the monitoring namespace only", () => {
    const policy = (objects.get("NetworkPolicy") as Json).spec;
    assert.ok(selectorMatches(policy.podSelector, pod.metadata.labels));
    assert.deepEqual(policy.policyTypes, ["Ingress"]);
    const [webhook, metrics] = policy.ingress;
    assert.deepEqual(webhook, { ports: [{ protocol: "TCP", port: 15017 }] });
    assert.deepEqual(metrics.ports, [{ protocol: "TCP", port: 15014 }]);
    assert.deepEqual(metrics.from, [
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": DEPLOY.monitoringNamespace } } },
    ]);
  });

  it("Deployment: 2 replicas, spread, probes, non-root, read-only root, resources, mounts", () => {
    assert.equal(deployment.spec.replicas, 2);
    const selector = deployment.spec.selector;
    assert.ok(selectorMatches(selector, pod.metadata.labels));
    assert.equal(pod.metadata.labels["sidecar.istio.io/inject"], "false");
    assert.equal(container.readinessProbe.httpGet.path, "/readyz");
    assert.equal(container.livenessProbe.httpGet.path, "/healthz");
    assert.equal(container.readinessProbe.httpGet.scheme, "HTTPS");
    assert.equal(pod.spec.securityContext.runAsNonRoot, true);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.ok(container.resources.requests.cpu && container.resources.limits.memory);
    const ports = new Map(container.ports.map((p: Json) => [p.name, p.containerPort]));
    assert.equal(ports.get(container.readinessProbe.httpGet.port), 15017);
    assert.ok(container.args.includes(`--port=${ports.get("https-webhook")}`));
    assert.ok(container.args.includes(`--metrics-port=${ports.get("http-metrics")}`));
    assert.equal(pod.spec.serviceAccountName, (objects.get("ServiceAccount") as Json).metadata.name);

    const volumes = new Map(pod.spec.volumes.map((v: Json) => [v.name, v]));
    const mounts = new Map(container.volumeMounts.map((m: Json) => [m.name, m.mountPath]));
    assert.equal((volumes.get("certs") as Json).secret.secretName, `${DEPLOY.name}-certs`);
    assert.equal((volumes.get("config") as Json).configMap.name, (objects.get("ConfigMap") as Json).metadata.name);
    assert.ok(container.args.includes(`--config-dir=${mounts.get("config")}`));
    assert.ok(container.args.includes(`--tls-cert-file=${mounts.get("certs")}/tls.crt`));
    assert.ok(container.args.includes(`--tls-key-file=${mounts.get("certs")}/tls.key`));
  });

  it("Service and PodDisruptionBudget select the pods; the Service sends 443 to the webhook port", () => {
    const service = objects.get("Service") as Json;
    const pdb = objects.get("PodDisruptionBudget") as Json;
    assert.equal(service.metadata.name, DEPLOY.name);
    assert.ok(selectorMatches({ matchLabels: service.spec.selector }, pod.metadata.labels));
    assert.ok(selectorMatches(pdb.spec.selector, pod.metadata.labels));
    assert.equal(pdb.spec.minAvailable, 1);
    const https = service.spec.ports.find((p: Json) => p.port === 443);
    assert.equal(https.targetPort, "https-webhook");
  });

  it("the webhook configuration calls the Service, and cannot be applied with its placeholder", async () => {
    const webhook = readYaml(await text("deploy/webhook/mutatingwebhookconfiguration.yaml")) as Json;
    assert.equal(webhook.webhooks.length, 4);
    for (const w of webhook.webhooks) {
      assert.deepEqual(w.clientConfig.service, {
        name: DEPLOY.name,
        namespace: DEPLOY.namespace,
        path: "/inject",
        port: 443,
      });
      assert.doesNotMatch(w.clientConfig.caBundle, /^[A-Za-z0-9+/=]*$/);
    }
  });

  it("the Dockerfile: a supported Node LTS (slim), multi-stage, non-root, CMD = the Deployment's args", async () => {
    const dockerfile = await text("Dockerfile");
    // End of life of the Node.js LTS lines (nodejs.org/en/about/previous-releases).
    const endOfLife: Record<string, string> = { "20": "2026-04-30", "22": "2027-04-30", "24": "2028-04-30" };
    const bases = [...dockerfile.matchAll(/^FROM node:(\d+)-slim\b/gm)].map((m) => m[1] as string);
    assert.equal(bases.length, 2, "both stages on node:N-slim");
    for (const major of bases) {
      const eol = endOfLife[major];
      assert.ok(eol !== undefined, `node:${major} is not an LTS line`);
      assert.ok(new Date() < new Date(eol), `node:${major} reached its end of life on ${eol}`);
    }
    assert.equal(new Set(bases).size, 1, "build and run on the same Node");
    // npm run build runs scripts/build.mjs, which the build stage must have.
    assert.match(dockerfile, /^COPY scripts\/build\.mjs /m);
    assert.match(dockerfile, /RUN npm ci/);
    // package.json's prepare script builds; in the image the sources are copied after npm ci.
    const scripts = JSON.parse(await text("package.json")).scripts as Record<string, string>;
    if (scripts.prepare !== undefined) assert.match(dockerfile, /RUN npm ci --ignore-scripts/);
    assert.match(dockerfile, /npm prune --omit=dev/);
    assert.match(dockerfile, /^USER 1000:1000$/m);
    assert.equal(pod.spec.securityContext.runAsUser, 1000);
    assert.match(dockerfile, /^ENTRYPOINT \["node", "\/app\/dist\/cli\/main\.js", "serve"\]$/m);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? "[]");
    assert.deepEqual(cmd, container.args);
    assert.match(dockerfile, new RegExp(`EXPOSE ${container.ports.map((p: Json) => p.containerPort).join(" ")}`));
  });
});

/**
 * One generated set's objects, by kind (a file may hold several documents); the webhook reference
 * left out. Two ClusterRoles on OpenShift: the namespace reader (rbac.yaml) comes last and wins.
 */
function objectsOf(files: Record<string, string>): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const [path, text] of Object.entries(files)) {
    if (path.startsWith("webhook/")) continue;
    for (const doc of splitYamlStream(text)) {
      const o = readYaml(doc) as Json | null;
      if (o !== null) out.set(o.kind as string, o);
    }
  }
  return out;
}

/** Every label selector of a set that selects pods: Deployment, anti-affinity, spread, PDB, Service. */
function podSelectors(objects: Map<string, Json>): [string, unknown][] {
  const spec = (objects.get("Deployment") as Json).spec;
  const podSpec = spec.template.spec;
  return [
    ["Deployment", spec.selector],
    ["node spread", podSpec.topologySpreadConstraints[0].labelSelector],
    ["zone spread", podSpec.topologySpreadConstraints[1].labelSelector],
    ["NetworkPolicy", (objects.get("NetworkPolicy") as Json).spec.podSelector],
    ["PodDisruptionBudget", (objects.get("PodDisruptionBudget") as Json).spec.selector],
    ["Service", { matchLabels: (objects.get("Service") as Json).spec.selector }],
  ];
}

describe("a named revision's set (gen-deploy-manifests.ts --revision)", () => {
  const sets: [string, Map<string, Json>][] = ["", "canary", "prod-2"].map((r) => [
    r,
    objectsOf(manifestSet({ revision: r })),
  ]);
  const podLabels = (objects: Map<string, Json>) => (objects.get("Deployment") as Json).spec.template.metadata.labels;

  it("the default set is deploy/ itself", () => {
    const committed = generatedManifests();
    for (const [path, text] of Object.entries(manifestSet())) assert.equal(committed[path], text, path);
  });

  it("no selector of one revision matches another revision's pods; each matches its own", () => {
    for (const [a, objectsA] of sets) {
      for (const [what, selector] of podSelectors(objectsA)) {
        for (const [b, objectsB] of sets) {
          const matches = selectorMatches(selector, podLabels(objectsB));
          assert.equal(matches, a === b, `${what} of revision "${a}" vs pods of "${b}"`);
        }
      }
    }
  });

  it("distinct object names; Service and Secret as serviceFor(), certs and webhook-config name them", async () => {
    const names = new Set<string>();
    for (const [revision, objects] of sets) {
      const service = objects.get("Service") as Json;
      assert.equal(service.metadata.name, serviceFor(revision));
      const podSpec = (objects.get("Deployment") as Json).spec.template.spec;
      const volumes = new Map(podSpec.volumes.map((v: Json) => [v.name, v]));
      assert.equal((volumes.get("certs") as Json).secret.secretName, `${serviceFor(revision)}-certs`);
      assert.equal((volumes.get("config") as Json).configMap.name, (objects.get("ConfigMap") as Json).metadata.name);
      assert.equal(podSpec.serviceAccountName, (objects.get("ServiceAccount") as Json).metadata.name);
      for (const [kind, o] of objects) {
        if (!kind.startsWith("Cluster")) assert.equal(o.metadata.namespace, DEPLOY.namespace, kind);
        const key = `${kind}/${o.metadata.name}`;
        assert.ok(!names.has(key), `${key} is in two sets`);
        names.add(key);
      }
      const webhook = readYaml(
        manifestSet({ revision })["webhook/mutatingwebhookconfiguration.yaml"] as string,
      ) as Json;
      for (const w of webhook.webhooks) assert.equal(w.clientConfig.service.name, serviceFor(revision));
    }
    // The Secret the Deployment mounts is the one `meshinject certs --revision canary` says to create.
    const dir = await mkdtemp(join(tmpdir(), "meshinject-deploy-"));
    try {
      const steps = await runCerts({
        namespace: DEPLOY.namespace,
        revision: "canary",
        outDir: dir,
        days: "1",
        keyType: "ecdsa",
        clusterDomain: "cluster.local",
      });
      const canary = sets[1]?.[1] as Map<string, Json>;
      const secret = (canary.get("Deployment") as Json).spec.template.spec.volumes[0].secret.secretName;
      assert.match(steps, new RegExp(`create secret tls ${secret} `));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("args carry --revision; the ConfigMap is that revision's (values revision, istiod-REV)", () => {
    for (const [revision, objects] of sets) {
      const args = (objects.get("Deployment") as Json).spec.template.spec.containers[0].args as string[];
      const flags = args.filter((a) => a.startsWith("--revision"));
      assert.deepEqual(flags, revision === "" ? [] : [`--revision=${revision}`]);
      const { config, values, mesh } = (objects.get("ConfigMap") as Json).data;
      assert.equal(parseValues(values).json.revision, revision);
      const injector = loadInjector({ config, values, mesh }, {});
      assert.equal(
        injector.meshConfig.defaultConfig?.discoveryAddress,
        `istiod${revision === "" ? "" : `-${revision}`}.istio-system.svc:15012`,
      );
    }
    assert.deepEqual(manifestSet({ revision: "default" }), manifestSet());
    assert.throws(() => manifestSet({ revision: "Bad_Name" }), /revision "Bad_Name"/);
  });
});

describe("OpenShift (deploy/openshift/, --platform openshift)", () => {
  const options: ManifestOptions[] = [{ platform: "openshift" }, { platform: "openshift", revision: "canary" }];

  it("deploy/openshift/ is the OpenShift set's RBAC, Deployment and ServiceAccount", () => {
    const committed = generatedManifests();
    const set = manifestSet({ platform: "openshift" });
    const paths = Object.keys(committed).filter((p) => p.startsWith("openshift/"));
    assert.deepEqual(
      Object.keys(set).filter((p) => set[p] !== committed[p]),
      ["serviceaccount.yaml", "deployment.yaml", "rbac.yaml"],
    );
    assert.deepEqual(paths.sort(), [
      "openshift/deployment.yaml",
      "openshift/rbac.yaml",
      "openshift/serviceaccount.yaml",
    ]);
    for (const path of paths) assert.equal(committed[path], set[path.slice("openshift/".length)], path);
    // Everything else it shares with deploy/.
    for (const path of ["configmap.yaml", "service.yaml", "poddisruptionbudget.yaml"]) {
      assert.equal(set[path], committed[path], path);
    }
  });

  it("the service account may get namespaces (the only call namespaces.ts makes), with its token", async () => {
    const source = await text("src/webhook/namespaces.ts");
    assert.deepEqual([...new Set(source.match(/method: "[A-Z]+"/g))], ['method: "GET"']);
    assert.match(source, /\/api\/v1\/namespaces\/\$\{/);
    for (const o of options) {
      const objects = objectsOf(manifestSet(o));
      const role = objects.get("ClusterRole") as Json;
      const binding = objects.get("ClusterRoleBinding") as Json;
      const account = objects.get("ServiceAccount") as Json;
      assert.deepEqual(role.rules, [{ apiGroups: [""], resources: ["namespaces"], verbs: ["get"] }]);
      assert.deepEqual(binding.roleRef, {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: role.metadata.name,
      });
      assert.deepEqual(binding.subjects, [
        { kind: "ServiceAccount", name: account.metadata.name, namespace: account.metadata.namespace },
      ]);
      const podSpec = (objects.get("Deployment") as Json).spec.template.spec;
      assert.equal(podSpec.serviceAccountName, account.metadata.name);
      assert.equal(podSpec.automountServiceAccountToken, true);
      assert.ok(podSpec.containers[0].args.includes("--platform=openshift"));
      assert.equal(podSpec.securityContext.runAsUser, undefined);
      assert.equal(podSpec.securityContext.runAsNonRoot, true);
      assert.equal(podSpec.priorityClassName, undefined);
    }
    const names = options.map((o) => (objectsOf(manifestSet(o)).get("ClusterRole") as Json).metadata.name);
    assert.notEqual(names[0], names[1]);
  });
});
