// A small cluster for meshinject drift: namespaces selected by the default and canary webhooks,
// each revision's ConfigMaps, and pods of every workload kind made as a cluster makes them
// (test/live-pods.ts), some injected by an older proxy tag, one created before its namespace was
// labelled, one of a revision whose control plane is gone. For the drift tests and the README's example.
import { defaultConfigFiles } from "../src/inject/defaults.js";
import { type LoadedInjector, loadInjector } from "../src/inject/injector.js";
import type { Json } from "../src/inject/pod.js";
import { webhookConfiguration } from "../src/webhook/webhook-config.js";
import { created, pod, stored, webhookInjected } from "./live-pods.js";

export const OLD_TAG = "1.19.0";

export function injector(revision: string, tag?: string): LoadedInjector {
  const files = defaultConfigFiles(revision);
  const values = JSON.parse(files.values) as { global: { tag: string } };
  if (tag !== undefined) values.global.tag = tag;
  return loadInjector({ ...files, values: JSON.stringify(values) });
}

export const TODAY_TAG = (injector("").settings.values.json as { global: { tag: string } }).global.tag;

function configMaps(revision: string): Json[] {
  const files = defaultConfigFiles(revision);
  const suffix = revision === "" ? "" : `-${revision}`;
  return [
    {
      kind: "ConfigMap",
      metadata: { name: `istio-sidecar-injector${suffix}`, namespace: "istio-system" },
      data: { config: files.config, values: files.values },
    },
    { kind: "ConfigMap", metadata: { name: `istio${suffix}`, namespace: "istio-system" }, data: { mesh: files.mesh } },
  ];
}

const today = injector("");
const older = injector("", OLD_TAG);
const canary = injector("canary");
const rs = (name: string) => ({ kind: "ReplicaSet", name });

export function clusterObjects(): Json[] {
  const ns = (name: string, labels: Record<string, string>) => ({
    kind: "Namespace",
    metadata: { name, labels: { "kubernetes.io/metadata.name": name, ...labels } },
  });
  const live = (p: Json, inj: LoadedInjector, revision = "") => stored(webhookInjected(created(p), inj, revision));
  return [
    ns("shop", { "istio-injection": "enabled" }),
    ns("canaryns", { "istio.io/rev": "canary" }),
    ns("plain", {}),
    ns("late", { "istio-injection": "enabled" }),
    ns("istio-system", {}),
    ...configMaps(""),
    ...configMaps("canary"),
    webhookConfiguration(),
    webhookConfiguration({ revision: "canary" }),
    // Deployment web: two pods injected when the proxy was 1.19.0.
    live(pod("shop", "web-6f7c9", { app: "web", "pod-template-hash": "6f7c9" }, rs("web-6f7c9")), older),
    live(pod("shop", "web-6f7c9", { app: "web", "pod-template-hash": "6f7c9" }, rs("web-6f7c9")), older),
    // StatefulSet, DaemonSet, CronJob's Job and a bare pod injected today.
    stored(
      webhookInjected(
        created({
          ...pod("shop", "db-0", { app: "db", "statefulset.kubernetes.io/pod-name": "db-0" }),
          metadata: {
            name: "db-0",
            generateName: "db-",
            namespace: "shop",
            labels: { app: "db" },
            ownerReferences: [
              { apiVersion: "apps/v1", kind: "StatefulSet", name: "db", uid: "u-db", controller: true },
            ],
          },
        }),
        today,
        "",
      ),
    ),
    live(pod("shop", "agent", { app: "agent" }, { kind: "DaemonSet", name: "agent" }), today),
    live(pod("shop", "report-29000000", { app: "report" }, { kind: "Job", name: "report-29000000" }), today),
    live(pod("shop", "debug", { app: "debug" }), today),
    // Job migrate: injected with the old tag.
    live(pod("shop", "migrate", { app: "migrate", "job-name": "migrate" }, { kind: "Job", name: "migrate" }), older),
    // Canary revision, injected today by the canary webhook.
    live(pod("canaryns", "api-5b6d8", { app: "api", "pod-template-hash": "5b6d8" }, rs("api-5b6d8")), canary, "canary"),
    // A sidecar in a namespace no webhook selects any more.
    live(pod("plain", "legacy-7c8d9", { app: "legacy", "pod-template-hash": "7c8d9" }, rs("legacy-7c8d9")), today),
    // Created before its namespace was labelled: no sidecar.
    stored(
      created(pod("late", "shipping-4d5e6", { app: "shipping", "pod-template-hash": "4d5e6" }, rs("shipping-4d5e6"))),
    ),
    // A revision whose control plane is gone.
    live(
      pod("shop", "old-8e9f0", { app: "old", "pod-template-hash": "8e9f0" }, rs("old-8e9f0")),
      injector("1-19"),
      "1-19",
    ),
    // Outside the mesh.
    stored(created(pod("plain", "nomesh-1a2b3", { app: "nomesh", "pod-template-hash": "1a2b3" }, rs("nomesh-1a2b3")))),
  ];
}
