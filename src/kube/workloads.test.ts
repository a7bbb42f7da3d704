import assert from "node:assert/strict";
import { test } from "node:test";
import {
  deployMetaOf,
  foreignApiVersion,
  InvalidWorkloadError,
  isInjectable,
  MissingTemplateError,
  podOf,
  withPod,
  workloadKind,
} from "./workloads.js";

test("injectable kinds are matched by kind, as Istio's unversioned scheme does", () => {
  for (const kind of [
    "Pod",
    "ReplicationController",
    "Deployment",
    "DaemonSet",
    "ReplicaSet",
    "StatefulSet",
    "Job",
    "CronJob",
    "DeploymentConfig",
    "List",
  ]) {
    assert.ok(isInjectable({ apiVersion: "x/v1", kind }), kind);
  }
  assert.equal(isInjectable({ apiVersion: "v1", kind: "Service" }), false);
  assert.equal(isInjectable(null), false);
  assert.equal(workloadKind({ apiVersion: "v1", kind: "DeploymentConfig" })?.type, "DeploymentConfig");
});

test("foreignApiVersion: any version of a kind's own API groups is injected, other groups are not", () => {
  for (const [apiVersion, kind] of [
    ["apps/v1", "Deployment"],
    ["extensions/v1beta1", "Deployment"],
    ["apps/v1beta2", "DaemonSet"],
    ["apps/v1beta1", "StatefulSet"],
    ["batch/v1beta1", "CronJob"],
    ["batch/v2alpha1", "CronJob"],
    ["v1", "Pod"],
    ["v1", "DeploymentConfig"],
    ["apps.openshift.io/v1", "DeploymentConfig"],
    ["", "Deployment"],
    ["example.com/v1", "Service"],
  ]) {
    assert.equal(foreignApiVersion({ apiVersion, kind }), undefined, `${apiVersion} ${kind}`);
  }
  assert.match(
    foreignApiVersion({ apiVersion: "example.com/v1", kind: "Deployment" }) ?? "",
    /^apiVersion "example.com\/v1" is not a Kubernetes API of Deployment \(apps\/\*, extensions\/\*\): not injected/,
  );
  assert.notEqual(foreignApiVersion({ apiVersion: "extensions/v1beta1", kind: "StatefulSet" }), undefined);
  assert.notEqual(foreignApiVersion({ apiVersion: "apps/v1", kind: "Pod" }), undefined);
});

test("podOf / withPod per kind", () => {
  const deploy = {
    kind: "Deployment",
    spec: { template: { metadata: { labels: { a: "b" } }, spec: { containers: [] } } },
  };
  assert.deepEqual(podOf(deploy), { metadata: { labels: { a: "b" } }, spec: { containers: [] } });
  const pod = { kind: "Pod", metadata: { name: "p" }, spec: { hostNetwork: true } };
  assert.deepEqual(podOf(pod), { metadata: { name: "p" }, spec: { hostNetwork: true } });
  const cron = {
    kind: "CronJob",
    spec: { jobTemplate: { spec: { template: { metadata: { x: 1 }, spec: { y: 2 } } } } },
  };
  assert.deepEqual(podOf(cron), { metadata: {}, spec: { y: 2 } });
  const updated = withPod(cron, { metadata: { labels: { l: "v" } }, spec: { z: 3 } });
  assert.deepEqual(updated, {
    kind: "CronJob",
    spec: {
      jobTemplate: { metadata: { labels: { l: "v" } }, spec: { template: { metadata: { x: 1 }, spec: { z: 3 } } } },
    },
  });
  assert.deepEqual(cron.spec.jobTemplate.spec.template.spec, { y: 2 }, "withPod does not modify its argument");
  assert.equal(podOf({ kind: "List", items: [] }), undefined);
  assert.equal(podOf({ kind: "Service" }), undefined);
  assert.throws(() => podOf({ kind: "ReplicationController", spec: {} }), MissingTemplateError);
});

