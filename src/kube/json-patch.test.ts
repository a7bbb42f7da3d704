import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  applyPatch,
  checkPatchApplies,
  createPatch,
  escapePointerToken,
  JsonPatchError,
  jsonLengthWithin,
  type Operation,
  parsePointer,
} from "./json-patch.js";

/** JSON round trip: what the receiving side sees (drops -0 and undefined the way JSON does). */
const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? "null");

describe("JSON pointers", () => {
  it("escapes ~ and / and reads them back", () => {
    assert.equal(escapePointerToken("a/b~c"), "a~1b~0c");
    assert.deepEqual(parsePointer("/metadata/annotations/sidecar.istio.io~1status/~01"), [
      "metadata",
      "annotations",
      "sidecar.istio.io/status",
      "~1",
    ]);
    assert.deepEqual(parsePointer(""), []);
    assert.throws(() => parsePointer("a"), JsonPatchError);
  });
});

describe("jsonLengthWithin (how createPatch weighs a whole-array replace)", () => {
  it("is the length JSON.stringify writes, or past the limit exactly when that length is", () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.anything({ withNullPrototype: true, withDate: true, withSparseArray: true, withBoxedValues: false }),
    );
    fc.assert(
      fc.property(value, fc.nat(400), (v, limit) => {
        const exact = (JSON.stringify(v) ?? "").length;
        assert.equal(jsonLengthWithin(v, Number.POSITIVE_INFINITY), exact);
        const bounded = jsonLengthWithin(v, limit);
        if (exact <= limit) assert.equal(bounded, exact);
        else assert.ok(bounded > limit && bounded <= exact, `${bounded} for ${exact} within ${limit}`);
      }),
      { numRuns: 2000 },
    );
  });

  it("counts escapes as written", () => {
    const values = [
      { 'a"\n': ["\u0001", "é", undefined, null], "b\\": "\u001f\u007f" },
      ["\ud83d\ude00", "\ud83d", "x\ude00y", "\u2028", "plain"],
    ];
    for (const v of values) assert.equal(jsonLengthWithin(v, 1000), JSON.stringify(v).length);
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" })), (v) => {
        assert.equal(jsonLengthWithin(v, Number.POSITIVE_INFINITY), JSON.stringify(v).length);
      }),
    );
  });
});

