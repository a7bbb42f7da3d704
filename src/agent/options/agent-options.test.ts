import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { renderAgentBootstrap } from "../cmd/bootstrap.js";
import { readAgentOptions } from "./agent-options.js";

const root = mkdtempSync(join(tmpdir(), "meshinject-agent-options-"));
after(() => rmSync(root, { recursive: true, force: true }));
const POD = { POD_NAME: "web-1", POD_NAMESPACE: "shop", INSTANCE_IP: "10.0.0.5" };

describe("readAgentOptions", () => {
  it("plans the proxyless gRPC bootstrap and no Envoy under DISABLE_ENVOY", async () => {
    const o = await readAgentOptions({
      args: ["proxy", "sidecar"],
      env: {
        ...POD,
        DISABLE_ENVOY: "true",
        GRPC_XDS_BOOTSTRAP: "/etc/istio/proxy/grpc-bootstrap.json",
        ISTIO_META_GENERATOR: "grpc",
        OUTPUT_CERTS: "/var/lib/istio/data",
      },
      root,
    });
    assert.equal(o.envoy, undefined);
    assert.equal(o.status?.noEnvoy, true);
    assert.equal(o.grpcBootstrap?.path, join(root, "etc/istio/proxy/grpc-bootstrap.json"));
    const b = JSON.parse(o.grpcBootstrap?.text ?? "");
    assert.equal(b.xds_servers[0].server_uri, "unix:///etc/istio/proxy/XDS");
    assert.equal(b.node.id, "sidecar~10.0.0.5~web-1.shop~shop.svc.cluster.local");
    assert.equal(b.node.metadata.GENERATOR, "grpc");
    assert.equal(b.certificate_providers.default.config.certificate_file, "/var/lib/istio/data/cert-chain.pem");
  });

  it("runs Envoy as 1337 only when the agent is root and DNS_PROXY_ADDR ends in :53 (agent.go AgentIsRoot)", async () => {
    const isRoot = process.getuid?.() === 0;
    const on53 = await readAgentOptions({ args: ["proxy"], env: { ...POD, DNS_PROXY_ADDR: "127.0.0.1:53" }, root });
    assert.equal(on53.envoy?.agentIsRoot, isRoot);
    const byDefault = await readAgentOptions({ args: ["proxy"], env: POD, root });
    assert.equal(byDefault.envoy?.agentIsRoot, false);
  });

  it("reads a template file under the root and passes the bootstrap override to Envoy", async () => {
    mkdirSync(join(root, "tmpl"), { recursive: true });
    writeFileSync(join(root, "tmpl/bootstrap.json"), '{"node": {"id": "{{ .nodeID }}", "cluster": "{{ .cluster }}"}}');
    mkdirSync(join(root, "etc/istio/custom-bootstrap"), { recursive: true });
    writeFileSync(
      join(root, "etc/istio/custom-bootstrap/custom_bootstrap.json"),
      "stats_flush_interval: 9s\nhost: $(HOST_IP)\n",
    );
    const cl = {
      args: ["proxy", "router", "--templateFile", "/tmpl/bootstrap.json", "--serviceCluster", "gw"],
      env: {
        ...POD,
        HOST_IP: "10.9.9.9",
        ISTIO_BOOTSTRAP_OVERRIDE: "/etc/istio/custom-bootstrap/custom_bootstrap.json",
      },
      root,
    };
    const o = await readAgentOptions(cl);
    assert.equal(o.envoy?.template.name, "/tmpl/bootstrap.json");
    assert.equal(o.envoy?.configDir, join(root, "etc/istio/proxy"));
    // --serviceCluster only fills an empty serviceCluster; the default config has "istio-proxy".
    assert.deepEqual(JSON.parse(await renderAgentBootstrap(cl)), {
      node: { id: "router~10.0.0.5~web-1.shop~shop.svc.cluster.local", cluster: "istio-proxy.shop" },
    });
    const args = o.envoy?.args ?? [];
    assert.deepEqual(args.slice(args.indexOf("--config-yaml"), args.indexOf("--config-yaml") + 2), [
      "--config-yaml",
      '{"host":"10.9.9.9","stats_flush_interval":"9s"}',
    ]);
  });

  it("refuses a template path that does not exist", async () => {
    await assert.rejects(
      readAgentOptions({ args: ["proxy", "--templateFile", "/missing.json"], env: POD, root }),
      /bootstrap template \/missing.json: no such file/,
    );
  });

  it("reads POD_NAMESPACE and ISTIO_META_CLUSTER_ID once, for every server", async () => {
    const o = await readAgentOptions({
      args: ["proxy"],
      env: { ...POD, ISTIO_META_DNS_CAPTURE: "true", ISTIO_META_CLUSTER_ID: "east" },
      root,
    });
    assert.deepEqual(
      [o.sds.security.workloadNamespace, o.dns?.proxyNamespace, o.sds.security.clusterId, o.xds.clusterId],
      ["shop", "shop", "east", "east"],
    );
  });

  it("gives the XDS proxy an empty ClusterID when ISTIO_META_CLUSTER_ID is unset, PROXY_CONFIG_XDS_AGENT and the keepalive", async () => {
    const plain = await readAgentOptions({ args: ["proxy"], env: POD, root });
    assert.equal(plain.xds.clusterId, "");
    assert.equal(plain.xds.dynamicProxyConfig, false);
    const on = await readAgentOptions({ args: ["proxy"], env: { ...POD, PROXY_CONFIG_XDS_AGENT: "True" }, root });
    assert.equal(on.xds.dynamicProxyConfig, true);
    const bad = await readAgentOptions({ args: ["proxy"], env: { ...POD, PROXY_CONFIG_XDS_AGENT: "yes" }, root });
    assert.equal(bad.xds.dynamicProxyConfig, false);
    assert.ok(bad.warnings.some((w) => w.includes("PROXY_CONFIG_XDS_AGENT")));
    assert.deepEqual(plain.xds.keepalive, { timeMs: 30_000, timeoutMs: 10_000 });
    const ka = await readAgentOptions({
      args: ["proxy"],
      env: { ...POD, GRPC_KEEPALIVE_INTERVAL: "1m", GRPC_KEEPALIVE_TIMEOUT: "2500ms" },
      root,
    });
    assert.deepEqual(ka.xds.keepalive, { timeMs: 60_000, timeoutMs: 2_500 });
  });

  it("gives the status server the options pilot-agent gives it", async () => {
    const o = await readAgentOptions({
      args: ["proxy", "--profiling=false"],
      env: {
        ...POD,
        ISTIO_KUBE_APP_PROBERS: "{}",
        METRICS_LOCALHOST_ACCESS_ONLY: "true",
        REWRITE_PROBE_LEGACY_LOCALHOST_DESTINATION: "1",
        ISTIO_ENABLE_HTTP2_PROBING: "false",
      },
      root,
      statusHost: "127.0.0.1",
    });
    assert.deepEqual(
      [o.status?.host, o.status?.port, o.status?.kubeAppProbers, o.status?.prometheusAnnotations],
      ["127.0.0.1", 15020, "{}", undefined],
    );
    assert.deepEqual(
      [o.status?.enableProfiling, o.status?.metricsLocalhostOnly, o.status?.legacyLocalhostProbeDestination],
      [false, true, true],
    );
    assert.equal(o.status?.http2Probing, false);
    const defaults = await readAgentOptions({ args: ["proxy"], env: POD, root });
    assert.deepEqual(
      [defaults.status?.enableProfiling, defaults.status?.metricsLocalhostOnly, defaults.status?.http2Probing],
      [true, false, true],
    );
  });

  it("warns of a value that does not parse, once, and uses the default", async () => {
    const o = await readAgentOptions({
      args: ["proxy"],
      env: { ...POD, ISTIO_ENABLE_HTTP2_PROBING: "sometimes" },
      root,
    });
    assert.equal(o.status?.http2Probing, true);
    assert.deepEqual(
      o.warnings.filter((w) => w.includes("ISTIO_ENABLE_HTTP2_PROBING")),
      [
        'env ISTIO_ENABLE_HTTP2_PROBING: invalid environment variable value "sometimes", expecting true/false, defaulting to true',
      ],
    );
  });
});
