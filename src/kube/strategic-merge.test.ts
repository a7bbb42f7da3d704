// Strategic merge patch over corev1.Pod. The generic cases restate the
// expectations of apimachinery's own strategic-merge tests on Pod fields:
// a merging list of objects is spec.containers (key name), a merging list of
// scalars metadata.finalizers, a replaced list spec.tolerations or
// securityContext.supplementalGroups, a plain map metadata.labels, a
// merge,retainKeys list spec.volumes. The Istio cases follow how the injector
// uses the merge (template over pod, then the user's istio-proxy back over it).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { StrategicMergeError, strategicMerge } from "./strategic-merge.js";

const merge = (original: unknown, patch: unknown) => strategicMerge(original, patch);
const spec = (s: Record<string, unknown>) => ({ spec: s });
const names = (list: unknown) => (list as { name: string }[]).map((c) => c.name);

function goMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StrategicMergeError, `not a StrategicMergeError: ${e}`);
    return e.goMessage;
  }
  assert.fail("expected an error");
}

describe("strategicMerge: maps", () => {
  it("merges keys recursively and deletes keys patched with null", () => {
    const out = merge(
      { metadata: { name: "p", labels: { a: "1", b: "1" } } },
      { metadata: { labels: { b: null, c: "2" }, annotations: { x: "y" } } },
    );
    assert.deepEqual(out, { metadata: { name: "p", labels: { a: "1", c: "2" }, annotations: { x: "y" } } });
  });

  it("ignores a null for a key the original lacks, and nulls inside new values", () => {
    const out = merge({ metadata: { name: "p" } }, { metadata: { uid: null, labels: { a: "1", b: null } } });
    assert.deepEqual(out, { metadata: { name: "p", labels: { a: "1" } } });
  });

  it("an empty or null patch leaves the original as it was", () => {
    assert.deepEqual(merge({ metadata: { name: "p" } }, {}), { metadata: { name: "p" } });
    assert.deepEqual(merge({ metadata: { name: "p" } }, null), { metadata: { name: "p" } });
    assert.deepEqual(merge(null, { metadata: { name: "p" } }), { metadata: { name: "p" } });
  });

  it("$patch: delete empties a map", () => {
    const out = merge({ metadata: { labels: { a: "1", b: "1" } } }, { metadata: { labels: { $patch: "delete" } } });
    assert.deepEqual(out, { metadata: { labels: {} } });
  });

  it("$patch: replace replaces a map, at the root too", () => {
    assert.deepEqual(
      merge({ metadata: { name: "p", labels: { a: "1" } } }, { metadata: { $patch: "replace", labels: { b: "2" } } }),
      { metadata: { labels: { b: "2" } } },
    );
    assert.deepEqual(merge({ kind: "Pod", apiVersion: "v1" }, { $patch: "replace" }), {});
    assert.deepEqual(merge({ kind: "Pod", apiVersion: "v1" }, { kind: "X", $patch: "replace" }), { kind: "X" });
  });

  it("rejects an unknown $patch value", () => {
    assert.equal(
      goMessage(() => merge({ metadata: { labels: { a: "1" } } }, { metadata: { labels: { $patch: "nope" } } })),
      "unknown patch type: nope in map: map[$patch:nope]",
    );
  });

  it("drops a directive object patched under a key the original lacks", () => {
    assert.deepEqual(merge({ metadata: {} }, { metadata: { labels: { $patch: "delete" } } }), { metadata: {} });
  });

  it("a value of another JSON type replaces the original value", () => {
    assert.deepEqual(
      merge({ metadata: { creationTimestamp: null } }, { metadata: { creationTimestamp: "2020-01-01T00:00:00Z" } }),
      { metadata: { creationTimestamp: "2020-01-01T00:00:00Z" } },
    );
    assert.deepEqual(merge(spec({ hostNetwork: "yes" }), spec({ hostNetwork: true })), spec({ hostNetwork: true }));
  });

  it("does not modify its inputs", () => {
    const original = spec({ containers: [{ name: "a", env: [{ name: "X", value: "1" }] }] });
    const patch = spec({ containers: [{ name: "a", env: [{ name: "Y", value: "2" }] }, { name: "b" }] });
    const before = JSON.stringify([original, patch]);
    merge(original, patch);
    assert.equal(JSON.stringify([original, patch]), before);
  });
});

