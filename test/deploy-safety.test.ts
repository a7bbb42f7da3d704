// Every manifest under deploy/ (and every set the generator writes) against what a cautious platform
// team checks before installing: the Pod Security "restricted" profile, no Namespace in the applied
// set, images by digest or an unpullable placeholder, webhooks that never select the system
// namespaces or the injector's own, and a label on every object for a labelled uninstall.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import {
  DEPLOY,
  generatedManifests,
  type ManifestOptions,
  manifestSet,
  PINNED_IMAGE,
} from "../scripts/gen-deploy-manifests.js";
import { splitYamlStream } from "../src/kube/stream.js";
import { serviceDnsNames } from "../src/webhook/certs.js";
import { createMetrics } from "../src/webhook/metrics.js";
import { defaultExcludedNamespaces, webhookConfiguration } from "../src/webhook/webhook-config.js";
import { matchingWebhooks, selectorMatches } from "../src/webhook/webhook-match.js";
import { restrictedViolations } from "./pod-security.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are walked freely; a wrong path fails an assertion.
type Json = Record<string, any>;

const deployDir = fileURLToPath(new URL("../deploy/", import.meta.url));

/** Every YAML file under deploy/, relative path → its documents. */
async function deployFiles(dir = deployDir, prefix = ""): Promise<Map<string, Json[]>> {
  const out = new Map<string, Json[]>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) {
      for (const [k, v] of await deployFiles(join(dir, entry.name), `${rel}/`)) out.set(k, v);
    } else if (entry.name.endsWith(".yaml")) {
      out.set(rel, documents(await readFile(join(dir, entry.name), "utf8")));
    }
  }
  return out;
}

function documents(text: string): Json[] {
  return (
    splitYamlStream(text)
      // The yaml library's parser (our own manifests need nothing Kubernetes-specific to read).
      .map((d) => parse(d) as Json | null)
      .filter((o): o is Json => o !== null)
  );
}

/** The pod templates of workload objects (a bare Pod is its own template). */
function podTemplates(o: Json): Json[] {
  if (o.kind === "Pod") return [o];
  if (o.kind === "CronJob") return [o.spec.jobTemplate.spec.template];
  if (["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"].includes(o.kind)) return [o.spec.template];
  return [];
}

/** Why an image reference is not acceptable in deploy/, or undefined. */
function imageProblem(image: string): string | undefined {
  if (image === DEPLOY.imagePlaceholder) return undefined;
  if (PINNED_IMAGE.test(image)) return undefined;
  return `${image}: neither pinned by digest (@sha256:<64 hex>) nor the placeholder`;
}

/** Label sets a namespace may carry to ask for injection, for the webhooks to be probed with. */
const INJECTION_NAMESPACE_LABELS: Record<string, string>[] = [
  { "istio-injection": "enabled" },
  { "istio.io/rev": "default" },
  { "istio.io/rev": "canary" },
  {},
];
const INJECTION_POD_LABELS: Record<string, string>[] = [
  {},
  { "sidecar.istio.io/inject": "true" },
  { "istio.io/rev": "default" },
  { "istio.io/rev": "canary" },
];

/** The (namespace, labels, pod labels) under which a webhook configuration selects a pod in `namespace`. */
function selectedIn(config: Json, namespace: string): string[] {
  const hits: string[] = [];
  for (const ns of INJECTION_NAMESPACE_LABELS) {
    for (const pod of INJECTION_POD_LABELS) {
      const labels = { ...ns, "kubernetes.io/metadata.name": namespace };
      for (const w of matchingWebhooks(config, labels, pod)) {
        hits.push(`${w} in ${namespace} ${JSON.stringify(ns)} pod ${JSON.stringify(pod)}`);
      }
    }
  }
  return hits;
}

