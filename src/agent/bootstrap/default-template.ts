/**
 * meshinject's built-in Envoy bootstrap template: used when the proxy config names no template file
 * and none is installed at pilot-agent's default path. It reads the same parameters as Istio's
 * `envoy_bootstrap.json` (template-params.ts) and renders the same bootstrap (the tests compare the
 * two on every golden of the bootstrap corpus), but is written for reading: the repeated pieces —
 * loopback clusters, HTTP/2 options, SDS sources, compressors, stats listeners — are defined once.
 */
import type { BootstrapTemplate } from "./render.js";

const DEFINITIONS = String.raw`
{{- define "h2" -}}
"typed_extension_protocol_options": {"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
  "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
  "explicit_http_config": {"http2_protocol_options": {}}}}
{{- end }}

{{- define "endpoint" -}}
"load_assignment": {"cluster_name": "{{ .name }}", "endpoints": [{"lb_endpoints": [{"endpoint": {"address": {{ .address }}}}]}]}
{{- end }}

{{- define "tcp-address" -}}
{"socket_address": {"protocol": "TCP", "address": "{{ .host }}", "port_value": {{ .port }}}}
{{- end }}

{{- define "static" -}}
{"name": "{{ .name }}", "alt_stat_name": "{{ .name }};", "type": "STATIC", "connect_timeout": "{{ .timeout }}", "lb_policy": "ROUND_ROBIN",
 {{ template "endpoint" (dict "name" .name "address" .address) }}
 {{- if .h2 }}, {{ template "h2" }}{{ end }}}
{{- end }}

{{- define "dns" -}}
{"name": "{{ .name }}", "alt_stat_name": "{{ .name }};", "type": "STRICT_DNS", "respect_dns_ttl": true,
 "dns_lookup_family": "{{ .family }}", "connect_timeout": "1s", "lb_policy": "ROUND_ROBIN",
 {{- if .tls }} "transport_socket": {{ .tls }},{{ end }}
 {{- if .keepalive }} "upstream_connection_options": {{ .keepalive }},{{ end }}
 {{- if .refresh }} "dns_refresh_rate": "{{ .refresh }}",{{ end }}
 {{- if .h2 }} {{ template "h2" }},{{ end }}
 {{ template "endpoint" (dict "name" .name "address" (printf "{\"socket_address\": %s}" .address)) }}}
{{- end }}

{{- define "sds" -}}
{"name": "{{ . }}", "sds_config": {"api_config_source": {"api_type": "GRPC", "grpc_services": [{"envoy_grpc": {"cluster_name": "sds-grpc"}}],
  "set_node_on_first_message_only": true, "transport_api_version": "V3"}, "resource_api_version": "V3"}}
{{- end }}

{{- define "router" -}}
{"name": "envoy.filters.http.router", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}
{{- end }}

{{- define "compressor" -}}
{"name": "envoy.filters.http.compressor.{{ . }}", "typed_config": {
  "@type": "type.googleapis.com/envoy.extensions.filters.http.compressor.v3.Compressor",
  "compressor_library": {"name": "stats_{{ . }}", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.compression.{{ . }}.compressor.v3.{{ title . }}"}},
  "response_direction_config": {"common_config": {"content_type": ["text/plain", "application/vnd.google.protobuf", "application/openmetrics-text", "application/openmetrics-protobuf"]}}}}
{{- end }}

{{- define "hcm" -}}
{"name": "envoy.filters.network.http_connection_manager", "typed_config": {
  "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "codec_type": "AUTO", "stat_prefix": "{{ .prefix }}",
  "route_config": {"virtual_hosts": [{"name": "backend", "domains": ["*"], "routes": [
    {{- range $i, $r := .routes }}{{ if $i }},{{ end }}{"match": {"prefix": "{{ index $r 0 }}"}, "route": {"cluster": "{{ index $r 1 }}"}}{{ end }}]}]},
  "http_filters": [{{ range .compressors }}{{ template "compressor" . }}, {{ end }}{{ template "router" }}]}}
{{- end }}

{{- define "secure-metrics" -}}
{"name": "{{ .wildcard }}_{{ .port }}", "address": {{ template "tcp-address" (dict "host" .wildcard "port" .port) }},
 "ignore_global_conn_limit": true, "bypass_overload_manager": true,
 "listener_filters": [{"name": "envoy.filters.listener.tls_inspector", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector"}}],
 "filter_chains": [{"filter_chain_match": {"transport_protocol": "tls"},
   "transport_socket": {"name": "envoy.transport_sockets.tls", "typed_config": {
     "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
     "require_client_certificate": true,
     "common_tls_context": {"tls_certificate_sds_secret_configs": [{{ template "sds" "default" }}],
       "combined_validation_context": {"default_validation_context": {}, "validation_context_sds_secret_config": {{ template "sds" "ROOTCA" }}}}}},
   "filters": [{{ template "hcm" (dict "prefix" .prefix "routes" .routes) }}]}]}
{{- end }}
`;

