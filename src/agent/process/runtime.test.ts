import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { prepareAgent } from "./runtime.js";

const root = mkdtempSync(join(tmpdir(), "meshinject-runtime-"));
after(() => rmSync(root, { recursive: true, force: true }));
const POD = { POD_NAME: "web-1", POD_NAMESPACE: "shop", INSTANCE_IP: "10.0.0.5" };
const quiet = () => {};

describe("prepareAgent", () => {
  it("writes the proxyless gRPC bootstrap and runs without Envoy under DISABLE_ENVOY", async () => {
    const rt = await prepareAgent({
      args: ["proxy", "sidecar"],
      env: {
        ...POD,
        DISABLE_ENVOY: "true",
        GRPC_XDS_BOOTSTRAP: "/etc/istio/proxy/grpc-bootstrap.json",
        ISTIO_META_GENERATOR: "grpc",
        OUTPUT_CERTS: "/var/lib/istio/data",
      },
      root,
      writeLog: quiet,
    });
    assert.equal(rt.envoy, undefined);
    assert.deepEqual(
      rt.components.map((c) => c.name),
      ["status server"],
    );
    const b = JSON.parse(readFileSync(join(root, "etc/istio/proxy/grpc-bootstrap.json"), "utf8"));
    assert.equal(b.xds_servers[0].server_uri, "unix:///etc/istio/proxy/XDS");
    assert.equal(b.node.id, "sidecar~10.0.0.5~web-1.shop~shop.svc.cluster.local");
    assert.equal(b.node.metadata.GENERATOR, "grpc");
    assert.equal(b.certificate_providers.default.config.certificate_file, "/var/lib/istio/data/cert-chain.pem");
  });

  it("renders a template file under the root and passes the bootstrap override to Envoy", async () => {
    mkdirSync(join(root, "tmpl"), { recursive: true });
    writeFileSync(join(root, "tmpl/bootstrap.json"), '{"node": {"id": "{{ .nodeID }}", "cluster": "{{ .cluster }}"}}');
    mkdirSync(join(root, "etc/istio/custom-bootstrap"), { recursive: true });
    writeFileSync(
      join(root, "etc/istio/custom-bootstrap/custom_bootstrap.json"),
      "stats_flush_interval: 9s\nhost: $(HOST_IP)\n",
    );
    const rt = await prepareAgent({
      args: ["proxy", "router", "--templateFile", "/tmpl/bootstrap.json", "--serviceCluster", "gw"],
      env: {
        ...POD,
        HOST_IP: "10.9.9.9",
        ISTIO_BOOTSTRAP_OVERRIDE: "/etc/istio/custom-bootstrap/custom_bootstrap.json",
      },
      root,
      writeLog: quiet,
    });
    const written = JSON.parse(readFileSync(rt.bootstrapPath as string, "utf8"));
    // --serviceCluster only fills an empty serviceCluster; the default config has "istio-proxy".
    assert.deepEqual(written, {
      node: { id: "router~10.0.0.5~web-1.shop~shop.svc.cluster.local", cluster: "istio-proxy.shop" },
    });
    const args = rt.envoy?.args ?? [];
    assert.deepEqual(args.slice(args.indexOf("--config-yaml"), args.indexOf("--config-yaml") + 2), [
      "--config-yaml",
      '{"host":"10.9.9.9","stats_flush_interval":"9s"}',
    ]);
    assert.equal(rt.bootstrapPath, join(root, "etc/istio/proxy/envoy-rev.json"));
    assert.deepEqual(
      rt.components.map((c) => c.name),
      ["status server", "envoy"],
    );
  });

  it("refuses a template path that does not exist", async () => {
    await assert.rejects(
      prepareAgent({ args: ["proxy", "--templateFile", "/missing.json"], env: POD, root, writeLog: quiet }),
      /bootstrap template \/missing.json: no such file/,
    );
  });
});