describe("deploy/ as a platform-security review reads it", async () => {
  const files = await deployFiles();
  const all = [...files.entries()].flatMap(([path, docs]) => docs.map((o): [string, Json] => [path, o]));

  it("the tree holds what the generator writes, nothing else", () => {
    assert.deepEqual([...files.keys()].sort(), Object.keys(generatedManifests()).sort());
  });

  it("every pod template passes the Pod Security restricted profile", () => {
    const templates = all.flatMap(([path, o]) => podTemplates(o).map((t): [string, Json] => [path, t]));
    assert.ok(templates.length >= 2, "deploy/deployment.yaml and deploy/openshift/deployment.yaml");
    for (const [path, t] of templates) assert.deepEqual(restrictedViolations(t), [], path);
  });

  it("the checker fails what restricted refuses", () => {
    const deployment = (files.get("deployment.yaml") as Json[])[0] as Json;
    const t = structuredClone(deployment.spec.template);
    t.spec.securityContext = {};
    t.spec.hostNetwork = true;
    t.spec.volumes.push({ name: "host", hostPath: { path: "/" } });
    const c = t.spec.containers[0];
    c.securityContext = { capabilities: { add: ["NET_ADMIN"] }, runAsUser: 0 };
    c.ports.push({ containerPort: 80, hostPort: 80 });
    const violations = restrictedViolations(t).join("\n");
    for (const word of [
      "hostNetwork",
      "volume type hostPath",
      "allowPrivilegeEscalation",
      "runAsNonRoot",
      "runAsUser: 0",
      "seccompProfile",
      "drop: must include ALL",
      "NET_ADMIN",
      "hostPort 80",
    ]) {
      assert.ok(violations.includes(word), `${word} not reported in:\n${violations}`);
    }
  });

  it("no Namespace in the applied set (kubectl apply/delete -f deploy/); the example is restricted", () => {
    for (const [path, o] of all) {
      if (!path.includes("/")) assert.notEqual(o.kind, "Namespace", path);
    }
    const [ns] = files.get("examples/namespace.yaml") as Json[];
    assert.equal(ns?.kind, "Namespace");
    assert.equal(ns?.metadata.labels["pod-security.kubernetes.io/enforce"], "restricted");
  });

  it("images: pinned by digest or the placeholder that cannot be pulled", () => {
    let seen = 0;
    for (const [path, o] of all) {
      for (const t of podTemplates(o)) {
        for (const c of [...(t.spec.initContainers ?? []), ...t.spec.containers]) {
          seen++;
          assert.equal(imageProblem(c.image), undefined, path);
        }
      }
    }
    assert.ok(seen >= 2);
    assert.match(DEPLOY.imagePlaceholder, /\.invalid\//);
    assert.doesNotMatch(DEPLOY.imagePlaceholder, /@sha256:[0-9a-f]{64}$/);
    for (const bad of ["meshinject:0.1.0", "docker.io/istio/proxyv2:1.28.0", "reg.example/m@sha256:abc"]) {
      assert.notEqual(imageProblem(bad), undefined, bad);
    }
    const digest = `reg.example/team/meshinject@sha256:${"a".repeat(64)}`;
    assert.equal(imageProblem(digest), undefined);
    const set = manifestSet({ image: digest });
    assert.match(set["deployment.yaml"] as string, new RegExp(`image: ${digest}\\n`));
    assert.throws(() => manifestSet({ image: "reg.example/meshinject:0.1.0" }), /pinned by digest/);
  });

  it("webhooks never select a pod in kube-system, kube-node-lease, kube-public or the injector's namespace", () => {
    const excluded = defaultExcludedNamespaces(DEPLOY.namespace);
    const configs = all.filter(([, o]) => o.kind === "MutatingWebhookConfiguration");
    assert.ok(configs.length >= 1);
    for (const [path, config] of configs) {
      for (const ns of excluded) assert.deepEqual(selectedIn(config, ns), [], `${path}: ${ns}`);
      // ... while an ordinary namespace is still injected.
      assert.notDeepEqual(selectedIn(config, "shop"), [], path);
    }
    // Without the exclusion (Istio's chart) the same probes do select pods there: the check can fail.
    const unguarded = webhookConfiguration({ namespace: DEPLOY.namespace });
    assert.notDeepEqual(selectedIn(unguarded, DEPLOY.namespace), []);
  });

  it("the README's uninstall deletes every kind we create, by the label, and never a Namespace", async () => {
    const readme = await readFile(join(deployDir, "README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("## Uninstall"),
      readme.indexOf("\n## ", readme.indexOf("## Uninstall") + 1),
    );
    const deleted = new Set<string>();
    for (const m of section.matchAll(
      /kubectl (?:-n \S+ )?delete ([a-z,]+)\s+(?:\\\n\s*)?-l app\.kubernetes\.io\/part-of=meshinject/g,
    )) {
      for (const kind of (m[1] as string).split(",")) deleted.add(kind);
    }
    assert.ok(!deleted.has("namespace"));
    const kinds = new Set<string>(["MutatingWebhookConfiguration", "Secret"]);
    for (const o of [{}, { platform: "openshift" as const }]) {
      for (const [path, text] of Object.entries(manifestSet(o))) {
        if (!path.startsWith("webhook/")) for (const d of documents(text)) kinds.add(d.kind);
      }
    }
    for (const kind of kinds) {
      const plural = kind === "PodDisruptionBudget" ? "poddisruptionbudget" : kind.toLowerCase();
      assert.ok(deleted.has(plural), `${kind} is not in the uninstall commands (${[...deleted].join(",")})`);
    }
  });

  it("the examples fit the set: cert-manager's Secret and names, the ServiceMonitor's port, the alerts' metrics", async () => {
    const deployment = (files.get("deployment.yaml") as Json[])[0] as Json;
    const service = (files.get("service.yaml") as Json[])[0] as Json;
    const secretName = deployment.spec.template.spec.volumes.find((v: Json) => v.name === "certs").secret.secretName;
    const certificates = (files.get("examples/cert-manager.yaml") as Json[]).filter((o) => o.kind === "Certificate");
    const serving = certificates.find((c) => c.spec.secretName === secretName) as Json;
    assert.ok(serving, `a Certificate writes ${secretName}`);
    assert.deepEqual(serving.spec.dnsNames, serviceDnsNames(service.metadata.name, service.metadata.namespace));
    const ca = certificates.find((c) => c.spec.isCA) as Json;
    const hours = (d: string) => Number(d.replace(/h$/, ""));
    assert.ok(hours(ca.spec.duration) > hours(serving.spec.duration) * 10);
    assert.ok(hours(serving.spec.renewBefore) < hours(serving.spec.duration));

    const [monitor, rule] = files.get("examples/monitoring.yaml") as [Json, Json];
    assert.ok(selectorMatches(monitor.spec.selector, service.metadata.labels));
    const portNames = service.spec.ports.map((p: Json) => p.name);
    for (const e of monitor.spec.endpoints) assert.ok(portNames.includes(e.port), e.port);
    const exported = new Set(
      (await createMetrics({ defaultMetrics: false }).registry.getMetricsAsJSON()).map((m) => m.name),
    );
    const exprs = (rule.spec.groups as Json[]).flatMap((g) => g.rules.map((r: Json) => r.expr as string));
    assert.ok(exprs.length >= 2);
    for (const expr of exprs) {
      const names = expr.match(/\b(sidecar_injection_[a-z_]+|meshinject_[a-z_]+)/g) ?? [];
      assert.ok(names.length > 0, expr);
      for (const name of names) assert.ok(exported.has(name), `${name} in ${expr} is not exported`);
    }
  });

  it("every object carries app.kubernetes.io/part-of=meshinject, in every generated set", () => {
    const sets: ManifestOptions[] = [{}, { revision: "canary" }, { platform: "openshift" }];
    const objects: [string, Json][] = [
      ...all,
      ...sets.flatMap((o) =>
        Object.entries(manifestSet(o)).flatMap(([path, text]) =>
          documents(text).map((d): [string, Json] => [`${JSON.stringify(o)} ${path}`, d]),
        ),
      ),
    ];
    for (const [path, o] of objects) {
      if (o.kind === "Namespace") continue;
      assert.equal(o.metadata.labels?.["app.kubernetes.io/part-of"], "meshinject", `${path} ${o.kind}`);
    }
  });
});