const BODY = String.raw`
{{- $localhost := .localhost }}{{ $wildcard := .wildcard }}{{ $family := .dns_lookup_family }}
{{- $sdsPipe := printf "{\"pipe\": {\"path\": \"./var/run/secrets/workload-spiffe-uds/%s\"}}" .workload_identity_socket_file -}}
{
"application_log_config": {"log_format": {
{{- if .log_json }}
  "json_format": {"time": "%Y-%m-%dT%T.%fZ", "level": "%l", "scope": "envoy %n", "msg": "%j", "caller": "%g:%#", "thread": "%t"}
{{- else }}
  "text_format": "%Y-%m-%dT%T.%fZ\t%l\tenvoy %n %g:%#\t%v\tthread=%t"
{{- end }}}},
"node": {"id": "{{ .nodeID }}", "cluster": "{{ .cluster }}",
  "locality": { {{- $sep := "" }}
    {{- with .region }}"region": "{{ . }}"{{ $sep = "," }}{{ end }}
    {{- with .zone }}{{ $sep }}"zone": "{{ . }}"{{ $sep = "," }}{{ end }}
    {{- with .sub_zone }}{{ $sep }}"sub_zone": "{{ . }}"{{ end -}} },
  "metadata": {{ .meta_json_str }}},
"layered_runtime": {"layers": [{"name": "global config", "static_layer": {{ .runtime_flags }}}, {"name": "admin", "admin_layer": {}}]},
"bootstrap_extensions": [
{{- if .metadata_discovery }}
  {"name": "metadata_discovery", "typed_config": {"@type": "type.googleapis.com/udpa.type.v1.TypedStruct",
    "type_url": "type.googleapis.com/istio.workload.BootstrapExtension", "value": {"config_source": {"ads": {}}}}},
{{- end }}
  {"name": "envoy.bootstrap.internal_listener", "typed_config": {"@type": "type.googleapis.com/udpa.type.v1.TypedStruct",
    "type_url": "type.googleapis.com/envoy.extensions.bootstrap.internal_listener.v3.InternalListener", "value": {"buffer_size_kb": 64}}}],
{{- with .stats_flush_interval }}
"stats_flush_interval": "{{ . }}",
{{- end }}
{{- with .stats_eviction_interval }}
"stats_eviction_interval": "{{ . }}",
{{- end }}
"stats_config": {
  "use_all_default_tags": false,
  "stats_tags": [
    {"tag_name": "cluster_name", "regex": "^cluster(\\.(.+);)"},
    {"tag_name": "http_conn_manager_prefix", "regex": "^http\\.(((?:[_.[:digit:]\\w]*|[_\\[\\]aAbBcCdDeEfF[:digit:]\\w\\:]*));\\.)"},
    {"tag_name": "thread_name", "regex": "^server(\\.(.+))\\.watchdog"},
    {"tag_name": "tcp_prefix", "regex": "^tcp\\.((.*?)\\.)\\w+?$"},
    {"tag_name": "response_code", "regex": "_rq(_(\\d{3}))$"},
    {"tag_name": "response_code_class", "regex": "_rq(_(\\dxx))$"},
    {"tag_name": "http_conn_manager_listener_prefix", "regex": "^listener(?=\\.).*?\\.http\\.(((?:[_.[:digit:]]*|[_\\[\\]aAbBcCdDeEfF[:digit:]]*))\\.)"},
    {"tag_name": "listener_address", "regex": "^listener\\.(((?:[_.[:digit:]]*|[_\\[\\]aAbBcCdDeEfF[:digit:]]*))\\.)"},
    {"tag_name": "mongo_prefix", "regex": "^mongo\\.(.+?)\\.(collection|cmd|cx_|op_|delays_|decoding_)(.*?)$"},
    {{- range .extraStatTags }}
    {"tag_name": "{{ . }}", "regex": "({{ . }}=\\.=(.*?);\\.;)"},
    {{- end }}
    {{- range list "cache" "component" }}
    {"tag_name": "{{ . }}", "regex": "({{ . }}\\.(.+?)\\.)"},
    {{- end }}
    {"tag_name": "tag", "regex": "(tag\\.(.+?);\\.)"},
    {"tag_name": "wasm_filter", "regex": "(wasm_filter\\.(.+?)\\.)"},
    {"tag_name": "authz_enforce_result", "regex": "rbac(\\.(allowed|denied))"},
    {"tag_name": "authz_dry_run_action", "regex": "(\\.istio_dry_run_(allow|deny)_)"},
    {"tag_name": "authz_dry_run_result", "regex": "(\\.shadow_(allowed|denied))"}
  ],
  {{- with .histogram_buckets }}
  "histogram_bucket_settings": {{ toJson . }},
  {{- end }}
  "stats_matcher": {"inclusion_list": {"patterns": [
    {"prefix": "reporter="},
    {{- if .metadata_discovery }} {"prefix": "workload_discovery"},{{ end }}
    {{- range .inclusionPrefix }} {"prefix": "{{ . }}"},{{ end }}
    {{- range .inclusionSuffix }} {"suffix": "{{ . }}"},{{ end }}
    {{- range .inclusionRegexps }} {"safe_regex": {"regex": "{{ js . }}"}},{{ end }}
    {"prefix": "component"},
    {"prefix": "istio"}]}}
},
"admin": {
  "access_log": [{"name": "envoy.access_loggers.file", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog", "path": "/dev/null"}}],
  "profile_path": "/var/lib/istio/data/envoy.prof",
  "address": {"socket_address": {"address": "{{ $localhost }}", "port_value": {{ .config.ProxyAdminPort }}}}
},
"dynamic_resources": {
  "lds_config": {"ads": {}, "initial_fetch_timeout": "0s", "resource_api_version": "V3"},
  "cds_config": {"ads": {}, "initial_fetch_timeout": "0s", "resource_api_version": "V3"},
  "ads_config": {"api_type": "{{ .xds_type }}", "set_node_on_first_message_only": true, "transport_api_version": "V3",
    "grpc_services": [{"envoy_grpc": {"cluster_name": "xds-grpc"}}]}
},
"static_resources": {
  "clusters": [
    {{ template "static" (dict "name" "prometheus_stats" "timeout" "0.250s" "address" (printf "{\"socket_address\": {\"protocol\": \"TCP\", \"address\": \"%s\", \"port_value\": %v}}" $localhost .config.ProxyAdminPort)) }},
    {{ template "static" (dict "name" "agent" "timeout" "0.250s" "address" (printf "{\"socket_address\": {\"protocol\": \"TCP\", \"address\": \"%s\", \"port_value\": %v}}" $localhost .config.StatusPort)) }},
    {{ template "static" (dict "name" "sds-grpc" "timeout" "1s" "h2" true "address" $sdsPipe) }},
    {{- with .custom_file_path }}
    {{ template "static" (dict "name" "sds-files-grpc" "timeout" "1s" "h2" true "address" (printf "{\"pipe\": {\"path\": \"%s\"}}" .)) }},
    {{- end }}
    {"name": "xds-grpc", "alt_stat_name": "xds-grpc;", "type": "STATIC", "connect_timeout": "1s", "lb_policy": "ROUND_ROBIN",
     {{ template "endpoint" (dict "name" "xds-grpc" "address" (printf "{\"pipe\": {\"path\": \"%s/XDS\"}}" .config.ConfigPath)) }},
     "circuit_breakers": {"thresholds": [
       {{- range $i, $p := list "DEFAULT" "HIGH" }}{{ if $i }},{{ end }}
       {"priority": "{{ $p }}", "max_connections": 100000, "max_pending_requests": 100000, "max_requests": 100000}
       {{- end }}]},
     "upstream_connection_options": {"tcp_keepalive": {"keepalive_time": 300}},
     "max_requests_per_connection": 1,
     {{ template "h2" }}}
    {{- if .zipkin }},
    {{ template "dns" (dict "name" "zipkin" "family" $family "tls" .tracing_tls "refresh" "30s" "address" .zipkin) }}
    {{- else if .lightstep }},
    {{ template "dns" (dict "name" "lightstep" "family" $family "tls" .tracing_tls "h2" true "address" .lightstep) }}
    {{- else if .datadog }},
    {{ template "dns" (dict "name" "datadog_agent" "family" $family "tls" .tracing_tls "address" .datadog) }}
    {{- end }}
    {{- with .envoy_metrics_service_address }},
    {{ template "dns" (dict "name" "envoy_metrics_service" "family" $family "tls" $.envoy_metrics_service_tls "keepalive" $.envoy_metrics_service_tcp_keepalive "h2" true "address" .) }}
    {{- end }}
    {{- with .envoy_accesslog_service_address }},
    {{ template "dns" (dict "name" "envoy_accesslog_service" "family" $family "tls" $.envoy_accesslog_service_tls "keepalive" $.envoy_accesslog_service_tcp_keepalive "h2" true "address" .) }}
    {{- end }}
    {{- if .enable_self_discovery }},
    {"name": "local_cluster", "alt_stat_name": "local_cluster;", "type": "EDS", "connect_timeout": "1s",
     "load_balancing_policy": {"policies": [{"typed_extension_config": {"name": "envoy.load_balancing_policies.least_request",
       "typed_config": {"@type": "type.googleapis.com/envoy.extensions.load_balancing_policies.least_request.v3.LeastRequest",
         "locality_lb_config": {"zone_aware_lb_config": {"min_cluster_size": "1"}}}}}]},
     "eds_cluster_config": {"eds_config": {"ads": {}, "resource_api_version": "V3"}, "service_name": "local_cluster"}}
    {{- end }}
  ],
  "listeners": [
    {{- $metricsHost := $wildcard }}{{ $metricsExtra := .additional_wildcard }}
    {{- if .metrics_localhost_access_only }}{{ $metricsHost = $localhost }}{{ $metricsExtra = .additional_localhost }}{{ end }}
    {"name": "{{ $metricsHost }}_{{ .envoy_prometheus_port }}",
     "address": {{ template "tcp-address" (dict "host" $metricsHost "port" .envoy_prometheus_port) }},
     "ignore_global_conn_limit": true, "bypass_overload_manager": true,
     {{- if .dual_stack }}
     "additionalAddresses": [{"address": {{ template "tcp-address" (dict "host" $metricsExtra "port" .envoy_prometheus_port) }}}],
     {{- end }}
     "filter_chains": [{"filters": [{{ template "hcm" (dict "prefix" "stats" "routes" (list (list "/stats/prometheus" "prometheus_stats")) "compressors" (ternary (list "brotli" "zstd" "gzip") (list) .envoy_metrics_stats_compression)) }}]}]},
    {{- with .secure_metrics_port }}
    {{ template "secure-metrics" (dict "wildcard" $wildcard "port" . "prefix" "secure_stats" "routes" (list (list "/stats/prometheus" "prometheus_stats"))) }},
    {{- end }}
    {{- with .secure_merged_metrics_port }}
    {{ template "secure-metrics" (dict "wildcard" $wildcard "port" . "prefix" "secure_merged_stats" "routes" (list (list "/stats/prometheus" "agent") (list "/metrics" "agent"))) }},
    {{- end }}
    {"name": "{{ $wildcard }}_{{ .envoy_status_port }}",
     "address": {{ template "tcp-address" (dict "host" $wildcard "port" .envoy_status_port) }},
     "ignore_global_conn_limit": true, "bypass_overload_manager": true,
     {{- if .dual_stack }}
     "additionalAddresses": [{"address": {{ template "tcp-address" (dict "host" .additional_wildcard "port" .envoy_status_port) }}}],
     {{- end }}
     {{- if .envoy_status_port_enable_proxy_protocol }}
     "listener_filters": [{"name": "envoy.listener.proxy_protocol", "typed_config": {
       "@type": "type.googleapis.com/envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol", "allow_requests_without_proxy_protocol": true}}],
     {{- end }}
     "filter_chains": [{"filters": [{{ template "hcm" (dict "prefix" "agent" "routes" (list (list "/healthz/ready" "agent"))) }}]}]}
  ]
},
"overload_manager": {"resource_monitors": [{"name": "envoy.resource_monitors.global_downstream_max_connections", "typed_config": {
  "@type": "type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig",
  "max_active_downstream_connections": {{ .global_downstream_max_connections }}}}]},
{{- if .zipkin }}
"tracing": {"http": {"name": "envoy.tracers.zipkin", "typed_config": {"@type": "type.googleapis.com/envoy.config.trace.v3.ZipkinConfig",
  "collector_cluster": "zipkin", "collector_endpoint": "/api/v2/spans", "collector_endpoint_version": "HTTP_JSON", "trace_id_128bit": true, "shared_span_context": false}}},
{{- else if .lightstep }}
"tracing": {"http": {"name": "envoy.tracers.lightstep", "typed_config": {"@type": "type.googleapis.com/envoy.config.trace.v3.LightstepConfig",
  "collector_cluster": "lightstep", "access_token_file": "{{ .lightstepToken }}"}}},
{{- else if .datadog }}
"tracing": {"http": {"name": "envoy.tracers.datadog", "typed_config": {"@type": "type.googleapis.com/envoy.config.trace.v3.DatadogConfig",
  "collector_cluster": "datadog_agent", "service_name": "{{ .cluster }}"}}},
{{- end }}
{{- if or .envoy_metrics_service_address .statsd }}
"stats_sinks": [
  {{- if .envoy_metrics_service_address }}
  {"name": "envoy.stat_sinks.metrics_service", "typed_config": {"@type": "type.googleapis.com/envoy.config.metrics.v3.MetricsServiceConfig",
    "transport_api_version": "V3", "grpc_service": {"envoy_grpc": {"cluster_name": "envoy_metrics_service"}}}}{{ if .statsd }},{{ end }}
  {{- end }}
  {{- with .statsd }}
  {"name": "envoy.stat_sinks.statsd", "typed_config": {"@type": "type.googleapis.com/envoy.config.metrics.v3.StatsdSink", "address": {"socket_address": {{ . }}}}}
  {{- end }}],
{{- end }}
{{- if or .outlier_log_path .load_stats_config_json_str .enable_self_discovery }}
"cluster_manager": {
  {{- if .enable_self_discovery }}"local_cluster_name": "local_cluster",{{ end }}
  {{- with .outlier_log_path }}"outlier_detection": {"event_log_path": "{{ . }}"},{{ end }}
  {{- with .load_stats_config_json_str }}"load_stats_config": {{ . }},{{ end }}
  "enable_deferred_cluster_creation": true},
{{- end }}
"deferred_stat_options": {"enable_deferred_creation_stats": true}
}
`;

/** The template text (definitions first, then the body). */
export const DEFAULT_BOOTSTRAP_TEMPLATE = `${DEFINITIONS}${BODY}`;

/** pilot-agent's default template path (in the proxy image); the built-in template stands in when it is absent. */
export const DEFAULT_TEMPLATE_PATH = "./var/lib/istio/envoy/envoy_bootstrap_tmpl.json";

/** The built-in template, for the default path when no file is there (and the offline preview). */
export const BUILT_IN_TEMPLATE: BootstrapTemplate = { text: DEFAULT_BOOTSTRAP_TEMPLATE, name: "built-in" };
