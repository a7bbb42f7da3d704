import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addressJSON, BootstrapOptionError, keepaliveJSON, metadataJSON } from "./converters.js";
import { formatDownwardAPI, parseDownwardAPI } from "./downward-api.js";
import { MetadataTypeError } from "./metadata-fields.js";
import { getNodeMetaData } from "./node-metadata.js";
import { serviceCluster, templateParams } from "./template-params.js";

const base = {
  instanceIPs: ["10.0.0.5", "10.0.0.5"],
  id: "sidecar~10.0.0.5~web-1.shop~shop.svc.cluster.local",
  binaryVersion: "1.28.0",
};

describe("getNodeMetaData", () => {
  it("builds typed and raw metadata from ISTIO_META_*, ISTIO_METAJSON_* and the pod files", () => {
    const node = getNodeMetaData({
      ...base,
      envs: [
        "ISTIO_META_CLUSTER_ID=east",
        "ISTIO_META_DNS_CAPTURE=true",
        "ISTIO_META_custom=x",
        'ISTIO_METAJSON_LABELS={"app":"web","topology.istio.io/locality":"eu.west-1"}',
        "POD_NAMESPACE=shop",
        "POD_NAME=web-1",
      ],
      proxyConfig: { proxyMetadata: { ISTIO_META_FROM_CONFIG: "y", OTHER: "z" } },
      annotationsFile: formatDownwardAPI({ "a/b": 'say "hi"\n' }),
      labelsFile: formatDownwardAPI({ app: "web", "pod-template-hash": "abc", version: "v1" }),
    });
    const m = node.metadata;
    assert.equal(m.CLUSTER_ID, "east");
    assert.equal(m.DNS_CAPTURE, true);
    assert.deepEqual(m.INSTANCE_IPS, ["10.0.0.5"]);
    assert.deepEqual(m.ANNOTATIONS, { "a/b": 'say "hi"\n' });
    assert.equal((m.LABELS as Record<string, string>)["pod-template-hash"], undefined);
    assert.equal((m.LABELS as Record<string, string>).version, "v1");
    assert.deepEqual(node.locality, { region: "eu", zone: "west-1" });
    assert.equal(node.raw.custom, "x");
    assert.equal(node.raw.FROM_CONFIG, "y");
    assert.equal(node.raw.OTHER, undefined);
    const json = JSON.parse(metadataJSON(m, node.raw));
    assert.equal(json.DNS_CAPTURE, "true");
    assert.equal(json.INSTANCE_IPS, "10.0.0.5");
    assert.equal(json.METADATA_DISCOVERY, "false");
    assert.equal(json.custom, "x");
    assert.equal(serviceCluster(m), "web.shop");
  });

  it("fails as Go's decoder does when a raw value does not fit its typed field", () => {
    assert.throws(() => getNodeMetaData({ ...base, envs: ["ISTIO_META_ENVOY_STATUS_PORT=15021"] }), MetadataTypeError);
    assert.throws(() => getNodeMetaData({ ...base, envs: ["ISTIO_META_DNS_CAPTURE=maybe"] }), /ParseBool/);
  });

  it("warns about, and skips, JSON that does not parse", () => {
    const node = getNodeMetaData({ ...base, envs: ["ISTIO_METAJSON_ANNOTATIONS={"] });
    assert.match(node.warnings.join("\n"), /ANNOTATIONS .* failed json unmarshal/);
  });
});

describe("converters", () => {
  it("split addresses as Go's net.SplitHostPort", () => {
    assert.equal(addressJSON("zipkin", "[::1]:80"), '{"address": "::1", "port_value": 80}');
    assert.equal(addressJSON("zipkin", "fake:"), '{"address": "fake", "port_value": }');
    const refused = (addr: string, why: string) =>
      assert.throws(
        () => addressJSON("zipkin", addr),
        (e: Error) =>
          e instanceof BootstrapOptionError &&
          e.message === `unable to parse zipkin address ${JSON.stringify(addr)}: address ${addr}: ${why}`,
      );
    refused("::1:80", "too many colons in address");
    refused("host", "missing port in address");
    refused("a:[", "unexpected '[' in address");
    refused("a]:80", "unexpected ']' in address");
    assert.equal(addressJSON("zipkin", "$(HOST_IP):9411", "10.1.1.1"), '{"address": "10.1.1.1", "port_value": 9411}');
  });

  it("write keepalives in whole seconds", () => {
    assert.equal(
      keepaliveJSON({ probes: 3, time: "7.5s", interval: "0.5s" }),
      '{"tcp_keepalive":{"keepalive_probes":{"value":3},"keepalive_time":{"value":7}}}',
    );
  });

  it("read downward-API files as Istio does", () => {
    assert.deepEqual(parseDownwardAPI('a="1"\nnot a line\nb="x=y"'), { a: "1", b: "x=y" });
    assert.throws(() => parseDownwardAPI("a=unquoted"), /failed to unquote/);
  });
});

describe("templateParams", () => {
  it("chooses addresses by IP family and the xDS type by feature", () => {
    const v6 = templateParams({ node: getNodeMetaData({ ...base, envs: [], instanceIPs: ["fd00::5"] }) });
    assert.equal(v6.localhost, "::1");
    assert.equal(v6.dns_lookup_family, "V6_ONLY");
    const grpc = templateParams({
      node: getNodeMetaData({ ...base, envs: ["ISTIO_META_ENABLE_HBONE=true"] }),
      features: { deltaXds: false, dualStack: false, statusPortProxyProtocol: false, stripFragment: true },
    });
    assert.equal(grpc.xds_type, "GRPC");
    assert.equal(grpc.metadata_discovery, false, "metadata discovery needs delta xDS");
  });
});