describe("strategicMerge: lists of objects with a merge key", () => {
  it("merges matching items in place and appends new ones before unmatched originals", () => {
    const out = merge(
      spec({
        containers: [
          { name: "a", image: "a1" },
          { name: "b", image: "b1" },
        ],
      }),
      spec({
        containers: [
          { name: "b", image: "b2" },
          { name: "c", image: "c1" },
        ],
      }),
    ) as { spec: { containers: unknown[] } };
    assert.deepEqual(out.spec.containers, [
      { name: "a", image: "a1" },
      { name: "b", image: "b2" },
      { name: "c", image: "c1" },
    ]);
  });

  it("puts a new item ahead of original-only items that no patched item precedes", () => {
    const out = merge(spec({ containers: [{ name: "app" }] }), spec({ containers: [{ name: "istio-proxy" }] }));
    assert.deepEqual(names((out as { spec: { containers: unknown } }).spec.containers), ["istio-proxy", "app"]);
  });

  it("keeps the patch's order for patched items (apimachinery: preserve the order from the patch)", () => {
    const original = spec({ containers: [{ name: "1" }, { name: "2", image: "b" }, { name: "3" }] });
    assert.deepEqual(
      merge(
        original,
        spec({
          containers: [
            { name: "3", image: "c" },
            { name: "1", image: "a" },
            { name: "2", tty: true },
          ],
        }),
      ),
      spec({
        containers: [
          { name: "3", image: "c" },
          { name: "1", image: "a" },
          { name: "2", image: "b", tty: true },
        ],
      }),
    );
    assert.deepEqual(
      merge(
        original,
        spec({
          containers: [
            { name: "3", image: "c" },
            { name: "1", image: "a" },
          ],
        }),
      ),
      spec({
        containers: [
          { name: "2", image: "b" },
          { name: "3", image: "c" },
          { name: "1", image: "a" },
        ],
      }),
    );
  });

  it("$patch: delete removes every item with the key, and ignores absent keys", () => {
    const out = merge(
      spec({ containers: [{ name: "1" }, { name: "1" }, { name: "2", image: "a" }, { name: "3" }, { name: "3" }] }),
      spec({
        containers: [
          { name: "1", $patch: "delete" },
          { name: "3", $patch: "delete" },
          { name: "9", $patch: "delete" },
        ],
      }),
    );
    assert.deepEqual(out, spec({ containers: [{ name: "2", image: "a" }] }));
  });

  it("an item $patch: replace replaces the whole list with the other items", () => {
    const original = spec({ containers: [{ name: "1" }, { name: "2" }] });
    assert.deepEqual(merge(original, spec({ containers: [{ $patch: "replace" }] })), spec({ containers: [] }));
    assert.deepEqual(
      merge(original, spec({ containers: [{ name: "3" }, { $patch: "replace" }] })),
      spec({ containers: [{ name: "3" }] }),
    );
  });

  it("rejects $patch: merge in a list and unknown item directives", () => {
    const original = spec({ containers: [{ name: "1" }] });
    assert.equal(
      goMessage(() => merge(original, spec({ containers: [{ name: "1", $patch: "merge" }] }))),
      "merging lists cannot yet be specified in the patch",
    );
    assert.equal(
      goMessage(() => merge(original, spec({ containers: [{ name: "1", $patch: "x" }] }))),
      "unknown patch type: x in map: map[$patch:x name:1]",
    );
  });

  it("reports an item missing its merge key, with where it is", () => {
    let caught: unknown;
    try {
      merge(spec({ containers: [{ name: "1", image: "a" }] }), spec({ containers: [{ image: "b" }] }));
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof StrategicMergeError);
    assert.equal(caught.goMessage, "map: map[image:b] does not contain declared merge key: name");
    assert.equal(caught.path, "spec.containers[0]");
    assert.match(caught.message, /^strategic merge patch of Pod at spec\.containers\[0\]: map: map\[image:b\]/);
  });

  it("an original item without the merge key fails too (apimachinery validates both sides)", () => {
    assert.equal(
      goMessage(() => merge(spec({ containers: [{ image: "a" }] }), spec({ containers: [{ name: "b" }] }))),
      "map: map[image:a] does not contain declared merge key: name",
    );
  });

  it("merging two empty lists, or an empty patch list, keeps the original", () => {
    assert.deepEqual(merge(spec({ containers: [] }), spec({ containers: [] })), spec({ containers: [] }));
    assert.deepEqual(
      merge(spec({ containers: [{ name: "a" }, { name: "b" }] }), spec({ containers: [] })),
      spec({ containers: [{ name: "a" }, { name: "b" }] }),
    );
  });

  it("a list new to the original loses its directive items (nested patch merge with empty list)", () => {
    assert.deepEqual(
      merge(
        { metadata: { name: "hi" } },
        spec({ containers: [{ name: "hello" }, { name: "gone", $patch: "delete" }] }),
      ),
      { metadata: { name: "hi" }, spec: { containers: [{ name: "hello" }] } },
    );
  });

  it("mixed element types are an error", () => {
    assert.equal(
      goMessage(() => merge(spec({ containers: [{ name: "a" }] }), spec({ containers: ["b"] }))),
      "list element types are not identical: [[map[name:a]] [b]]",
    );
  });
});

