import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse, sprigFuncs } from "../template/index.js";
import { applyProxyConfig } from "./apply.js";
import { defaultMeshConfig, defaultProxyConfig } from "./defaults.js";
import type { ProxyConfig } from "./types.js";
import { meshConfigView, proxyConfigView, viewedProxyConfig } from "./view.js";

function run(text: string, pc: ProxyConfig = defaultProxyConfig()): string {
  const data = { ProxyConfig: proxyConfigView(pc), MeshConfig: meshConfigView(defaultMeshConfig()) };
  return parse("t", text, { funcs: sprigFuncs }).execute(data);
}

describe("Go views of ProxyConfig / MeshConfig", () => {
  it("answers wrapper GetValue on nil and set wrappers", () => {
    assert.equal(run("{{ .ProxyConfig.HoldApplicationUntilProxyStarts.GetValue }}"), "false");
    const pc = applyProxyConfig("holdApplicationUntilProxyStarts: true\nconcurrency: 0", defaultProxyConfig());
    assert.equal(run("{{ .ProxyConfig.HoldApplicationUntilProxyStarts.GetValue }}", pc), "true");
    assert.equal(
      run("{{ .ProxyConfig.GetConcurrency.GetValue }} {{ printf `%T` .ProxyConfig.Concurrency }}", pc),
      "0 *wrapperspb.Int32Value",
    );
    assert.equal(run("{{ or .ProxyConfig.HoldApplicationUntilProxyStarts.GetValue false }}"), "false");
  });

  it("prints enums by name and has String", () => {
    assert.equal(
      run("{{ .ProxyConfig.InterceptionMode }} {{ .ProxyConfig.InterceptionMode.String }}"),
      "REDIRECT REDIRECT",
    );
    const pc = applyProxyConfig("interceptionMode: TPROXY", defaultProxyConfig());
    assert.equal(run("{{ printf `%v` .ProxyConfig.InterceptionMode }}", pc), "TPROXY");
    assert.equal(run("{{ .ProxyConfig.ControlPlaneAuthPolicy }}"), "MUTUAL_TLS");
    assert.equal(
      run("{{ .MeshConfig.OutboundTrafficPolicy.Mode }} {{ .MeshConfig.InboundTrafficPolicy.Mode }}"),
      "ALLOW_ANY PASSTHROUGH",
    );
  });

  it("shows proxyMetadata as a map[string]string, nil when unset", () => {
    assert.equal(
      run("{{ if .ProxyConfig.ProxyMetadata }}y{{ else }}n{{ end }}[{{ index .ProxyConfig.ProxyMetadata `X` }}]"),
      "n[]",
    );
    const pc = applyProxyConfig("proxyMetadata: {B: '2', A: '1'}", defaultProxyConfig());
    assert.equal(run("{{ range $k, $v := .ProxyConfig.ProxyMetadata }}{{ $k }}={{ $v }};{{ end }}", pc), "A=1;B=2;");
    assert.equal(run("{{ printf `%T` .ProxyConfig.ProxyMetadata }}", pc), "map[string]string");
  });

  it("has getters that work through nil messages", () => {
    assert.equal(run("[{{ .ProxyConfig.GetTracing.GetTlsSettings.GetCaCertificates }}]"), "[]");
    assert.equal(run("{{ if .ProxyConfig.GetTracing.GetTlsSettings }}y{{ else }}n{{ end }}"), "n");
    const pc = applyProxyConfig("tracing: {tlsSettings: {caCertificates: /etc/ca/root.pem}}", defaultProxyConfig());
    assert.equal(run("{{ .ProxyConfig.GetTracing.GetTlsSettings.GetCaCertificates }}", pc), "/etc/ca/root.pem");
    assert.equal(run("{{ printf `%T` .ProxyConfig.GetTracing }}"), "*v1alpha1.Tracing");
    assert.throws(
      () => run("{{ .ProxyConfig.Tracing.Sampling }}"),
      /nil pointer evaluating \*v1alpha1.Tracing.Sampling/,
    );
  });

  it("types ints as int32 and reads MeshConfig fields", () => {
    assert.equal(run("{{ printf `%T %v` .ProxyConfig.StatusPort .ProxyConfig.StatusPort }}"), "int32 15020");
    assert.equal(run("{{ .MeshConfig.ProxyInboundListenPort | default `15006` | quote }}"), '"15006"');
    assert.equal(
      run("{{ .MeshConfig.DefaultConfig.DiscoveryAddress }} {{ .MeshConfig.TrustDomain }}"),
      "istiod.istio-system.svc:15012 cluster.local",
    );
    assert.equal(
      run("{{ .MeshConfig.EnableAutoMtls.GetValue }} {{ .MeshConfig.GetDefaultConfig.GetStatusPort }}"),
      "true 15020",
    );
  });

  it("shows durations and oneofs", () => {
    assert.equal(
      run("{{ .ProxyConfig.DrainDuration.AsDuration }} {{ .ProxyConfig.GetDrainDuration.GetSeconds }}"),
      "45s 45",
    );
    assert.equal(
      run("{{ .ProxyConfig.GetServiceCluster }} {{ printf `%T` .ProxyConfig.ClusterName }}"),
      "istio-proxy *v1alpha1.ProxyConfig_ServiceCluster",
    );
    const pc = applyProxyConfig("tracing: {zipkin: {address: z:9411}}", defaultProxyConfig());
    assert.equal(
      run("{{ .ProxyConfig.GetTracing.GetZipkin.GetAddress }} {{ printf `%T` .ProxyConfig.Tracing.Tracer }}", pc),
      "z:9411 *v1alpha1.Tracing_Zipkin_",
    );
  });

  it("gives the viewed ProxyConfig back", () => {
    const pc = defaultProxyConfig();
    assert.equal(viewedProxyConfig(proxyConfigView(pc)), pc);
    assert.equal(viewedProxyConfig(meshConfigView(defaultMeshConfig())), undefined);
  });
});
