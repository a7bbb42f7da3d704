import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { imageVersion, serviceAttributes, wantsServiceAttributes } from "./otel-attributes.js";

describe("wantsServiceAttributes", () => {
  it("is on only with an opentelemetry provider asking for OTEL_SEMANTIC_CONVENTIONS", () => {
    const provider = (body: Record<string, unknown>) => ({ extensionProviders: [{ name: "p", opentelemetry: body }] });
    assert.equal(wantsServiceAttributes({}), false);
    assert.equal(wantsServiceAttributes(provider({ service: "c", port: 4317 })), false);
    assert.equal(wantsServiceAttributes(provider({ serviceAttributeEnrichment: "OTEL_SEMANTIC_CONVENTIONS" })), true);
    assert.equal(wantsServiceAttributes(provider({ service_attribute_enrichment: "OTEL_SEMANTIC_CONVENTIONS" })), true);
    assert.equal(
      wantsServiceAttributes({
        extensionProviders: [{ name: "z", zipkin: { serviceAttributeEnrichment: "OTEL_SEMANTIC_CONVENTIONS" } }],
      }),
      false,
    );
  });
});

describe("imageVersion", () => {
  it("gives tag@digest, digest or tag, and nothing for a bare name", () => {
    assert.equal(imageVersion("nginx:1.25"), "1.25");
    assert.equal(imageVersion("registry:5000/team/app:v2"), "v2");
    assert.equal(imageVersion("registry:5000/team/app"), "");
    assert.equal(imageVersion("app@sha256:abc"), "sha256:abc");
    assert.equal(imageVersion("app:v1@sha256:abc"), "v1@sha256:abc");
    assert.equal(imageVersion("app"), "");
  });
});

describe("serviceAttributes", () => {
  const base = { annotations: {}, labels: {}, namespace: "shop", containerImages: ["app:1.2"] };
  it("falls back to the namespace, the single container's image tag and namespace.pod.container", () => {
    assert.equal(
      serviceAttributes(base),
      "service.namespace=shop,service.version=1.2,service.instance.id=shop.$(POD_NAME).istio-proxy",
    );
  });
  it("prefers the resource.opentelemetry.io annotations, then the version label", () => {
    assert.equal(
      serviceAttributes({
        ...base,
        annotations: {
          "resource.opentelemetry.io/service.namespace": "team",
          "resource.opentelemetry.io/service.instance.id": "i-1",
        },
        labels: { "app.kubernetes.io/version": "3" },
      }),
      "service.namespace=team,service.version=3,service.instance.id=i-1",
    );
  });
  it("has no version for several containers, and uses the pod's namespace reference when none is known", () => {
    assert.equal(
      serviceAttributes({ ...base, namespace: "", containerImages: ["a:1", "b:2"] }),
      "service.namespace=$(POD_NAMESPACE),service.instance.id=$(POD_NAMESPACE).$(POD_NAME).istio-proxy",
    );
  });
});
