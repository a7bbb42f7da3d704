import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type MeshConfig, meshConfigView } from "../mesh/index.js";
import type { GoValue } from "../template/index.js";
import { imageVersion, otelResourceAttributes, serviceAttributes, wantsServiceAttributes } from "./otel-attributes.js";

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

// Istio pkg/kube/inject/template_test.go TestOtelResourceAttributes: its table, case by case, through
// the template function (a MeshConfig view, as templates pass `.MeshConfig`).
describe("otelResourceAttributes follows Istio's TestOtelResourceAttributes table", () => {
  const semConv = {
    extensionProviders: [
      {
        name: "otel",
        opentelemetry: {
          service: "otel-collector",
          port: 4317,
          serviceAttributeEnrichment: "OTEL_SEMANTIC_CONVENTIONS",
        },
      },
    ],
  };
  const canonical = {
    extensionProviders: [
      {
        name: "otel",
        opentelemetry: { service: "otel-collector", port: 4317, serviceAttributeEnrichment: "ISTIO_CANONICAL" },
      },
    ],
  };
  type Row = {
    name: string;
    mc: Record<string, unknown>;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    namespace: string;
    containers?: Array<{ name: string; image: string }>;
    want: string;
  };
  const myapp = [{ name: "myapp", image: "myapp" }];
  const nginx = (image: string) => [{ name: "nginx", image }];
  const rows: Row[] = [
    { name: "no OTel semantic conventions provider returns empty", mc: {}, namespace: "default", want: "" },
    { name: "ISTIO_CANONICAL provider returns empty", mc: canonical, namespace: "default", want: "" },
    {
      name: "defaults: namespace only (no containers)",
      mc: semConv,
      namespace: "my-namespace",
      want: "service.namespace=my-namespace",
    },
    {
      name: "defaults: namespace + instance.id with container",
      mc: semConv,
      namespace: "my-namespace",
      containers: myapp,
      want: "service.namespace=my-namespace,service.instance.id=my-namespace.$(POD_NAME).myapp",
    },
    {
      name: "all annotations override defaults",
      mc: semConv,
      namespace: "my-namespace",
      annotations: {
        "resource.opentelemetry.io/service.namespace": "custom-ns",
        "resource.opentelemetry.io/service.version": "v2.0",
        "resource.opentelemetry.io/service.instance.id": "custom-id",
      },
      labels: { "app.kubernetes.io/version": "should-not-use" },
      containers: myapp,
      want: "service.namespace=custom-ns,service.version=v2.0,service.instance.id=custom-id",
    },
    {
      name: "service.version from label",
      mc: semConv,
      namespace: "default",
      labels: { "app.kubernetes.io/version": "v1.2.3" },
      containers: myapp,
      want: "service.namespace=default,service.version=v1.2.3,service.instance.id=default.$(POD_NAME).myapp",
    },
    {
      name: "service.namespace annotation overrides k8s namespace",
      mc: semConv,
      namespace: "actual-namespace",
      annotations: { "resource.opentelemetry.io/service.namespace": "annotated-ns" },
      containers: myapp,
      want: "service.namespace=annotated-ns,service.instance.id=actual-namespace.$(POD_NAME).myapp",
    },
    {
      name: "service.version annotation overrides label",
      mc: semConv,
      namespace: "default",
      annotations: { "resource.opentelemetry.io/service.version": "annotated-v1" },
      labels: { "app.kubernetes.io/version": "label-v2" },
      containers: myapp,
      want: "service.namespace=default,service.version=annotated-v1,service.instance.id=default.$(POD_NAME).myapp",
    },
    { name: "empty namespace no containers", mc: semConv, namespace: "", want: "" },
    {
      name: "service.version from single container image tag",
      mc: semConv,
      namespace: "default",
      containers: nginx("nginx:1.21"),
      want: "service.namespace=default,service.version=1.21,service.instance.id=default.$(POD_NAME).nginx",
    },
    {
      name: "service.version from single container image digest",
      mc: semConv,
      namespace: "default",
      containers: nginx("nginx@sha256:abc123"),
      want: "service.namespace=default,service.version=sha256:abc123,service.instance.id=default.$(POD_NAME).nginx",
    },
    {
      name: "service.version from single container image tag+digest",
      mc: semConv,
      namespace: "default",
      containers: nginx("nginx:1.21@sha256:abc123"),
      want: "service.namespace=default,service.version=1.21@sha256:abc123,service.instance.id=default.$(POD_NAME).nginx",
    },
    {
      name: "service.version from image with registry port",
      mc: semConv,
      namespace: "default",
      containers: nginx("registry:5000/nginx:1.21"),
      want: "service.namespace=default,service.version=1.21,service.instance.id=default.$(POD_NAME).nginx",
    },
    {
      name: "service.version skipped for multiple containers",
      mc: semConv,
      namespace: "default",
      containers: [
        { name: "nginx", image: "nginx:1.21" },
        { name: "sidecar", image: "sidecar:2.0" },
      ],
      want: "service.namespace=default,service.instance.id=default.$(POD_NAME).nginx",
    },
    {
      name: "service.version skipped for image without tag or digest",
      mc: semConv,
      namespace: "default",
      containers: nginx("nginx"),
      want: "service.namespace=default,service.instance.id=default.$(POD_NAME).nginx",
    },
    {
      name: "service.version label takes priority over image",
      mc: semConv,
      namespace: "default",
      labels: { "app.kubernetes.io/version": "v1.2.3" },
      containers: nginx("nginx:1.21"),
      want: "service.namespace=default,service.version=v1.2.3,service.instance.id=default.$(POD_NAME).nginx",
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const mesh = meshConfigView(row.mc as MeshConfig);
      const got = otelResourceAttributes(
        mesh,
        row.annotations ?? null,
        row.labels ?? null,
        row.namespace,
        (row.containers ?? null) as GoValue,
      );
      assert.equal(got, row.want);
    });
  }
});

describe("serviceAttributes beyond Istio's table", () => {
  it("writes an empty namespace as empty in the instance id (no $(POD_NAMESPACE) fallback)", () => {
    assert.equal(
      serviceAttributes({ annotations: {}, labels: {}, namespace: "", containers: [{ name: "app", image: "app:1" }] }),
      "service.version=1,service.instance.id=.$(POD_NAME).app",
    );
  });
  it("takes the tag after the last colon of the last path component", () => {
    assert.equal(imageVersion("reg/app:a:b"), "b");
  });
});
