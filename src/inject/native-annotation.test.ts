// Istio pkg/kube/inject/inject_test.go TestNativeSidecarAnnotationOverride: the pod annotation
// sidecar.istio.io/nativeSidecar wins over the native-sidecar setting, and a user's istio-proxy in
// containers moves with the proxy into initContainers (RunTemplate), with Istio's template.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inject, loadInjectorConfig } from "../index.js";

const TEMPLATE = `
{{- $nativeSidecar := ne (index .ObjectMeta.Annotations \`sidecar.istio.io/nativeSidecar\` | default (printf "%t" .NativeSidecars)) "false" }}
{{- if $nativeSidecar }}
spec:
  initContainers:
  - name: istio-proxy
    image: proxy
{{- else }}
spec:
  containers:
  - name: istio-proxy
    image: proxy
{{- end }}
`;

describe("Istio's TestNativeSidecarAnnotationOverride table", () => {
  const injector = loadInjectorConfig({
    config: JSON.stringify({ policy: "enabled", templates: { sidecar: TEMPLATE } }),
  });
  const rows: Array<[string, Record<string, string>, boolean, "initContainers" | "containers"]> = [
    ["global flag enabled, no annotation", {}, true, "initContainers"],
    ["global flag enabled, annotation disabled", { "sidecar.istio.io/nativeSidecar": "false" }, true, "containers"],
    ["global flag enabled, annotation enabled", { "sidecar.istio.io/nativeSidecar": "true" }, true, "initContainers"],
    ["global flag disabled, annotation enabled", { "sidecar.istio.io/nativeSidecar": "true" }, false, "initContainers"],
    ["global flag disabled, no annotation", {}, false, "containers"],
    ["global flag disabled, annotation disabled", { "sidecar.istio.io/nativeSidecar": "false" }, false, "containers"],
  ];
  for (const [name, annotations, nativeSidecars, expect] of rows) {
    it(name, () => {
      const pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p", namespace: "ns", annotations },
        spec: { containers: [{ name: "app" }, { name: "istio-proxy" }] },
      };
      const out = inject(injector, pod, { nativeSidecars }) as unknown as {
        spec: Record<string, Array<{ name: string }> | undefined>;
      };
      const names = (l: Array<{ name: string }> | undefined) => (l ?? []).map((c) => c.name);
      const other = expect === "initContainers" ? "containers" : "initContainers";
      assert.ok(names(out.spec[expect]).includes("istio-proxy"), `istio-proxy in ${expect}`);
      assert.ok(
        !names((out.spec as Record<string, Array<{ name: string }>>)[other]).includes("istio-proxy"),
        `not in ${other}`,
      );
    });
  }
});