describe("strategicMerge: lists of scalars and replaced lists", () => {
  it("unions a merging list of scalars", () => {
    assert.deepEqual(merge({ metadata: { finalizers: ["1", "2"] } }, { metadata: { finalizers: ["2", "3"] } }), {
      metadata: { finalizers: ["1", "2", "3"] },
    });
  });

  it("orders a merging scalar list like a list of objects", () => {
    const original = { metadata: { finalizers: ["1", "2", "3"] } };
    assert.deepEqual(merge(original, { metadata: { finalizers: ["3", "1", "2"] } }), {
      metadata: { finalizers: ["3", "1", "2"] },
    });
    assert.deepEqual(merge(original, { metadata: { finalizers: ["3", "1"] } }), {
      metadata: { finalizers: ["2", "3", "1"] },
    });
  });

  it("replaces lists without a merge strategy", () => {
    assert.deepEqual(
      merge(
        spec({ tolerations: [{ key: "a" }, { key: "b" }], securityContext: { supplementalGroups: [1, 2] } }),
        spec({ tolerations: [{ key: "c" }], securityContext: { supplementalGroups: [2, 3] } }),
      ),
      spec({ tolerations: [{ key: "c" }], securityContext: { supplementalGroups: [2, 3] } }),
    );
  });

  it("a replaced list keeps directive items verbatim, as apimachinery does", () => {
    assert.deepEqual(
      merge(spec({ tolerations: [{ key: "a" }] }), spec({ tolerations: [{ key: "a", $patch: "delete" }] })),
      spec({ tolerations: [{ key: "a", $patch: "delete" }] }),
    );
  });

  it("$deleteFromPrimitiveList removes values, from merging and replaced lists alike", () => {
    assert.deepEqual(
      merge(
        { metadata: { finalizers: ["1", "2", "3", "3"] } },
        { metadata: { "$deleteFromPrimitiveList/finalizers": ["3"] } },
      ),
      { metadata: { finalizers: ["1", "2"] } },
    );
    assert.deepEqual(
      merge(
        spec({ securityContext: { supplementalGroups: [1, 2, 3] } }),
        spec({ securityContext: { "$deleteFromPrimitiveList/supplementalGroups": [2] } }),
      ),
      spec({ securityContext: { supplementalGroups: [1, 3] } }),
    );
  });

  it("$deleteFromPrimitiveList never adds a value or a list", () => {
    const d = { "$deleteFromPrimitiveList/finalizers": ["3"] };
    assert.deepEqual(merge({ metadata: { finalizers: ["1", "2"] } }, { metadata: d }), {
      metadata: { finalizers: ["1", "2"] },
    });
    assert.deepEqual(merge({ metadata: { finalizers: [] } }, { metadata: d }), { metadata: { finalizers: [] } });
    assert.deepEqual(merge({ metadata: { name: "x" } }, { metadata: d }), { metadata: { name: "x" } });
  });

  it("rejects a malformed $deleteFromPrimitiveList key", () => {
    assert.equal(
      goMessage(() => merge({ metadata: { finalizers: ["1"] } }, { metadata: { $deleteFromPrimitiveList: ["1"] } })),
      "invalid patch format of primitive list",
    );
  });
});

