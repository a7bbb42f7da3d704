import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { injectYaml, loadInjectorConfig } from "../../index.js";
import { envoyBootstrapPreview } from "./envoy-preview.js";

const curl = readFileSync(new URL("../../../examples/curl.yaml", import.meta.url), "utf8");

describe("envoyBootstrapPreview", () => {
  it("renders, for each injected pod, the bootstrap its agent would write, as JSON", () => {
    const out = envoyBootstrapPreview(injectYaml(loadInjectorConfig(), curl), {
      source: "curl.yaml",
      namespace: "shop",
      podIP: "10.1.2.3",
    });
    const [header, ...rest] = out.split("\n");
    assert.equal(header, "# Deployment shop/curl");
    const json = JSON.parse(rest.filter((l) => !l.startsWith("#")).join("\n")) as {
      node: { id: string; cluster: string; metadata: Record<string, unknown> };
      admin: unknown;
      static_resources: unknown;
    };
    assert.equal(json.node.id, "sidecar~10.1.2.3~curl-7d4c9b-x2x7z.shop~shop.svc.cluster.local");
    assert.equal(json.node.cluster, "curl.shop");
    assert.equal(json.node.metadata.NAMESPACE, "shop");
    assert.equal(json.node.metadata.INSTANCE_IPS, "10.1.2.3");
    assert.ok(json.admin !== undefined && json.static_resources !== undefined);
  });

  it("says when the agent would not start, as `meshinject agent` would", () => {
    const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: istio-proxy, image: proxyv2, args: [proxy, sidecar], env: [{name: PROXY_CONFIG, value: "{"}]}\n`;
    const out = envoyBootstrapPreview(pod, { source: "p.yaml", namespace: "default", podIP: "10.0.0.1" });
    assert.match(
      out,
      /^# Pod default\/p\n# the agent would not start: pilot-agent cannot read the PROXY_CONFIG environment variable: .*\n$/,
    );
  });

  it("says which workloads are not injected", () => {
    const out = envoyBootstrapPreview(curl, { source: "curl.yaml", namespace: "default", podIP: "10.0.0.1" });
    assert.match(out, /^# Deployment default\/curl\n# .*istio-proxy/m);
    assert.doesNotMatch(out, /"node"/);
  });
});
