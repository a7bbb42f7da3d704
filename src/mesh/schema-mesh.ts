/**
 * istio.mesh.v1alpha1 config.proto (MeshConfig and its nested messages) as data, fields in declaration
 * order. Extension providers keep their name and oneof structure; each provider's body is kept raw.
 * Messages of other packages that we never look into (LocalityLoadBalancerSetting, HTTPRetry,
 * TcpKeepalive) are raw too. Source: istio/api mesh/v1alpha1/config.proto (generated descriptor).
 */
import { type EnumDef, enumeration, field as f, type MessageDef, message } from "./schema-types.js";

const BOOL = "wrapper:BoolValue" as const;
const STRINGS = { repeated: true } as const;

const PROVIDERS: ReadonlyArray<readonly [string, string]> = [
  ["envoy_ext_authz_http", "EnvoyExternalAuthorizationHttpProvider"],
  ["envoy_ext_authz_grpc", "EnvoyExternalAuthorizationGrpcProvider"],
  ["zipkin", "ZipkinTracingProvider"],
  ["lightstep", "LightstepTracingProvider"],
  ["datadog", "DatadogTracingProvider"],
  ["stackdriver", "StackdriverProvider"],
  ["opencensus", "OpenCensusAgentTracingProvider"],
  ["skywalking", "SkyWalkingTracingProvider"],
  ["opentelemetry", "OpenTelemetryTracingProvider"],
  ["prometheus", "PrometheusMetricsProvider"],
  ["envoy_file_access_log", "EnvoyFileAccessLogProvider"],
  ["envoy_http_als", "EnvoyHttpGrpcV3LogProvider"],
  ["envoy_tcp_als", "EnvoyTcpGrpcV3LogProvider"],
  ["envoy_otel_als", "EnvoyOpenTelemetryLogProvider"],
  ["sds", "SDSProvider"],
];

