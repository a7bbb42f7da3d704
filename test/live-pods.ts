// Live pods as a cluster makes them, for the drift tests and bench: each pod is defaulted as the API
// server decodes it, sent through the webhook's own review (src/webhook/admission.ts) with the
// injector of its time, the JSONPatch answered applied by fast-json-patch (not our patch code), then
// defaulted again and named as the API server stores it.
import assert from "node:assert/strict";
import jsonpatch from "fast-json-patch";
import type { LoadedInjector } from "../src/inject/injector.js";
import type { Json } from "../src/inject/pod.js";
import { reviewBody } from "../src/webhook/admission.js";

let counter = 0;

/** A pod created by `owner` (generateName and ownerReferences as its controller sets them). */
export function pod(
  namespace: string,
  base: string,
  labels: Record<string, string>,
  owner?: { kind: string; name: string },
): Json {
  const metadata: Json = { namespace, labels: { ...labels } };
  if (owner === undefined) metadata.name = base;
  else {
    metadata.generateName = `${base}-`;
    const apiVersion = owner.kind === "Job" ? "batch/v1" : "apps/v1";
    metadata.ownerReferences = [
      { apiVersion, kind: owner.kind, name: owner.name, uid: `uid-${owner.name}`, controller: true },
    ];
  }
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata,
    spec: {
      serviceAccountName: "default",
      containers: [{ name: "app", image: "registry.example/app:2.1", ports: [{ containerPort: 8080 }] }],
    },
  };
}

/** The pod through the webhook's review with `injectWith`, the patch applied by fast-json-patch. */
export function webhookInjected(p: Json, injectWith: LoadedInjector, revision: string): Json {
  const body = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `review-${++counter}`,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      namespace: (p.metadata as Json).namespace,
      operation: "CREATE",
      object: p,
    },
  };
  const result = reviewBody(body, "/inject", { injector: injectWith, revision, nativeSidecars: "off" });
  const response = result.response.response as { allowed: boolean; patch?: string };
  assert.ok(response.allowed && response.patch, JSON.stringify(result.outcome));
  const patch = JSON.parse(Buffer.from(response.patch, "base64").toString("utf8"));
  return jsonpatch.applyPatch(structuredClone(p), patch).newDocument as Json;
}

/**
 * What the API server and its admission plugins do to a pod's containers: defaults (at decoding,
 * before the webhooks see it, and again for what they added) and the ServiceAccount plugin's token
 * volume and mount (before the webhooks; the containers they add get it too).
 */
function serverDefaults(p: Json): Json {
  const metadata = p.metadata as Json;
  const spec = p.spec as { containers: Json[]; initContainers?: Json[]; volumes?: Json[] } & Json;
  metadata.tokenVolume ??= `kube-api-access-${(++counter).toString(36).padStart(5, "x")}`;
  const token = metadata.tokenVolume as string;
  if (!(spec.volumes ?? []).some((v) => v.name === token)) {
    spec.volumes = [...(spec.volumes ?? []), { name: token, projected: { defaultMode: 420, sources: [] } }];
  }
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    c.terminationMessagePath ??= "/dev/termination-log";
    c.terminationMessagePolicy ??= "File";
    c.imagePullPolicy ??= "IfNotPresent";
    const mounts = (c.volumeMounts as Json[] | undefined) ?? [];
    if (!mounts.some((m) => m.name === token)) {
      c.volumeMounts = [
        ...mounts,
        { name: token, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" },
      ];
    }
    for (const port of (c.ports as Json[] | undefined) ?? []) port.protocol ??= "TCP";
  }
  for (const v of spec.volumes ?? []) {
    for (const source of ["configMap", "secret", "downwardAPI"]) {
      if (v[source] !== undefined) (v[source] as Json).defaultMode ??= 420;
    }
  }
  spec.dnsPolicy ??= "ClusterFirst";
  spec.restartPolicy ??= "Always";
  return p;
}

/** The pod as created (defaulted, as the webhook receives it). */
export const created = (p: Json) => serverDefaults(p);

/** What the API server stores after admission: defaults again, a name, a node, a status. */
export function stored(p: Json): Json {
  serverDefaults(p);
  const metadata = p.metadata as Json;
  const token = metadata.tokenVolume as string;
  delete metadata.tokenVolume;
  if (metadata.name === undefined) metadata.name = `${metadata.generateName}${token.slice(-5)}`;
  metadata.uid = `pod-${++counter}`;
  metadata.resourceVersion = String(counter);
  (p.spec as Json).nodeName = "node-1";
  p.status = { phase: "Running" };
  // List items come without kind and apiVersion, as from a real API server.
  const { kind: _k, apiVersion: _a, ...item } = p;
  return { kind: "Pod", ...item };
}
