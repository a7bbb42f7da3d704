import assert from "node:assert/strict";
import { describe, it } from "node:test";
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
