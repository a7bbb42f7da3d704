import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyProxyConfig } from "./apply.js";
import { cleanProxyConfig, proxyConfigJSON } from "./clean.js";
import { defaultProxyConfig } from "./defaults.js";
import { decodeMessage } from "./from-json.js";
import { protoToJSON } from "./to-json.js";

describe("protoToJSON / cleanProxyConfig", () => {
  it("writes declaration order, omits zero scalars, keeps wrappers and empty messages", () => {
    const pc = applyProxyConfig(
      "proxyMetadata: {FOO: bar}\nconcurrency: 0\ndiscoveryAddress: foo:123\ntracing: {}\nstatNameLength: 0",
      defaultProxyConfig(),
    );
    assert.equal(
      proxyConfigJSON(pc),
      '{"discoveryAddress":"foo:123","concurrency":0,"tracing":{},"proxyMetadata":{"FOO":"bar"}}',
    );
    assert.equal(proxyConfigJSON(defaultProxyConfig()), "{}");
  });

  it("drops a NONE auth policy as Istio does (zero after cleaning)", () => {
    const pc = applyProxyConfig("controlPlaneAuthPolicy: NONE", defaultProxyConfig());
    assert.equal(proxyConfigJSON(pc), "{}");
    assert.equal(cleanProxyConfig(pc).controlPlaneAuthPolicy, "NONE");
  });

  it("escapes like encoding/json, sorts map keys, quotes int64 and writes unknown enum numbers", () => {
    const pc = decodeMessage("ProxyConfig", {
      proxyMetadata: { b: "<&>", a: "x" },
      controlPlaneAuthPolicy: 7,
      tracing: { stackdriver: { maxNumberOfAttributes: 3 } },
    });
    assert.equal(
      protoToJSON(pc, "ProxyConfig"),
      '{"controlPlaneAuthPolicy":7,"tracing":{"stackdriver":{"maxNumberOfAttributes":"3"}},"proxyMetadata":{"a":"x","b":"\\u003c\\u0026\\u003e"}}',
    );
  });

  it("writes a set oneof member even when empty", () => {
    assert.equal(protoToJSON({ serviceCluster: "" }, "ProxyConfig"), '{"serviceCluster":""}');
  });
});
