import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "./pod.js";
import { parseInjectEnvs } from "./policy-inject-path.js";
import { overwriteClusterInfo, reorderContainers } from "./postprocess.js";

// Istio pkg/kube/inject/inject_test.go Test_updateClusterEnvs: the path's envs land on the proxy, sorted.
test("overwriteClusterInfo: Istio's Test_updateClusterEnvs table", () => {
  const pod = { metadata: {}, spec: { containers: [{ name: "istio-proxy" }] } } as unknown as Pod;
  overwriteClusterInfo(pod, parseInjectEnvs("/inject/net/network1/cluster/cluster1"));
  assert.deepEqual(pod.spec.containers?.[0]?.env, [
    { name: "ISTIO_META_CLUSTER_ID", value: "cluster1" },
    { name: "ISTIO_META_NETWORK", value: "network1" },
  ]);
});

test("overwriteClusterInfo replaces the proxy's own values and keeps the rest in place", () => {
  const pod = {
    metadata: {},
    spec: {
      initContainers: [
        {
          name: "istio-proxy",
          env: [
            { name: "ISTIO_META_NETWORK", value: "old" },
            { name: "A", value: "1" },
          ],
        },
      ],
    },
  } as unknown as Pod;
  overwriteClusterInfo(pod, { ISTIO_META_NETWORK: "n2" });
  assert.deepEqual(pod.spec.initContainers?.[0]?.env, [
    { name: "A", value: "1" },
    { name: "ISTIO_META_NETWORK", value: "n2" },
  ]);
});

// Istio pkg/kube/inject/webhook.go reorderPod: with a native proxy, istio-init (or istio-validation),
// then the proxy, then enable-core-dump, then the app's init containers; no annotation moves any of
// them (sidecar.istio.io/init-containers-before-proxy is not Istio's and is not read).
test("reorderContainers: native sidecar order, whatever the pod's annotations", () => {
  const names = (l: Array<{ name: string }> | null | undefined) => (l ?? []).map((c) => c.name);
  const pod = (annotations: Record<string, string>) =>
    ({
      metadata: { annotations },
      spec: {
        containers: [{ name: "app" }],
        initContainers: [
          { name: "a" },
          { name: "istio-proxy" },
          { name: "b" },
          { name: "istio-init" },
          { name: "vault-agent" },
          { name: "enable-core-dump" },
        ],
      },
    }) as unknown as Pod;
  const plain = pod({});
  reorderContainers(plain, false);
  assert.deepEqual(names(plain.spec.initContainers), [
    "istio-init",
    "istio-proxy",
    "enable-core-dump",
    "a",
    "b",
    "vault-agent",
  ]);
  const before = pod({ "sidecar.istio.io/init-containers-before-proxy": "vault-agent,b,vault-agent, a" });
  reorderContainers(before, false);
  assert.deepEqual(names(before.spec.initContainers), names(plain.spec.initContainers));
});
