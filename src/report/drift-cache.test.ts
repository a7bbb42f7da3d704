// The drift cache: pods alike but for what the API server and their controller set on each share a
// key; pods that differ in anything else do not.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Json } from "../inject/pod.js";
import { podKey } from "./drift-cache.js";

const pod = (name: string, extra: Json = {}, labels: Record<string, string> = {}): Json => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    generateName: "web-5d8f-",
    uid: `uid-${name}`,
    resourceVersion: name,
    labels: { app: "web", ...labels },
  },
  spec: {
    nodeName: `node-${name}`,
    volumes: [{ name: `kube-api-access-${name.replace(/[^a-z0-9]/g, "").slice(-5)}` }],
    containers: [
      {
        name: "web",
        image: "nginx",
        volumeMounts: [{ name: `kube-api-access-${name.replace(/[^a-z0-9]/g, "").slice(-5)}` }],
      },
    ],
    ...extra,
  },
});

it("pods of one owner share a key; a difference in the pod's own settings does not", () => {
  assert.equal(podKey(pod("web-5d8f-abcde")), podKey(pod("web-5d8f-fghij")));
  assert.equal(
    podKey(pod("db-0", { hostname: "db-0" }, { "statefulset.kubernetes.io/pod-name": "db-0" })),
    podKey(pod("db-1", { hostname: "db-1" }, { "statefulset.kubernetes.io/pod-name": "db-1" })),
  );
  assert.notEqual(podKey(pod("web-5d8f-abcde")), podKey(pod("web-5d8f-fghij", {}, { tier: "x" })));
  assert.notEqual(podKey(pod("web-5d8f-abcde")), podKey(pod("web-5d8f-fghij", { dnsPolicy: "None" })));
  assert.equal(podKey({ kind: "Deployment", metadata: {}, spec: {} }), undefined);
});

it("a DaemonSet's per-node affinity is no difference; another owner's affinity is", () => {
  const pinned = (node: string, kind: string) => {
    const p = pod(`agent-${node}`, {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }],
          },
        },
      },
    });
    (p.metadata as Json).ownerReferences = [{ kind, name: "agent", controller: true }];
    return p;
  };
  assert.equal(podKey(pinned("n1", "DaemonSet")), podKey(pinned("n2", "DaemonSet")));
  assert.notEqual(podKey(pinned("n1", "ReplicaSet")), podKey(pinned("n2", "ReplicaSet")));
});
