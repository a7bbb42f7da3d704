import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inject, loadInjectorConfig } from "../index.js";
import { defaultConfigFiles } from "./defaults.js";
import { proxyImage, proxyInitImage } from "./images.js";

const D = `sha256:${"0123456789abcdef".repeat(4)}`;
const values = (global: Record<string, unknown>) => ({ global: { hub: "mirror.example/istio", ...global } });

describe("digest tags", () => {
  it("by default are written as Istio writes them: hub/name:sha256:D, the image type applied", () => {
    // Istio pkg/kube/inject/inject.go imageURL: hub + "/" + name + ":" + updateImageTypeIfPresent(tag, type).
    assert.equal(proxyImage(values({ tag: D }), undefined, {}), `mirror.example/istio/proxyv2:${D}`);
    assert.equal(
      proxyImage(values({ tag: D, variant: "distroless" }), undefined, {}),
      `mirror.example/istio/proxyv2:${D}-distroless`,
    );
    assert.equal(proxyInitImage(values({ tag: `1.28.0@${D}` }), {}), `mirror.example/istio/proxyv2:1.28.0@${D}`);
  });

  describe("with the digestReferences extension", () => {
    const on = { digestReferences: true };
    it("pin the image: hub/name@sha256:D, the image type not applied", () => {
      assert.equal(proxyImage(values({ tag: D }), undefined, {}, on), `mirror.example/istio/proxyv2@${D}`);
      assert.equal(
        proxyImage(
          values({ tag: D, variant: "distroless" }),
          undefined,
          { "sidecar.istio.io/proxyImageType": "debug" },
          on,
        ),
        `mirror.example/istio/proxyv2@${D}`,
      );
      assert.equal(proxyInitImage(values({ tag: `1.28.0@${D}` }), {}, on), `mirror.example/istio/proxyv2:1.28.0@${D}`);
    });

    it("leave something digest-like but not a sha256 digest a tag", () => {
      assert.equal(
        proxyImage(values({ tag: "sha256:abc" }), undefined, {}, on),
        "mirror.example/istio/proxyv2:sha256:abc",
      );
    });
  });
});

describe("loadInjectorConfig's digestImageReferences option", () => {
  const defaults = JSON.parse(defaultConfigFiles().values) as { global: Record<string, unknown> };
  const values = JSON.stringify({ ...defaults, global: { ...defaults.global, hub: "mirror.example/istio", tag: D } });
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns" },
    spec: { containers: [{ name: "app", image: "app" }] },
  };
  const proxyImageOf = (out: { spec: { containers: Array<{ name: string; image: string }> } }) =>
    out.spec.containers.find((c) => c.name === "istio-proxy")?.image;
  it("is off by default (Istio's image) and turns the extension on", () => {
    assert.equal(proxyImageOf(inject(loadInjectorConfig({ values }), pod)), `mirror.example/istio/proxyv2:${D}`);
    assert.equal(
      proxyImageOf(inject(loadInjectorConfig({ values, digestImageReferences: true }), pod)),
      `mirror.example/istio/proxyv2@${D}`,
    );
  });
});
