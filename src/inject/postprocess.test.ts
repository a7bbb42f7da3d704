import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "./pod.js";
import { parseInjectEnvs } from "./policy-inject-path.js";
import { overwriteClusterInfo } from "./postprocess.js";

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
