// deploy/ and the Dockerfile, checked without a cluster: every manifest reads as Kubernetes reads
// YAML, the generated files are current, and the objects agree with each other and with the image.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { DEPLOY, generatedManifests } from "../scripts/gen-deploy-manifests.js";
import { loadInjector } from "../src/inject/injector.js";
import { readYaml } from "../src/kube/yaml.js";
import { selectorMatches } from "../src/webhook/webhook-match.js";

// biome-ignore lint/suspicious/noExplicitAny: the test walks manifests freely; a wrong path fails an assertion.
type Json = Record<string, any>;

const root = new URL("../", import.meta.url);
const text = (path: string) => readFile(new URL(path, root), "utf8");

async function manifests(): Promise<Map<string, Json>> {
  const out = new Map<string, Json>();
  const files = (await readdir(new URL("deploy/", root))).filter((f) => f.endsWith(".yaml"));
  for (const file of files) {
    const doc = readYaml(await text(`deploy/${file}`)) as Json;
    out.set(doc.kind as string, doc);
  }
  return out;
}

describe("deploy/", async () => {
  const objects = await manifests();
  const deployment = objects.get("Deployment") as Json;
  const pod = deployment.spec.template;
  const container = pod.spec.containers[0];

  it("has every object, in one namespace", () => {
    assert.deepEqual([...objects.keys()].sort(), [
      "ConfigMap",
      "Deployment",
      "Namespace",
      "PodDisruptionBudget",
      "Service",
      "ServiceAccount",
    ]);
    for (const [kind, o] of objects) {
      if (kind === "Namespace") assert.equal(o.metadata.name, DEPLOY.namespace);
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

  it("Deployment: 2 replicas, spread, probes, non-root, read-only root, resources, mounts", () => {
    assert.equal(deployment.spec.replicas, 2);
    const selector = deployment.spec.selector;
    assert.ok(selectorMatches(selector, pod.metadata.labels));
    const anti = pod.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
    assert.equal(anti.topologyKey, "kubernetes.io/hostname");
    assert.ok(selectorMatches(anti.labelSelector, pod.metadata.labels));
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

  it("the Dockerfile: node:20-slim, multi-stage, non-root, CMD = the Deployment's args", async () => {
    const dockerfile = await text("Dockerfile");
    assert.equal((dockerfile.match(/^FROM node:20-slim/gm) ?? []).length, 2);
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