describe("strategicMerge: $setElementOrder", () => {
  it("orders a merged list of objects, keeping original-only fields", () => {
    const out = merge(
      spec({
        containers: [
          { name: "1", tty: true },
          { name: "2", image: "2", tty: false },
        ],
      }),
      spec({
        "$setElementOrder/containers": [{ name: "4" }, { name: "1" }, { name: "2" }, { name: "3" }],
        containers: [
          { name: "4", image: "4" },
          { name: "3", image: "3" },
        ],
      }),
    );
    assert.deepEqual(
      out,
      spec({
        containers: [
          { name: "4", image: "4" },
          { name: "1", tty: true },
          { name: "2", image: "2", tty: false },
          { name: "3", image: "3" },
        ],
      }),
    );
  });

  it("reorders a scalar list even without patch values, ignoring names it does not hold", () => {
    assert.deepEqual(
      merge({ metadata: { finalizers: ["1", "3"] } }, { metadata: { "$setElementOrder/finalizers": ["3", "2", "1"] } }),
      { metadata: { finalizers: ["3", "1"] } },
    );
  });

  it("combines with $deleteFromPrimitiveList", () => {
    assert.deepEqual(
      merge(
        { metadata: { finalizers: ["1", "2", "3", "4"] } },
        { metadata: { "$setElementOrder/finalizers": ["1", "2"], "$deleteFromPrimitiveList/finalizers": ["3"] } },
      ),
      { metadata: { finalizers: ["1", "2", "4"] } },
    );
  });

  it("rejects a patch list whose order disagrees with it", () => {
    const message = goMessage(() =>
      merge(
        spec({ containers: [{ name: "1" }, { name: "3" }, { name: "2" }] }),
        spec({
          "$setElementOrder/containers": [{ name: "1" }, { name: "2" }, { name: "3" }],
          containers: [
            { name: "3", image: "3" },
            { name: "1", image: "1" },
          ],
        }),
      ),
    );
    assert.match(message, /doesn't match \$setElementOrder list/);
  });
});

describe("strategicMerge: $retainKeys and retainKeys lists", () => {
  it("clears the keys of a volume not named in $retainKeys", () => {
    const out = merge(
      spec({ volumes: [{ name: "v", configMap: { name: "cm" } }] }),
      spec({ volumes: [{ name: "v", secret: { secretName: "s" }, $retainKeys: ["name", "secret"] }] }),
    );
    assert.deepEqual(out, spec({ volumes: [{ name: "v", secret: { secretName: "s" } }] }));
  });

  it("merges volume fields when no $retainKeys is given", () => {
    const out = merge(
      spec({ volumes: [{ name: "bar" }, { name: "foo", emptyDir: { medium: "Memory" } }] }),
      spec({ volumes: [{ name: "foo", emptyDir: { sizeLimit: "1Gi" } }] }),
    );
    assert.deepEqual(
      out,
      spec({ volumes: [{ name: "bar" }, { name: "foo", emptyDir: { medium: "Memory", sizeLimit: "1Gi" } }] }),
    );
  });

  it("rejects a patch key missing from $retainKeys, and a non-list $retainKeys", () => {
    assert.equal(
      goMessage(() =>
        merge(spec({ volumes: [{ name: "v" }] }), spec({ volumes: [{ name: "v", $retainKeys: ["x"] }] })),
      ),
      "invalid patch format of retainKeys",
    );
    assert.equal(
      goMessage(() => merge(spec({}), spec({ $retainKeys: "x" }))),
      "invalid patch format of retainKeys",
    );
  });
});

describe("strategicMerge: fields outside the schema", () => {
  it("adds unknown keys and replaces unknown scalars", () => {
    assert.deepEqual(merge(spec({ foo: 1 }), spec({ foo: 2, bar: { a: [1] } })), spec({ foo: 2, bar: { a: [1] } }));
  });

  it("fails, as apimachinery does, when both sides hold an object under an unknown key", () => {
    assert.equal(
      goMessage(() => merge(spec({ foo: { a: 1 } }), spec({ foo: { b: 1 } }))),
      'unable to find api field in struct PodSpec for the json field "foo"',
    );
  });

  it("fails when an object is merged into a Go map's value or a scalar field", () => {
    assert.equal(
      goMessage(() =>
        merge({ metadata: { labels: { a: { x: 1 } } } }, { metadata: { labels: { a: { y: { z: 1 } } } } }),
      ),
      "merging an object in json but data type is not struct, instead is: map",
    );
  });

  it("finds a field whatever the case of its JSON name, as Go's encoding/json does", () => {
    const out = merge(spec({ Containers: [{ name: "a" }] }), spec({ Containers: [{ name: "b" }] }));
    assert.deepEqual(names((out as { spec: { Containers: unknown } }).spec.Containers), ["b", "a"]);
  });
});

describe("strategicMerge: other struct types", () => {
  it("merges a Container directly", () => {
    assert.deepEqual(
      strategicMerge(
        { name: "c", env: [{ name: "A", value: "1" }] },
        { env: [{ name: "A", value: "2" }] },
        "Container",
      ),
      { name: "c", env: [{ name: "A", value: "2" }] },
    );
  });

  it("rejects an unknown type name", () => {
    assert.throws(() => strategicMerge({}, {}, "Nope"), /unknown type "Nope"/);
  });
});

describe("strategicMerge: Istio injection", () => {
  const userPod = {
    metadata: { name: "hello", labels: { app: "hello" }, annotations: { "sidecar.istio.io/status": "x" } },
    spec: {
      initContainers: [{ name: "user-init", image: "busybox" }],
      containers: [
        { name: "hello", image: "hello:1", ports: [{ containerPort: 80, name: "http" }] },
        {
          name: "istio-proxy",
          image: "auto",
          env: [{ name: "FOO", value: "user" }],
          resources: { limits: { cpu: "2" } },
          volumeMounts: [{ mountPath: "/etc/istio/proxy", name: "user-vol" }],
        },
      ],
      volumes: [{ name: "user-vol", emptyDir: {} }],
    },
  };
  const template = {
    metadata: { labels: { "security.istio.io/tlsMode": "istio" }, annotations: { "sidecar.istio.io/status": "y" } },
    spec: {
      initContainers: [{ name: "istio-init", image: "proxyv2", args: ["istio-iptables"] }],
      containers: [
        {
          name: "istio-proxy",
          image: "proxyv2",
          args: ["proxy", "sidecar"],
          env: [
            { name: "PILOT_CERT_PROVIDER", value: "istiod" },
            { name: "FOO", value: "template" },
          ],
          ports: [{ containerPort: 15090, name: "http-envoy-prom", protocol: "TCP" }],
          resources: { limits: { memory: "1Gi" }, requests: { cpu: "100m" } },
          volumeMounts: [
            { mountPath: "/var/run/secrets/workload-spiffe-uds", name: "workload-socket" },
            { mountPath: "/etc/istio/proxy", name: "istio-envoy" },
          ],
        },
      ],
      volumes: [
        { name: "workload-socket", emptyDir: {} },
        { name: "istio-envoy", emptyDir: { medium: "Memory" } },
      ],
    },
  };

  type Pod = {
    metadata: Record<string, unknown>;
    spec: {
      initContainers: Record<string, unknown>[];
      containers: Record<string, unknown>[];
      volumes: unknown[];
    };
  };

  it("merges the template over a pod that customises istio-proxy", () => {
    const out = merge(userPod, template) as Pod;
    assert.deepEqual(out.metadata.labels, { app: "hello", "security.istio.io/tlsMode": "istio" });
    assert.deepEqual(out.metadata.annotations, { "sidecar.istio.io/status": "y" });
    // new template init containers go first; user init containers follow
    assert.deepEqual(names(out.spec.initContainers), ["istio-init", "user-init"]);
    assert.deepEqual(names(out.spec.containers), ["hello", "istio-proxy"]);
    const proxy = out.spec.containers[1];
    assert.equal(proxy.image, "proxyv2");
    assert.deepEqual(proxy.args, ["proxy", "sidecar"]);
    // env merged by name, in the template's order
    assert.deepEqual(proxy.env, [
      { name: "PILOT_CERT_PROVIDER", value: "istiod" },
      { name: "FOO", value: "template" },
    ]);
    // resources merged key by key
    assert.deepEqual(proxy.resources, { limits: { cpu: "2", memory: "1Gi" }, requests: { cpu: "100m" } });
    // volumeMounts merged by mountPath: the template's name wins for the shared path
    assert.deepEqual(proxy.volumeMounts, [
      { mountPath: "/var/run/secrets/workload-spiffe-uds", name: "workload-socket" },
      { mountPath: "/etc/istio/proxy", name: "istio-envoy" },
    ]);
    assert.deepEqual(proxy.ports, [{ containerPort: 15090, name: "http-envoy-prom", protocol: "TCP" }]);
    assert.deepEqual(names(out.spec.volumes), ["workload-socket", "istio-envoy", "user-vol"]);
  });

  it("merges the user's istio-proxy back over the result as an override", () => {
    const merged = merge(userPod, template);
    const userProxy = userPod.spec.containers[1];
    const out = merge(merged, { spec: { containers: [userProxy] } }) as Pod;
    const proxy = out.spec.containers.find((c) => c.name === "istio-proxy");
    assert.ok(proxy);
    assert.equal(proxy.image, "auto");
    assert.deepEqual(proxy.env, [
      { name: "PILOT_CERT_PROVIDER", value: "istiod" },
      { name: "FOO", value: "user" },
    ]);
    assert.deepEqual(proxy.volumeMounts, [
      { mountPath: "/var/run/secrets/workload-spiffe-uds", name: "workload-socket" },
      { mountPath: "/etc/istio/proxy", name: "user-vol" },
    ]);
    assert.deepEqual(names(out.spec.containers), ["hello", "istio-proxy"]);
  });

  it("merges ports by containerPort", () => {
    const out = merge(
      spec({ containers: [{ name: "a", ports: [{ containerPort: 80, name: "http" }, { containerPort: 81 }] }] }),
      spec({ containers: [{ name: "a", ports: [{ containerPort: 15090 }, { containerPort: 80, protocol: "TCP" }] }] }),
    ) as Pod;
    assert.deepEqual(out.spec.containers[0].ports, [
      { containerPort: 15090 },
      { containerPort: 80, name: "http", protocol: "TCP" },
      { containerPort: 81 },
    ]);
  });

  it("removes a container with $patch: delete", () => {
    const out = merge(userPod, spec({ containers: [{ name: "istio-proxy", $patch: "delete" }] })) as Pod;
    assert.deepEqual(names(out.spec.containers), ["hello"]);
  });

  it("an empty containers list keeps the containers; containers: null deletes them", () => {
    // Istio's applyInitContainer sends `containers: []` for exactly this reason.
    const kept = merge(userPod, spec({ containers: [], initContainers: [{ name: "istio-validation" }] })) as Pod;
    assert.deepEqual(names(kept.spec.containers), ["hello", "istio-proxy"]);
    assert.deepEqual(names(kept.spec.initContainers), ["istio-validation", "user-init"]);
    const dropped = merge(userPod, spec({ containers: null })) as Pod;
    assert.equal("containers" in dropped.spec, false);
  });

  it("merges a template into an empty pod (the template pod Istio accumulates)", () => {
    assert.deepEqual(merge({}, template), template);
  });

  it("over a marshalled empty Pod (containers: null) the template list is copied without its nulls", () => {
    const emptyPod = { metadata: { creationTimestamp: null }, spec: { containers: null }, status: {} };
    assert.deepEqual(merge(emptyPod, spec({ containers: [{ name: "x", resources: null }] })), {
      metadata: { creationTimestamp: null },
      spec: { containers: [{ name: "x" }] },
      status: {},
    });
  });

  it("a template item with null fields keeps them when appended, as apimachinery does", () => {
    const out = merge(spec({ containers: [{ name: "app" }] }), spec({ containers: [{ name: "x", resources: null }] }));
    assert.deepEqual(out, spec({ containers: [{ name: "x", resources: null }, { name: "app" }] }));
  });
});

it("long lists merge by key in one pass (a pod with 20,000 env vars)", () => {
  const env = (from: number, to: number, value: string) =>
    Array.from({ length: to - from }, (_, i) => ({ name: `E${from + i}`, value }));
  const original = { spec: { containers: [{ name: "app", env: env(0, 20_000, "old") }] } };
  const patch = { spec: { containers: [{ name: "app", env: env(10_000, 30_000, "new") }] } };
  const merged = strategicMerge(original, patch) as {
    spec: { containers: { env: { name: string; value: string }[] }[] };
  };
  const out = merged.spec.containers[0]?.env ?? [];
  assert.equal(out.length, 30_000);
  assert.deepEqual(out[0], { name: "E0", value: "old" });
  assert.deepEqual(
    out.find((e) => e.name === "E15000"),
    { name: "E15000", value: "new" },
  );
  assert.deepEqual(out.at(-1), { name: "E29999", value: "new" });
});

/** What a value the original lacks becomes, step by step: nulls deleted at every depth, then `$patch` objects dropped. */
function cleanedStepByStep(v: unknown): { value: unknown } | undefined {
  const discardNulls = (x: unknown): void => {
    if (Array.isArray(x)) for (const item of x) discardNulls(item);
    else if (typeof x === "object" && x !== null) {
      for (const [k, item] of Object.entries(x)) {
        if (item === null) delete (x as Record<string, unknown>)[k];
        else discardNulls(item);
      }
    }
  };
  const removeDirectives = (x: unknown): { value: unknown } | undefined => {
    if (Array.isArray(x)) return { value: x.flatMap((item) => removeDirectives(item) ?? []).map((c) => c.value) };
    if (typeof x !== "object" || x === null) return { value: x };
    if (Object.hasOwn(x, "$patch")) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(x)) {
      const c = removeDirectives(item);
      if (c !== undefined) out[k] = c.value;
    }
    return { value: out };
  };
  const copy = structuredClone(v);
  discardNulls(copy);
  return removeDirectives(copy);
}

it("a value the original lacks is stored without its nulls and `$patch` objects, at every depth", () => {
  const leaf = fc.oneof(fc.constant(null), fc.integer(), fc.constantFrom("a", "delete", "replace"));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, leaf, tie("list"), tie("map")),
    list: fc.array(tie("value"), { maxLength: 4 }),
    map: fc.dictionary(fc.constantFrom("k", "n", "$patch", "x"), tie("value"), { maxKeys: 4 }),
  }));
  fc.assert(
    fc.property(value, (v) => {
      const want = cleanedStepByStep(v);
      const merged = strategicMerge({}, { extra: v }) as Record<string, unknown>;
      if (v === null || want === undefined) assert.deepEqual(merged, {});
      else assert.deepEqual(merged, { extra: want.value });
    }),
    { numRuns: 500 },
  );
});

it("keeps a __proto__ key of the patch as data", () => {
  const merged = strategicMerge({}, JSON.parse('{"extra": {"__proto__": {"polluted": true}}}')) as {
    extra: object;
  };
  assert.deepEqual(Object.keys(merged.extra), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(merged.extra), Object.prototype);
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
});
