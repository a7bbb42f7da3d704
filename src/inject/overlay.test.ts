import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyOverlayObject, OverlayError, readOverlay, templatePodOf } from "./overlay.js";
import type { Pod } from "./pod.js";

describe("readOverlay", () => {
  const text =
    "spec:\n  containers:\n  - name: istio-proxy\n    image: proxy\n    env:\n    - name: A\n      value: '1'\n";

  test("reads a text at most twice: then the same frozen overlay for it, which merges leave as it is", () => {
    const once = readOverlay(text, "sidecar");
    assert.ok(!Object.isFrozen(once), "a text read once keeps nothing");
    const first = readOverlay(text, "sidecar") as { spec: { containers: { env: unknown[] }[] } };
    assert.deepEqual(first, once);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.spec.containers[0]?.env));
    assert.equal(readOverlay(`${text}`, "other"), first);
    const pod = (): Pod => ({ metadata: {}, spec: { containers: [{ name: "app", image: "nginx" }] } });
    const a = applyOverlayObject(pod(), first, "sidecar");
    const b = applyOverlayObject(pod(), readOverlay(text, "sidecar"), "sidecar");
    assert.deepEqual(a, b);
    assert.deepEqual(
      a.spec.containers?.map((c) => c.name),
      ["istio-proxy", "app"],
    );
    assert.deepEqual(readOverlay(text, "sidecar"), {
      spec: { containers: [{ name: "istio-proxy", image: "proxy", env: [{ name: "A", value: "1" }] }] },
    });
  });

  test("keeps the texts read lately: an old one is read again, into an equal new overlay", () => {
    const first = readOverlay(text, "sidecar");
    assert.equal(readOverlay(text, "sidecar"), first);
    for (let i = 0; i < 40; i++) readOverlay(`metadata:\n  labels:\n    n: "${i}"\n`, "t");
    const again = readOverlay(text, "sidecar");
    assert.notEqual(again, first);
    assert.deepEqual(again, first);
    assert.ok(!Object.isFrozen(again));
  });

  test("names the template when its text is no pod, every time", () => {
    for (let i = 0; i < 2; i++) {
      assert.throws(
        () => readOverlay("- a\n- b\n", "sidecar"),
        (e: Error) => e instanceof OverlayError && /template "sidecar" must render a Pod/.test(e.message),
      );
      assert.throws(
        () => readOverlay("a: [\n", "custom"),
        (e: Error) => e instanceof OverlayError && /template "custom" rendered invalid YAML/.test(e.message),
      );
    }
  });
});

describe("templatePodOf", () => {
  test("is the overlay merged over an empty pod, once per kept overlay, frozen", () => {
    const text = "spec:\n  initContainers:\n  - name: istio-init\n    image: proxy\n";
    const once = readOverlay(text, "sidecar");
    assert.notEqual(
      templatePodOf(once, "sidecar"),
      templatePodOf(once, "sidecar"),
      "not kept for an overlay read once",
    );
    const overlay = readOverlay(text, "sidecar");
    const pod = templatePodOf(overlay, "sidecar");
    assert.deepEqual(pod, applyOverlayObject({ metadata: {}, spec: {} }, overlay, "sidecar"));
    assert.equal(templatePodOf(overlay, "sidecar"), pod);
    assert.ok(Object.isFrozen(pod.spec.initContainers?.[0]));
    assert.deepEqual(templatePodOf(null, "empty"), applyOverlayObject({ metadata: {}, spec: {} }, null, "empty"));
  });
});
