import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { proxyImage, proxyInitImage } from "./images.js";

// Istio pkg/kube/inject/inject_test.go TestProxyImage: its table (values hub and tag, the ProxyConfig
// image type, the sidecar.istio.io/proxyImageType annotation, the image wanted).
describe("proxyImage: Istio's TestProxyImage table", () => {
  const cases: Array<[string, string, unknown, string | undefined, string | undefined, string]> = [
    [
      "vals-only-int-tag",
      "registry.istio.io/release",
      11,
      undefined,
      undefined,
      "registry.istio.io/release/proxyv2:11",
    ],
    [
      "pc overrides imageType - float tag",
      "registry.istio.io/release",
      1.12,
      "distroless",
      undefined,
      "registry.istio.io/release/proxyv2:1.12-distroless",
    ],
    [
      "annotation overrides imageType",
      "gcr.io/gke-release/asm",
      "1.11.2-asm.17",
      undefined,
      "distroless",
      "gcr.io/gke-release/asm/proxyv2:1.11.2-asm.17-distroless",
    ],
    [
      "pc and annotation overrides imageType",
      "gcr.io/gke-release/asm",
      "1.11.2-asm.17",
      "distroless",
      "debug",
      "gcr.io/gke-release/asm/proxyv2:1.11.2-asm.17-debug",
    ],
    [
      "pc and annotation overrides imageType, ann is default",
      "gcr.io/gke-release/asm",
      "1.11.2-asm.17",
      "debug",
      "default",
      "gcr.io/gke-release/asm/proxyv2:1.11.2-asm.17",
    ],
    [
      "pc overrides imageType with default, tag also has image type",
      "gcr.io/gke-release/asm",
      "1.11.2-asm.17-distroless",
      "default",
      undefined,
      "gcr.io/gke-release/asm/proxyv2:1.11.2-asm.17",
    ],
    [
      "ann overrides imageType with default, tag also has image type",
      "gcr.io/gke-release/asm",
      "1.11.2-asm.17-distroless",
      undefined,
      "default",
      "gcr.io/gke-release/asm/proxyv2:1.11.2-asm.17",
    ],
    [
      "pc overrides imageType, tag also has image type",
      "registry.istio.io/release",
      "1.12-debug",
      "distroless",
      undefined,
      "registry.istio.io/release/proxyv2:1.12-distroless",
    ],
    [
      "annotation overrides imageType, tag also has the same image type",
      "registry.istio.io/release",
      "1.12-distroless",
      undefined,
      "distroless",
      "registry.istio.io/release/proxyv2:1.12-distroless",
    ],
    [
      "unusual tag should work",
      "private-repo/istio",
      "1.12-this-is-unusual-tag",
      undefined,
      undefined,
      "private-repo/istio/proxyv2:1.12-this-is-unusual-tag",
    ],
    [
      "unusual tag should work, default override",
      "private-repo/istio",
      "1.12-this-is-unusual-tag-distroless",
      "default",
      undefined,
      "private-repo/istio/proxyv2:1.12-this-is-unusual-tag",
    ],
    [
      "annotation overrides imageType with unusual tag",
      "private-repo/istio",
      "1.12-this-is-unusual-tag",
      undefined,
      "distroless",
      "private-repo/istio/proxyv2:1.12-this-is-unusual-tag-distroless",
    ],
  ];
  for (const [desc, hub, tag, pcType, annType, want] of cases) {
    it(desc, () => {
      const annotations: Record<string, string> =
        annType === undefined ? {} : { "sidecar.istio.io/proxyImageType": annType };
      assert.equal(proxyImage({ global: { hub, tag } }, pcType, annotations), want);
    });
  }
});

// Istio pkg/kube/inject/inject.go ProxyInitImage: proxyImageURL with an empty image type, so the
// ProxyConfig's image type never reaches the init container; `global.variant` and the annotation do.
describe("proxyInitImage", () => {
  const values = { global: { hub: "registry.istio.io/release", tag: "1.28.0", proxy_init: { image: "proxyv2" } } };
  it("ignores the ProxyConfig image type that the sidecar's image takes", () => {
    assert.equal(proxyImage(values, "distroless", {}), "registry.istio.io/release/proxyv2:1.28.0-distroless");
    assert.equal(proxyInitImage(values, {}), "registry.istio.io/release/proxyv2:1.28.0");
  });
  it("takes global.variant, and the annotation over it", () => {
    const variant = { global: { ...values.global, variant: "distroless" } };
    assert.equal(proxyInitImage(variant, {}), "registry.istio.io/release/proxyv2:1.28.0-distroless");
    assert.equal(
      proxyInitImage(variant, { "sidecar.istio.io/proxyImageType": "debug" }),
      "registry.istio.io/release/proxyv2:1.28.0-debug",
    );
  });
});