export const meshMessages: readonly MessageDef[] = [
  message("MeshConfig", [
    f("proxy_listen_port", "int32"),
    f("proxy_inbound_listen_port", "int32"),
    f("proxy_http_port", "int32"),
    f("connect_timeout", "duration"),
    f("protocol_detection_timeout", "duration"),
    f("tcp_keepalive", "raw", { rawGoType: "*v1alpha3.ConnectionPoolSettings_TCPSettings_TcpKeepalive" }),
    f("ingress_class", "string"),
    f("ingress_service", "string"),
    f("ingress_controller_mode", "enum:MeshConfig.IngressControllerMode"),
    f("ingress_selector", "string"),
    f("enable_tracing", "bool"),
    f("access_log_file", "string"),
    f("access_log_format", "string"),
    f("access_log_encoding", "enum:MeshConfig.AccessLogEncoding"),
    f("enable_envoy_access_log_service", "bool"),
    f("disable_envoy_listener_log", "bool"),
    f("default_config", "message:ProxyConfig"),
    f("outbound_traffic_policy", "message:MeshConfig.OutboundTrafficPolicy"),
    f("inbound_traffic_policy", "message:MeshConfig.InboundTrafficPolicy"),
    f("config_sources", "message:ConfigSource", STRINGS),
    f("enable_auto_mtls", BOOL),
    f("trust_domain", "string"),
    f("trust_domain_aliases", "string", STRINGS),
    f("ca_certificates", "message:MeshConfig.CertificateData", STRINGS),
    f("default_service_export_to", "string", STRINGS),
    f("default_virtual_service_export_to", "string", STRINGS),
    f("default_destination_rule_export_to", "string", STRINGS),
    f("root_namespace", "string"),
    f("locality_lb_setting", "raw", { rawGoType: "*v1alpha3.LocalityLoadBalancerSetting" }),
    // Newer API addition (zone aware load balancing), next to its locality sibling.
    f("zone_aware_lb_setting", "raw", { rawGoType: "*v1alpha3.ZoneAwareLoadBalancerSetting" }),
    f("dns_refresh_rate", "duration"),
    f("h2_upgrade_policy", "enum:MeshConfig.H2UpgradePolicy"),
    f("inbound_cluster_stat_name", "string"),
    f("outbound_cluster_stat_name", "string"),
    f("certificates", "message:Certificate", STRINGS),
    f("service_settings", "message:MeshConfig.ServiceSettings", STRINGS),
    f("service_scope_configs", "message:MeshConfig.ServiceScopeConfigs", STRINGS),
    f("enable_prometheus_merge", BOOL),
    f("verify_certificate_at_client", BOOL),
    f("ca", "message:MeshConfig.CA"),
    f("extension_providers", "message:MeshConfig.ExtensionProvider", STRINGS),
    f("default_providers", "message:MeshConfig.DefaultProviders"),
    f("discovery_selectors", "message:LabelSelector", STRINGS),
    f("path_normalization", "message:MeshConfig.ProxyPathNormalization"),
    f("default_http_retry_policy", "raw", { rawGoType: "*v1alpha3.HTTPRetry" }),
    f("mesh_mTLS", "message:MeshConfig.TLSConfig"),
    f("tls_defaults", "message:MeshConfig.TLSConfig"),
  ]),
  message("MeshConfig.OutboundTrafficPolicy", [f("mode", "enum:MeshConfig.OutboundTrafficPolicy.Mode")]),
  message("MeshConfig.InboundTrafficPolicy", [f("mode", "enum:MeshConfig.InboundTrafficPolicy.Mode")]),
  message("MeshConfig.CertificateData", [
    f("pem", "string", { oneof: "certificate_data" }),
    f("spiffe_bundle_url", "string", { oneof: "certificate_data" }),
    f("cert_signers", "string", STRINGS),
    f("trust_domains", "string", STRINGS),
  ]),
  message("MeshConfig.ServiceSettings", [
    f("settings", "message:MeshConfig.ServiceSettings.Settings"),
    f("hosts", "string", STRINGS),
  ]),
  message("MeshConfig.ServiceSettings.Settings", [f("cluster_local", "bool")]),
  message("MeshConfig.ServiceScopeConfigs", [
    f("namespace_selector", "message:LabelSelector"),
    f("services_selector", "message:LabelSelector"),
    f("scope", "enum:MeshConfig.ServiceScopeConfigs.Scope"),
  ]),
  message("MeshConfig.CA", [
    f("address", "string"),
    f("tls_settings", "message:networking.v1alpha3.ClientTLSSettings"),
    f("request_timeout", "duration"),
    f("istiod_side", "bool"),
  ]),
  message("MeshConfig.ExtensionProvider", [
    f("name", "string"),
    ...PROVIDERS.map(([proto, type]) =>
      f(proto, "raw", { oneof: "provider", rawGoType: `*v1alpha1.MeshConfig_ExtensionProvider_${type}` }),
    ),
  ]),
  message("MeshConfig.DefaultProviders", [
    f("tracing", "string", STRINGS),
    f("metrics", "string", STRINGS),
    f("access_logging", "string", STRINGS),
  ]),
  message("MeshConfig.ProxyPathNormalization", [
    f("normalization", "enum:MeshConfig.ProxyPathNormalization.NormalizationType"),
  ]),
  message("MeshConfig.TLSConfig", [
    f("min_protocol_version", "enum:MeshConfig.TLSConfig.TLSProtocol"),
    f("ecdh_curves", "string", STRINGS),
    f("cipher_suites", "string", STRINGS),
  ]),
  message("LabelSelector", [
    f("matchLabels", "string", { map: true }),
    f("matchExpressions", "message:LabelSelectorRequirement", STRINGS),
  ]),
  message("LabelSelectorRequirement", [f("key", "string"), f("operator", "string"), f("values", "string", STRINGS)]),
  message("ConfigSource", [
    f("address", "string"),
    f("tls_settings", "message:networking.v1alpha3.ClientTLSSettings"),
    f("subscribed_resources", "enum:Resource", STRINGS),
  ]),
  message("Certificate", [f("secret_name", "string"), f("dns_names", "string", STRINGS)]),
];

export const meshEnums: readonly EnumDef[] = [
  enumeration("MeshConfig.IngressControllerMode", [
    ["UNSPECIFIED", 0],
    ["OFF", 1],
    ["DEFAULT", 2],
    ["STRICT", 3],
  ]),
  enumeration("MeshConfig.AccessLogEncoding", [
    ["TEXT", 0],
    ["JSON", 1],
  ]),
  enumeration("MeshConfig.H2UpgradePolicy", [
    ["DO_NOT_UPGRADE", 0],
    ["UPGRADE", 1],
  ]),
  enumeration("MeshConfig.OutboundTrafficPolicy.Mode", [
    ["REGISTRY_ONLY", 0],
    ["ALLOW_ANY", 1],
  ]),
  enumeration("MeshConfig.InboundTrafficPolicy.Mode", [
    ["PASSTHROUGH", 0],
    ["LOCALHOST", 1],
  ]),
  enumeration("MeshConfig.ServiceScopeConfigs.Scope", [
    ["LOCAL", 0],
    ["GLOBAL", 1],
  ]),
  enumeration("MeshConfig.ProxyPathNormalization.NormalizationType", [
    ["DEFAULT", 0],
    ["NONE", 1],
    ["BASE", 2],
    ["MERGE_SLASHES", 3],
    ["DECODE_AND_MERGE_SLASHES", 4],
  ]),
  enumeration("MeshConfig.TLSConfig.TLSProtocol", [
    ["TLS_AUTO", 0],
    ["TLSV1_2", 1],
    ["TLSV1_3", 2],
  ]),
  enumeration("Resource", [["SERVICE_REGISTRY", 0]]),
];
