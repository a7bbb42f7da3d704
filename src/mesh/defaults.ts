/**
 * Istio's defaults (pkg/config/mesh/mesh.go): DefaultProxyConfig and DefaultMeshConfig, in
 * protobuf-JSON form. Each call returns a fresh object the caller may change.
 */
import type { MeshConfig, ProxyConfig } from "./types.js";

/** mesh.DefaultProxyConfig(). */
export function defaultProxyConfig(): ProxyConfig {
  return {
    configPath: "./etc/istio/proxy",
    binaryPath: "/usr/local/bin/envoy",
    serviceCluster: "istio-proxy",
    drainDuration: "45s",
    discoveryAddress: "istiod.istio-system.svc:15012",
    proxyAdminPort: 15000,
    controlPlaneAuthPolicy: "MUTUAL_TLS",
    statNameLength: 189,
    statusPort: 15020,
    terminationDrainDuration: "5s",
  };
}

/** mesh.DefaultMeshConfig(), whose defaultConfig is DefaultProxyConfig(). */
export function defaultMeshConfig(): MeshConfig {
  return {
    proxyListenPort: 15001,
    proxyInboundListenPort: 15006,
    connectTimeout: "10s",
    protocolDetectionTimeout: "0s",
    ingressClass: "istio",
    ingressService: "istio-ingressgateway",
    ingressControllerMode: "STRICT",
    enableTracing: true,
    accessLogFile: "",
    accessLogFormat: "",
    accessLogEncoding: "TEXT",
    enableEnvoyAccessLogService: false,
    defaultConfig: defaultProxyConfig(),
    outboundTrafficPolicy: { mode: "ALLOW_ANY" },
    inboundTrafficPolicy: { mode: "PASSTHROUGH" },
    enableAutoMtls: true,
    trustDomain: "cluster.local",
    trustDomainAliases: [],
    defaultServiceExportTo: ["*"],
    defaultVirtualServiceExportTo: ["*"],
    defaultDestinationRuleExportTo: ["*"],
    rootNamespace: "istio-system",
    localityLbSetting: { enabled: true },
    dnsRefreshRate: "60s",
    certificates: [],
    enablePrometheusMerge: true,
    extensionProviders: [
      { name: "prometheus", prometheus: {} },
      { name: "stackdriver", stackdriver: {} },
      { name: "envoy", envoyFileAccessLog: { path: "/dev/stdout" } },
    ],
    defaultProviders: {},
  };
}