test("podOf refuses a workload whose pod cannot be found, naming the object and the field", () => {
  const refused = (obj: unknown, message: string, type: typeof InvalidWorkloadError = InvalidWorkloadError) =>
    assert.throws(
      () => podOf(obj),
      (e: unknown) => e instanceof type && e.message === message,
    );
  const meta = { name: "x" };
  refused({ kind: "Deployment", metadata: meta }, 'Deployment "x": spec is missing');
  refused({ kind: "Deployment", metadata: meta, spec: null }, 'Deployment "x": spec is missing');
  refused({ kind: "Deployment", metadata: meta, spec: "hello" }, 'Deployment "x": spec must be a map, got string');
  refused(
    { kind: "Deployment", metadata: meta, spec: {} },
    'Deployment "x": spec.template is missing',
    MissingTemplateError,
  );
  refused({ kind: "StatefulSet", spec: { template: 3 } }, "StatefulSet: spec.template must be a map, got number");
  refused({ kind: "Job", spec: { template: { metadata: {} } } }, "Job: spec.template.spec is missing");
  refused(
    { kind: "Job", spec: { template: { metadata: [], spec: {} } } },
    "Job: spec.template.metadata must be a map, got list",
  );
  refused({ kind: "CronJob", spec: {} }, "CronJob: spec.jobTemplate is missing", MissingTemplateError);
  refused(
    { kind: "CronJob", spec: { jobTemplate: { spec: {} } } },
    "CronJob: spec.jobTemplate.spec.template is missing",
  );
  refused({ kind: "Pod", metadata: meta }, 'Pod "x": spec is missing');
  refused({ kind: "Pod", metadata: "m", spec: {} }, "Pod: metadata must be a map, got string");
  // A pod template without metadata, or without containers (a gateway re-injected with a native sidecar), is fine.
  assert.deepEqual(podOf({ kind: "Deployment", spec: { template: { spec: { containers: [] } } } }), {
    metadata: {},
    spec: { containers: [] },
  });
  assert.deepEqual(podOf({ kind: "Pod", spec: {} }), { metadata: {}, spec: {} });
});

test("deploy meta: top-level object, or GetDeployMetaFromPod for a Pod", () => {
  assert.deepEqual(
    deployMetaOf({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "ns" } }),
    {
      name: "d",
      namespace: "ns",
      typeMeta: { apiVersion: "apps/v1", kind: "Deployment" },
    },
  );
  assert.deepEqual(deployMetaOf({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }), {
    name: "p",
    namespace: "",
    typeMeta: { apiVersion: "v1", kind: "Pod" },
  });
  const owned = (kind: string, name: string, labels: Record<string, string> = {}) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: "x-",
      labels,
      ownerReferences: [{ apiVersion: "apps/v1", kind, name, controller: true }],
    },
  });
  assert.deepEqual(deployMetaOf(owned("ReplicaSet", "web-abc12", { "pod-template-hash": "abc12" })), {
    name: "web",
    namespace: "",
    typeMeta: { apiVersion: "apps/v1", kind: "Deployment" },
  });
  assert.deepEqual(deployMetaOf(owned("Job", "nightly-27950000")).typeMeta, {
    kind: "CronJob",
    apiVersion: "batch/v1",
  });
  assert.equal(deployMetaOf(owned("Job", "nightly-27950000")).name, "nightly");
  assert.deepEqual(
    deployMetaOf(owned("ReplicationController", "rc-1", { deploymentconfig: "dc" })).typeMeta.kind,
    "DeploymentConfig",
  );
  assert.deepEqual(deployMetaOf(owned("Bar", "custom")).typeMeta, { apiVersion: "apps/v1", kind: "Bar" });
});

test("workloadOf bundles kind, metas, pod and withPod", async () => {
  const { workloadOf } = await import("./workloads.js");
  const d = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", namespace: "ns" },
    spec: { template: { spec: {} } },
  };
  const ref = workloadOf(d);
  assert.ok(ref);
  assert.equal(ref.fullName, "ns/d");
  assert.deepEqual(ref.typeMeta, { apiVersion: "apps/v1", kind: "Deployment" });
  assert.deepEqual(ref.withPod({ metadata: { name: "t" }, spec: { x: 1 } }).spec, {
    template: { metadata: { name: "t" }, spec: { x: 1 } },
  });
  assert.equal(workloadOf({ kind: "List", items: [] }), undefined);
  assert.ok(workloadOf({ kind: "List", items: [] }, { listsToo: true }));
});