describe("createPatch", () => {
  it("adds, removes and replaces object keys with escaped pointers", () => {
    const ops = createPatch(
      { metadata: { annotations: { a: "1", "x/y": "2" }, name: "p" } },
      { metadata: { annotations: { a: "1", "s~t": "3" }, name: "q" } },
    );
    assert.deepEqual(ops, [
      { op: "remove", path: "/metadata/annotations/x~1y" },
      { op: "add", path: "/metadata/annotations/s~0t", value: "3" },
      { op: "replace", path: "/metadata/name", value: "q" },
    ]);
  });

  it("appends containers with add at /-", () => {
    const app = { name: "app", image: "app:1" };
    const proxy = { name: "istio-proxy", image: "proxy" };
    const ops = createPatch({ spec: { containers: [app] } }, { spec: { containers: [app, proxy] } });
    assert.deepEqual(ops, [{ op: "add", path: "/spec/containers/-", value: proxy }]);
  });

  it("inserts a container first and edits the app container in place", () => {
    const app = { name: "app", image: "app:1", env: [{ name: "A", value: "1" }] };
    const app2 = { ...app, readinessProbe: { httpGet: { path: "/app-health/app/readyz", port: 15020 } } };
    const proxy = { name: "istio-proxy", image: "proxy" };
    const ops = createPatch({ spec: { containers: [app] } }, { spec: { containers: [proxy, app2] } });
    assert.deepEqual(ops, [
      { op: "add", path: "/spec/containers/0", value: proxy },
      { op: "add", path: "/spec/containers/1/readinessProbe", value: app2.readinessProbe },
    ]);
  });

  it("moves and removes named elements", () => {
    const a = { name: "a" };
    const b = { name: "b" };
    const c = { name: "c" };
    const before = { list: [a, b, c] };
    const after = { list: [c, a] };
    const ops = createPatch(before, after);
    assert.deepEqual(applyPatch(before, ops), after);
  });

  it("replaces a whole array when that is smaller", () => {
    const ops = createPatch({ args: ["a", "b", "c", "d"] }, { args: ["w", "x", "y", "z"] });
    assert.deepEqual(ops, [{ op: "replace", path: "/args", value: ["w", "x", "y", "z"] }]);
  });

  it("gives an empty patch for equal documents and a root replace for different types", () => {
    assert.deepEqual(createPatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), []);
    assert.deepEqual(createPatch([1], { a: 1 }), [{ op: "replace", path: "", value: { a: 1 } }]);
  });

  it("round-trips random JSON (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const original = viaJson(a);
        const modified = viaJson(b);
        const patched = applyPatch(original, createPatch(original, modified));
        assert.deepStrictEqual(viaJson(patched), modified);
      }),
      { numRuns: 2000 },
    );
  });

  it("round-trips random edits of a pod-like object (property)", () => {
    const container = fc.record({
      name: fc.constantFrom("app", "istio-proxy", "sidecar", "x/y", "a~b"),
      image: fc.string(),
      env: fc.array(fc.record({ name: fc.constantFrom("A", "B", "C", "D"), value: fc.string() }), { maxLength: 5 }),
    });
    const pod = fc.record({
      metadata: fc.record({
        name: fc.string(),
        annotations: fc.dictionary(fc.string(), fc.string(), { maxKeys: 4 }),
      }),
      spec: fc.record({ containers: fc.array(container, { maxLength: 4 }) }),
    });
    fc.assert(
      fc.property(pod, pod, (a, b) => {
        const patched = applyPatch(a, createPatch(a, b));
        assert.deepStrictEqual(viaJson(patched), viaJson(b));
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps the patch of a pod with 2,000 env vars proportional to the change", () => {
    const env = Array.from({ length: 2000 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}-${"x".repeat(20)}` }));
    const app = { name: "app", image: "app:1", env, readinessProbe: { httpGet: { path: "/ready", port: 8080 } } };
    const original = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "big", labels: { app: "big" } },
      spec: { containers: [app], volumes: [{ name: "data", emptyDir: {} }] },
    };
    const proxy = {
      name: "istio-proxy",
      image: "proxyv2",
      args: ["proxy", "sidecar"],
      env: [{ name: "X", value: "y" }],
    };
    const init = { name: "istio-init", image: "proxyv2", args: ["istio-iptables"] };
    const injected = {
      ...original,
      metadata: {
        ...original.metadata,
        labels: { app: "big", "security.istio.io/tlsMode": "istio" },
        annotations: { "sidecar.istio.io/status": '{"containers":["istio-proxy"]}' },
      },
      spec: {
        initContainers: [init],
        // The proxy goes first (holdApplicationUntilProxyStarts) and the app's probe is rewritten.
        containers: [proxy, { ...app, readinessProbe: { httpGet: { path: "/app-health/app/readyz", port: 15020 } } }],
        volumes: [...original.spec.volumes, { name: "istio-envoy", emptyDir: { medium: "Memory" } }],
      },
    };
    const podSize = JSON.stringify(original).length;
    const started = performance.now();
    const ops = createPatch(original, injected);
    const elapsed = performance.now() - started;
    const patchSize = JSON.stringify(ops).length;
    assert.ok(podSize > 80_000, `pod is ${podSize} bytes`);
    assert.ok(patchSize < 1_500, `patch is ${patchSize} bytes: ${JSON.stringify(ops)}`);
    assert.ok(elapsed < 500, `createPatch took ${elapsed} ms`);
    assert.ok(!ops.some((o: Operation) => JSON.stringify(o).includes("VAR_1")));
    assert.deepStrictEqual(applyPatch(original, ops), injected);
  });
});

describe("applyPatch", () => {
  const doc = { a: { b: [1, 2, 3] }, c: "x" };

  it("applies the RFC 6902 operations without changing its input", () => {
    const out = applyPatch(doc, [
      { op: "add", path: "/a/b/1", value: 9 },
      { op: "add", path: "/a/b/-", value: 4 },
      { op: "remove", path: "/a/b/0" },
      { op: "replace", path: "/c", value: { d: 1 } },
      { op: "test", path: "/c/d", value: 1 },
      { op: "copy", from: "/c", path: "/e" },
      { op: "move", from: "/e", path: "/f" },
    ]);
    assert.deepEqual(out, { a: { b: [9, 2, 3, 4] }, c: { d: 1 }, f: { d: 1 } });
    assert.deepEqual(doc, { a: { b: [1, 2, 3] }, c: "x" });
  });

  it("keeps __proto__ keys as data", () => {
    const out = applyPatch({}, [{ op: "add", path: "/__proto__", value: { polluted: true } }]) as object;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ["__proto__"]);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it("rejects bad operations with the operation in the message", () => {
    assert.throws(() => applyPatch(doc, [{ op: "remove", path: "/nope" }]), /operation 0 \(remove "\/nope"\)/);
    assert.throws(() => applyPatch(doc, [{ op: "replace", path: "/a/b/3", value: 1 }]), /out of range/);
    assert.throws(() => applyPatch(doc, [{ op: "add", path: "/a/b/01", value: 1 }]), /invalid array index/);
    assert.throws(() => applyPatch(doc, [{ op: "test", path: "/c", value: "y" }]), /test failed/);
    assert.throws(() => applyPatch(doc, [{ op: "add", path: "/x" }]), /missing "value"/);
    assert.throws(() => applyPatch(doc, [{ op: "move", from: "/a", path: "/a/b/0" }]), /children/);
    assert.throws(() => applyPatch(doc, [{ op: "frob", path: "" }]), /unknown op/);
    assert.throws(() => applyPatch(doc, {} as unknown as unknown[]), /array of operations/);
  });
});

describe("checkPatchApplies", () => {
  /** The error message of `f`, or undefined when it returns. */
  const failure = (f: () => unknown): string | undefined => {
    try {
      f();
      return undefined;
    } catch (e) {
      assert.ok(e instanceof JsonPatchError, String(e));
      return e.message;
    }
  };

  /** Every pointer into `v` (the document itself included), and a few that point nowhere. */
  const pointers = (v: unknown, at = ""): string[] => {
    const out = [at, `${at}/-`, `${at}/nope`, `${at}/0`, `${at}/9`];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) out.push(...pointers(v[i], `${at}/${i}`));
    } else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) out.push(...pointers(x, `${at}/${escapePointerToken(k)}`));
    }
    return out;
  };

  it("fails exactly when applyPatch does, with its message, and modifies neither the document nor the patch", () => {
    const doc = fc.jsonValue({ maxDepth: 3 }).map(viaJson);
    const scenario = doc.chain((d) => {
      const pointer = fc.constantFrom(...pointers(d));
      const op = fc.oneof(
        fc.record({ op: fc.constant("add"), path: pointer, value: fc.jsonValue({ maxDepth: 2 }) }),
        fc.record({ op: fc.constant("remove"), path: pointer }),
        fc.record({ op: fc.constant("replace"), path: pointer, value: fc.jsonValue({ maxDepth: 2 }) }),
        fc.record({ op: fc.constant("move"), from: pointer, path: pointer }),
        fc.record({ op: fc.constant("copy"), from: pointer, path: pointer }),
        fc.record({ op: fc.constant("test"), path: pointer, value: fc.jsonValue({ maxDepth: 1 }) }),
      );
      return fc.tuple(fc.constant(d), fc.array(op.map(viaJson), { maxLength: 6 }));
    });
    fc.assert(
      fc.property(scenario, ([d, ops]) => {
        const [docBefore, opsBefore] = [structuredClone(d), structuredClone(ops)];
        assert.equal(
          failure(() => checkPatchApplies(d, ops)),
          failure(() => applyPatch(d, ops)),
        );
        assert.deepStrictEqual(d, docBefore);
        assert.deepStrictEqual(ops, opsBefore);
      }),
      { numRuns: 3000 },
    );
  });

  it("writes through a value an earlier operation added without changing the patch", () => {
    const ops = [
      { op: "add", path: "/a", value: { list: [1] } },
      { op: "add", path: "/a/list/-", value: 2 },
      { op: "copy", from: "/a", path: "/b" },
      { op: "remove", path: "/b/list/0" },
      { op: "test", path: "/a/list", value: [1, 2] },
      { op: "test", path: "/b/list", value: [2] },
    ];
    const before = structuredClone(ops);
    checkPatchApplies({}, ops);
    assert.deepStrictEqual(ops, before);
    assert.throws(() => checkPatchApplies({}, [...ops, { op: "test", path: "/a/list", value: [1] }]), /test failed/);
    const proto = [
      { op: "add", path: "/__proto__", value: { list: [] } },
      { op: "add", path: "/__proto__/list/-", value: 1 },
      { op: "test", path: "/__proto__/list", value: [1] },
    ];
    checkPatchApplies(JSON.parse('{"__proto__": {"list": []}}'), proto.slice(1));
    checkPatchApplies({}, proto);
    assert.equal(({} as { list?: unknown }).list, undefined);
  });
});

describe("createPatch's choice between an array's edit and its replacement", () => {
  it("takes the edit exactly when its JSON text is shorter than the replacement's", () => {
    const size = (ops: readonly Operation[]) => ops.reduce((n, op) => n + JSON.stringify(op).length + 1, 0);
    let edits = 0;
    let replaces = 0;
    for (let k = 0; k < 60; k++) {
      for (const added of [{ name: "b", v: "x".repeat(k % 7) }, [1, "é", { q: '"' }], "y".repeat(k % 5)]) {
        const original = { list: [{ name: "a", s: "s".repeat(k) }, "t"] };
        const modified = { list: [{ name: "a", s: "s".repeat(k) }, "t", added, added] };
        const edit: Operation[] = [
          { op: "add", path: "/list/-", value: added },
          { op: "add", path: "/list/-", value: added },
        ];
        const replace: Operation[] = [{ op: "replace", path: "/list", value: modified.list }];
        const want = size(edit) < size(replace) ? edit : replace;
        assert.deepEqual(createPatch(original, modified), want, `k=${k}`);
        if (want === edit) edits++;
        else replaces++;
      }
    }
    assert.ok(edits > 0 && replaces > 0, `both choices made (${edits} edits, ${replaces} replacements)`);
  });
});
