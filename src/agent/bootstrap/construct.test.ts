import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { constructProxyConfig } from "./construct.js";

const ANNOTATION = "proxy.istio.io/config";

describe("constructProxyConfig", () => {
  it("starts from Istio's defaults", () => {
    const { proxyConfig, concurrencySource } = constructProxyConfig({});
    assert.equal(proxyConfig.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.equal(proxyConfig.statusPort, 15020);
    assert.equal(proxyConfig.concurrency, undefined);
    assert.equal(concurrencySource, "unset");
  });

  it("applies mesh file < PROXY_CONFIG < annotation", () => {
    const meshConfigFile =
      "defaultConfig:\n  drainDuration: 10s\n  statNameLength: 100\n  proxyMetadata: {A: file, B: file}\n";
    const proxyConfigEnv = '{"drainDuration":"20s","statNameLength":150,"proxyMetadata":{"B":"env","C":"env"}}';
    const annotations = { [ANNOTATION]: "drainDuration: 30s\nproxyMetadata: {C: annotation}" };
    const pc = constructProxyConfig({ meshConfigFile, proxyConfigEnv, annotations }).proxyConfig;
    assert.equal(pc.drainDuration, "30s");
    assert.equal(pc.statNameLength, 150);
    assert.deepEqual(pc.proxyMetadata, { A: "file", B: "env", C: "annotation" });
  });

  it("takes concurrency from the CPU limit only when the config leaves it unset", () => {
    const byLimit = constructProxyConfig({ cpuLimit: 4n });
    assert.equal(byLimit.proxyConfig.concurrency, 4);
    assert.equal(byLimit.concurrencySource, "cpu limit");
    const explicitZero = constructProxyConfig({ cpuLimit: 4n, proxyConfigEnv: '{"concurrency":0}' });
    assert.equal(explicitZero.proxyConfig.concurrency, 0);
    assert.equal(explicitZero.concurrencySource, "proxy config");
    const annotated = constructProxyConfig({ cpuLimit: 4n, annotations: { [ANNOTATION]: "{concurrency: 3}" } });
    assert.equal(annotated.proxyConfig.concurrency, 3);
  });

  it("lets a non-zero --concurrency win over everything", () => {
    const r = constructProxyConfig({
      cpuLimit: 4n,
      concurrencyFlag: 6n,
      annotations: { [ANNOTATION]: "{concurrency: 3}" },
    });
    assert.equal(r.proxyConfig.concurrency, 6);
    assert.equal(r.concurrencySource, "--concurrency flag");
  });

  it("fills an empty serviceCluster from --serviceCluster, not a tracing service name", () => {
    const filled = constructProxyConfig({ proxyConfigEnv: '{"serviceCluster":""}', serviceClusterFlag: "web.shop" });
    assert.equal(filled.proxyConfig.serviceCluster, "web.shop");
    const tracing = constructProxyConfig({
      proxyConfigEnv: '{"tracingServiceName":"CANONICAL_NAME_ONLY"}',
      serviceClusterFlag: "web.shop",
    });
    assert.equal(tracing.proxyConfig.serviceCluster, undefined);
  });

  it("lets the discoveryAddress and status port annotations override last", () => {
    const r = constructProxyConfig({
      proxyConfigEnv: '{"discoveryAddress":"env:15012","statusPort":15030}',
      annotations: {
        [ANNOTATION]: "{discoveryAddress: 'annotation:15012', statusPort: 15040}",
        "sidecar.istio.io/discoveryAddress": "istiod-canary.istio-system.svc:15012",
        "status.sidecar.istio.io/port": "15050",
      },
    });
    assert.equal(r.proxyConfig.discoveryAddress, "istiod-canary.istio-system.svc:15012");
    assert.equal(r.proxyConfig.statusPort, 15050);
    // A port that is not a number is 0 (the status server is off), as strconv.Atoi's result.
    const bad = constructProxyConfig({ annotations: { "status.sidecar.istio.io/port": "http" } });
    assert.equal(bad.proxyConfig.statusPort, 0);
    assert.match(bad.warnings.join("\n"), /invalid annotation status\.sidecar\.istio\.io\/port=http/);
    // pilot-agent logs Go's error text; an out-of-range port keeps Atoi's clamped value (then int32).
    assert.ok(
      bad.warnings.includes(
        'invalid annotation status.sidecar.istio.io/port=http: strconv.Atoi: parsing "http": invalid syntax',
      ),
    );
    const huge = constructProxyConfig({ annotations: { "status.sidecar.istio.io/port": "9223372036854775808" } });
    assert.equal(huge.proxyConfig.statusPort, -1);
    assert.match(huge.warnings.join("\n"), /: strconv\.Atoi: parsing "9223372036854775808": value out of range/);
  });

  it("refuses a config that fails validation or does not parse, naming the layer", () => {
    assert.throws(
      () => constructProxyConfig({ proxyConfigEnv: '{"drainDuration":"0s"}' }),
      /pilot-agent rejects the proxy config: .*drain/,
    );
    assert.throws(
      () => constructProxyConfig({ proxyConfigEnv: "{}", annotations: { [ANNOTATION]: "[1, 2]" } }),
      /cannot read the proxy\.istio\.io\/config annotation/,
    );
    assert.throws(() => constructProxyConfig({ proxyConfigEnv: "{not yaml" }), /PROXY_CONFIG/);
  });
});
