import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goKindName, lookupField, parseGoType, structFields, structNames, structType } from "./merge-keys.js";

const tags = (struct: string, field: string) => {
  const f = lookupField(struct, field);
  assert.ok(f, `${struct}.${field} is missing`);
  return [f.strategies.join(","), f.mergeKey];
};

describe("merge-keys", () => {
  it("records the patch tags of the Pod tree", () => {
    assert.deepEqual(tags("PodSpec", "containers"), ["merge", "name"]);
    assert.deepEqual(tags("PodSpec", "initContainers"), ["merge", "name"]);
    assert.deepEqual(tags("PodSpec", "ephemeralContainers"), ["merge", "name"]);
    assert.deepEqual(tags("PodSpec", "volumes"), ["merge,retainKeys", "name"]);
    assert.deepEqual(tags("PodSpec", "imagePullSecrets"), ["merge", "name"]);
    assert.deepEqual(tags("PodSpec", "hostAliases"), ["merge", "ip"]);
    assert.deepEqual(tags("PodSpec", "topologySpreadConstraints"), ["merge", "topologyKey"]);
    assert.deepEqual(tags("PodSpec", "schedulingGates"), ["merge", "name"]);
    assert.deepEqual(tags("PodSpec", "resourceClaims"), ["merge,retainKeys", "name"]);
    assert.deepEqual(tags("PodSpec", "tolerations"), ["", ""]);
    assert.deepEqual(tags("PodSpec", "readinessGates"), ["", ""]);
    for (const c of ["Container", "EphemeralContainer"]) {
      assert.deepEqual(tags(c, "ports"), ["merge", "containerPort"]);
      assert.deepEqual(tags(c, "env"), ["merge", "name"]);
      assert.deepEqual(tags(c, "volumeMounts"), ["merge", "mountPath"]);
      assert.deepEqual(tags(c, "volumeDevices"), ["merge", "devicePath"]);
      assert.deepEqual(tags(c, "resizePolicy"), ["", ""]);
      assert.deepEqual(tags(c, "envFrom"), ["", ""]);
    }
    assert.deepEqual(tags("ObjectMeta", "ownerReferences"), ["merge", "uid"]);
    assert.deepEqual(tags("ObjectMeta", "finalizers"), ["merge", ""]);
    assert.deepEqual(tags("PodStatus", "conditions"), ["merge", "type"]);
    assert.deepEqual(tags("PodStatus", "podIPs"), ["merge", "ip"]);
    assert.deepEqual(tags("ContainerStatus", "volumeMounts"), ["merge", "mountPath"]);
  });

  it("types maps, slices, structs and opaque values", () => {
    assert.deepEqual(lookupField("ObjectMeta", "labels")?.type, {
      kind: "map",
      elem: { kind: "scalar", name: "string" },
    });
    assert.deepEqual(lookupField("ResourceRequirements", "limits")?.type, {
      kind: "map",
      elem: { kind: "scalar", name: "Quantity" },
    });
    assert.deepEqual(lookupField("Pod", "spec")?.type, { kind: "struct", name: "PodSpec" });
    assert.equal(goKindName(parseGoType("IntOrString")), "struct");
    assert.equal(goKindName(parseGoType("[]Container")), "slice");
  });

  it("flattens inline structs", () => {
    assert.ok(lookupField("Pod", "apiVersion"));
    assert.ok(lookupField("Volume", "emptyDir"));
    assert.ok(lookupField("Volume", "image"));
    assert.ok(lookupField("EphemeralContainer", "targetContainerName"));
  });

  it("matches JSON names case-insensitively after an exact match fails", () => {
    assert.equal(lookupField("PodSpec", "Containers")?.jsonName, "containers");
    assert.equal(lookupField("PodSpec", "nope"), undefined);
  });

  it("resolves every type the table mentions", () => {
    for (const name of structNames()) assert.ok(structFields(name), name);
    assert.ok(structType("Pod"));
    assert.equal(structType("Nope"), undefined);
  });
});
