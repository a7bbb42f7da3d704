import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { injectedImage } from "./images.js";

const D = `sha256:${"0123456789abcdef".repeat(4)}`;
const values = (global: Record<string, unknown>) => ({ global: { hub: "mirror.example/istio", ...global } });

describe("injectedImage", () => {
  it("a plain tag: hub/proxyv2:tag with the image type", () => {
    assert.equal(
      injectedImage(values({ tag: "1.28.0" }), "proxy", undefined, {}),
      "mirror.example/istio/proxyv2:1.28.0",
    );
    assert.equal(
      injectedImage(values({ tag: "1.28.0", variant: "distroless" }), "proxy", undefined, {}),
      "mirror.example/istio/proxyv2:1.28.0-distroless",
    );
  });

  it("a digest as the tag pins the image: hub/name@sha256:D, the image type not applied", () => {
    assert.equal(injectedImage(values({ tag: D }), "proxy", undefined, {}), `mirror.example/istio/proxyv2@${D}`);
    assert.equal(
      injectedImage(values({ tag: D, variant: "distroless" }), "proxy", undefined, {
        "sidecar.istio.io/proxyImageType": "debug",
      }),
      `mirror.example/istio/proxyv2@${D}`,
    );
    assert.equal(
      injectedImage(values({ tag: `1.28.0@${D}` }), "proxy_init", undefined, {}),
      `mirror.example/istio/proxyv2:1.28.0@${D}`,
    );
  });

  it("something digest-like but not a sha256 digest stays a tag", () => {
    assert.equal(
      injectedImage(values({ tag: "sha256:abc" }), "proxy", undefined, {}),
      "mirror.example/istio/proxyv2:sha256:abc",
    );
  });
});
