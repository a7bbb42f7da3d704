import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allMessages, enumDef, goName, jsonName, messageDef, refName } from "./schema.js";

describe("mesh schema", () => {
  it("derives JSON and Go names as protoc does", () => {
    assert.equal(jsonName("hold_application_until_proxy_starts"), "holdApplicationUntilProxyStarts");
    assert.equal(jsonName("mesh_mTLS"), "meshMTLS");
    assert.equal(goName("mesh_mTLS"), "MeshMTLS");
    assert.equal(goName("k8s_sa_jwt_path"), "K8SSaJwtPath");
    assert.equal(goName("enable_64bit_trace_id"), "Enable_64BitTraceId");
    assert.equal(goName("preserve_http1_header_case"), "PreserveHttp1HeaderCase");
  });

  it("resolves every referenced message and enum", () => {
    for (const m of allMessages()) {
      for (const f of m.fields) {
        const msg = refName(f.type, "message");
        if (msg !== undefined) assert.doesNotThrow(() => messageDef(msg), `${m.name}.${f.json}`);
        const en = refName(f.type, "enum");
        if (en !== undefined) assert.doesNotThrow(() => enumDef(en), `${m.name}.${f.json}`);
      }
    }
  });

  it("keeps ProxyConfig in declaration order", () => {
    const names = messageDef("ProxyConfig").fields.map((f) => f.json);
    assert.deepEqual(names.slice(0, 6), [
      "configPath",
      "binaryPath",
      "serviceCluster",
      "tracingServiceName",
      "drainDuration",
      "discoveryAddress",
    ]);
    assert.ok(names.indexOf("concurrency") < names.indexOf("proxyMetadata"));
    assert.equal(messageDef("ProxyConfig").goType, "*v1alpha1.ProxyConfig");
    assert.equal(enumDef("ProxyConfig.InboundInterceptionMode").goType, "v1alpha1.ProxyConfig_InboundInterceptionMode");
  });
});
