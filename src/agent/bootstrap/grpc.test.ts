import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { grpcBootstrap, grpcBootstrapText } from "./grpc.js";
import { getNodeMetaData } from "./node-metadata.js";

const node = getNodeMetaData({
  instanceIPs: ["10.0.0.5"],
  id: "sidecar~10.0.0.5~web-1.shop~shop.svc.cluster.local",
  binaryVersion: "1.28.0",
  envs: ["POD_NAMESPACE=shop", "POD_NAME=web-1", "ISTIO_META_GENERATOR=grpc"],
});

function providers(certDir: string): unknown {
  return grpcBootstrap({ node, xdsUdsPath: "etc/istio/proxy/XDS", discoveryAddress: "", certDir })
    .certificate_providers;
}

describe("grpcBootstrap certificate_providers (grpcxds.GenerateBootstrap)", () => {
  it("one file_watcher instance named default over OUTPUT_CERTS, refreshed every 15 minutes, as Go writes it", () => {
    const value = grpcBootstrap({
      node,
      xdsUdsPath: "etc/istio/proxy/XDS",
      discoveryAddress: "",
      certDir: "/var/lib/istio/data",
    });
    // FileWatcherCertProviderConfig's fields in declaration order; the refresh interval is a
    // durationpb.New(15 * time.Minute) through protojson, a JSON string.
    const text = grpcBootstrapText(value);
    const block = text.slice(text.indexOf('  "certificate_providers"'), text.indexOf('  "server_listener'));
    assert.equal(
      block,
      [
        '  "certificate_providers": {',
        '    "default": {',
        '      "plugin_name": "file_watcher",',
        '      "config": {',
        '        "certificate_file": "/var/lib/istio/data/cert-chain.pem",',
        '        "private_key_file": "/var/lib/istio/data/key.pem",',
        '        "ca_certificate_file": "/var/lib/istio/data/root-cert.pem",',
        '        "refresh_interval": "900s"',
        "      }",
        "    }",
        "  },",
        "",
      ].join("\n"),
    );
    assert.deepEqual(Object.keys(value), [
      "xds_servers",
      "node",
      "certificate_providers",
      "server_listener_resource_name_template",
    ]);
  });

  it("joins the file names with Go's path.Join: a trailing slash or ./ in OUTPUT_CERTS is cleaned away", () => {
    const files = (dir: string) => (providers(dir) as { default: { config: Record<string, string> } }).default.config;
    assert.equal(files("/var/lib/istio/data/").certificate_file, "/var/lib/istio/data/cert-chain.pem");
    assert.equal(files("./etc/certs").private_key_file, "etc/certs/key.pem");
    assert.equal(files("/a//b/../c").ca_certificate_file, "/a/c/root-cert.pem");
  });

  it("no certificate provider without OUTPUT_CERTS", () => {
    assert.equal(providers(""), undefined);
  });
});
