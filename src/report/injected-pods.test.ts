// The shared parts of capture-rules and proxy-config: section headers and the not-injected note.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Json } from "../inject/pod.js";
import { workloadOf } from "../kube/workloads.js";
import { nothingInjectedMessage, notInjectedNote, workloadHeader } from "./injected-pods.js";

/** `obj`'s header with `namespace` for objects that name none. */
function header(obj: Json, namespace: string): string {
  const ref = workloadOf(obj);
  assert.ok(ref !== undefined);
  return workloadHeader(obj, ref.pod, namespace);
}

const deployment = (metadata: Json, templateMetadata: Json = {}): Json => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata,
  spec: { template: { metadata: templateMetadata, spec: { containers: [{ name: "app", image: "app" }] } } },
});

describe("workloadHeader", () => {
  it("is Kind namespace/name: the object's namespace, else its pod template's, else the given one", () => {
    assert.equal(header(deployment({ name: "curl", namespace: "shop" }), "default"), "Deployment shop/curl");
    assert.equal(header(deployment({ name: "curl" }, { namespace: "tpl" }), "default"), "Deployment tpl/curl");
    assert.equal(header(deployment({ name: "curl" }), "default"), "Deployment default/curl");
    assert.equal(header(deployment({ name: "curl" }), "dev"), "Deployment dev/curl");
    assert.equal(header(deployment({}), "dev"), "Deployment dev/(no name)");
  });
});

describe("notInjectedNote", () => {
  it("names the missing containers as nothingInjectedMessage does", () => {
    assert.equal(notInjectedNote(["istio-proxy"]), "not injected: no istio-proxy container");
    assert.equal(
      notInjectedNote(["istio-init", "istio-validation", "istio-proxy"]),
      "not injected: no istio-init, istio-validation or istio-proxy container",
    );
    assert.match(
      nothingInjectedMessage("a.yaml", 2, ["istio-init", "istio-validation", "istio-proxy"]),
      /none of the 2 workload\(s\) has an istio-init, istio-validation or istio-proxy container/,
    );
  });
});
