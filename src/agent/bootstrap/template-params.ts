/**
 * Istio's toTemplateParams (pkg/bootstrap/config.go + option/instances.go), pure: the parameters the
 * bootstrap template is rendered with, built from the node (node-metadata.ts) in Istio's order.
 * An option that "skips" leaves its key out; the template's `{{ if .key }}` then reads false.
 * Integers are bigints so that the template prints them as Go ints.
 */
import { atoi } from "../../go/strconv.js";
import { durationString } from "../../go/time/duration.js";
import { type ProxyConfig, proxyConfigView } from "../../mesh/index.js";
import { AddressError, is4, is4In6, parseAddr } from "../netip.js";
import {
  addressJSON,
  BootstrapOptionError,
  type ClientTLS,
  keepaliveJSON,
  metadataJSON,
  sanJSON,
  sortedJSON,
  type TCPKeepalive,
  transportSocketJSON,
} from "./converters.js";
import type { TypedMetadata } from "./metadata-fields.js";
import type { Node } from "./node-metadata.js";
import { statsOptions } from "./stats-options.js";

/** Process-wide settings pilot-agent reads from its environment (Istio's registered defaults). */
export interface BootstrapFeatures {
  /** ISTIO_DELTA_XDS (default true). */
  deltaXds: boolean;
  /** ISTIO_DUAL_STACK (default false). */
  dualStack: boolean;
  /** ENVOY_STATUS_PORT_ENABLE_PROXY_PROTOCOL (default false). */
  statusPortProxyProtocol: boolean;
  /** HTTP_STRIP_FRAGMENT_FROM_PATH_UNSAFE_IF_DISABLED (default true). */
  stripFragment: boolean;
  /** HOST_IP: replaces `$(HOST_IP)` hosts in addresses. */
  hostIP?: string;
}

export const DEFAULT_FEATURES: BootstrapFeatures = {
  deltaXds: true,
  dualStack: false,
  statusPortProxyProtocol: false,
  stripFragment: true,
};

export interface BootstrapConfig {
  node: Node;
  /** COMPLIANCE_POLICY (`fips-140-2` adds a runtime flag). */
  compliancePolicy?: string;
  /** The agent's --log_as_json: Envoy logs JSON too. */
  logAsJSON?: boolean;
  features?: BootstrapFeatures;
  /** Where the lightstep access token file is written (the caller writes it): `<configPath>/lightstep_access_token.txt`. */
  lightstepTokenPath?: string;
}

export type TemplateParams = Record<string, unknown>;

const MAX_INT32 = 2147483647n;

/** Go's strconv.Atoi of a map value (a missing key reads as ""), undefined on error. */
function atoiOrUndefined(s: string | undefined): bigint | undefined {
  const { value, err } = atoi(s ?? "");
  return err === undefined ? value : undefined;
}

type Family = "4" | "6" | undefined;
function family(ip: string): Family {
  try {
    const a = parseAddr(ip);
    return is4(a) || is4In6(a) ? "4" : "6";
  } catch (e) {
    if (e instanceof AddressError) return undefined;
    throw e;
  }
}

/** serviceClusterOrDefault. */
export function serviceClusterOrDefault(name: string, meta: TypedMetadata): string {
  if (name !== "" && name !== "istio-proxy") return name;
  const labels = (meta.LABELS as Record<string, string> | undefined) ?? {};
  const namespace = (meta.NAMESPACE as string | undefined) ?? "";
  for (const key of ["app", "app.kubernetes.io/name", "service.istio.io/canonical-name"]) {
    if (Object.hasOwn(labels, key)) return `${labels[key]}.${namespace}`;
  }
  const workload = (meta.WORKLOAD_NAME as string | undefined) ?? "";
  if (workload !== "") return `${workload}.${namespace}`;
  if (namespace !== "") return `istio-proxy.${namespace}`;
  return "istio-proxy";
}

/** labels.CanonicalService's name: the canonical-name label, app.kubernetes.io/name, app, else the workload. */
function canonicalName(labels: Record<string, string>, workload: string): string {
  for (const key of ["service.istio.io/canonical-name", "app.kubernetes.io/name", "app"]) {
    if (labels[key]) return labels[key] as string;
  }
  return workload;
}

/** getServiceCluster: the node's cluster from serviceCluster or tracingServiceName. */
export function serviceCluster(meta: TypedMetadata): string {
  const pc = (meta.PROXY_CONFIG as ProxyConfig | undefined) ?? {};
  if (typeof pc.serviceCluster === "string") return serviceClusterOrDefault(pc.serviceCluster, meta);
  if (pc.tracingServiceName === undefined) return serviceClusterOrDefault("istio-proxy", meta);
  const labels = (meta.LABELS as Record<string, string> | undefined) ?? {};
  const workload = (meta.WORKLOAD_NAME as string | undefined) || "istio-proxy";
  const namespace = (meta.NAMESPACE as string | undefined) ?? "";
  switch (pc.tracingServiceName) {
    case "CANONICAL_NAME_ONLY":
    case 1:
      return serviceClusterOrDefault(canonicalName(labels, workload), meta);
    case "CANONICAL_NAME_AND_NAMESPACE":
    case 2: {
      const cs = canonicalName(labels, workload);
      return namespace !== "" ? `${cs}.${namespace}` : serviceClusterOrDefault(cs, meta);
    }
    default:
      return serviceClusterOrDefault("istio-proxy", meta);
  }
}

/** extractRuntimeFlags: Envoy's static runtime layer. */
export function runtimeFlags(
  pc: ProxyConfig,
  compliancePolicy: string,
  stripFragment: boolean,
): Record<string, unknown> {
  const flags: Record<string, unknown> = {
    "re2.max_program_size.error_level": "32768",
    "envoy.deprecated_features:envoy.config.listener.v3.Listener.hidden_envoy_deprecated_use_original_dst": true,
    "envoy.reloadable_features.http_reject_path_with_fragment": false,
    "envoy.reloadable_features.fixed_heap_use_allocated": true,
    "envoy.reloadable_features.coalesce_lb_rebuilds_on_batch_update": false,
  };
  if (compliancePolicy === "fips-140-2") flags["envoy.reloadable_features.google_grpc_disable_tls_13"] = true;
  // Istio's condition is inverted by history: the flag is added when stripping is *disabled*.
  if (!stripFragment) flags["envoy.reloadable_features.http_strip_fragment_from_path_unsafe_if_disabled"] = "false";
  for (const [k, v] of Object.entries((pc.runtimeValues as Record<string, string> | undefined) ?? {})) {
    if (v === "") delete flags[k];
    else flags[k] = v === "true" ? true : v === "false" ? false : v;
  }
  return flags;
}

/** The global downstream connection limit: connectionSettings, then the metadata, then the runtime value. */
export function globalDownstreamMaxConnections(pc: ProxyConfig): bigint {
  const settings = (pc.connectionSettings as { globalDownstreamConnectionLimit?: number } | undefined) ?? {};
  if ((settings.globalDownstreamConnectionLimit ?? 0) > 0)
    return BigInt(settings.globalDownstreamConnectionLimit as number);
  const fromMeta = atoiOrUndefined(pc.proxyMetadata?.ISTIO_META_GLOBAL_DOWNSTREAM_MAX_CONNECTIONS);
  if (fromMeta !== undefined) return fromMeta;
  const fromRuntime = atoiOrUndefined(
    (pc.runtimeValues as Record<string, string> | undefined)?.["overload.global_downstream_max_connections"],
  );
  if (fromRuntime !== undefined) return fromRuntime;
  return MAX_INT32;
}

/** newEnvoyDurationOption's text: `<s>s`, or `<s>.<9-digit nanos>s`. */
export function envoyDuration(nanos: bigint): string {
  const s = nanos / 1_000_000_000n;
  const ns = nanos % 1_000_000_000n;
  return ns === 0n ? `${s}s` : `${s}.${String(ns).padStart(9, "0")}s`;
}

/** Sets `key` unless `value` is Go's zero value ("" / 0 / nil / empty list). */
function setUnlessZero(params: TemplateParams, key: string, value: unknown): void {
  if (value === undefined || value === null || value === "" || value === 0 || value === 0n) return;
  if (Array.isArray(value) && value.length === 0) return;
  params[key] = value;
}

function addressOption(params: TemplateParams, key: string, addr: string | undefined, hostIP?: string): void {
  if (!addr) return;
  params[key] = addressJSON(key, addr, hostIP);
}

/** toTemplateParams. Throws BootstrapOptionError for an address it cannot split. */
export function templateParams(cfg: BootstrapConfig): TemplateParams {
  const { node } = cfg;
  const meta = node.metadata;
  const features = cfg.features ?? DEFAULT_FEATURES;
  const pc = (meta.PROXY_CONFIG as ProxyConfig | undefined) ?? {};
  const p: TemplateParams = {};
  const discoveryAddress = pc.discoveryAddress ?? "";
  let xdsType = features.deltaXds ? "DELTA_GRPC" : "GRPC";
  let metadataDiscovery = meta.METADATA_DISCOVERY === true;
  if (node.id.startsWith("waypoint~")) {
    xdsType = "DELTA_GRPC";
    metadataDiscovery = true;
  }
  p.nodeID = node.id;
  p.nodeType = node.id.split("~")[0];
  p.pilot_SAN = sanJSON(meta.PILOT_SAN as string[] | undefined);
  setUnlessZero(p, "outlier_log_path", meta.OUTLIER_LOG_PATH);
  if (Object.hasOwn(node.raw, "file-credential")) p.custom_file_path = "./var/run/secrets/credential-uds/files-socket";
  p.log_json = cfg.logAsJSON === true;
  p.discovery_host = discoveryAddress.split(":")[0];
  p.metadata = meta;
  p.xds_type = xdsType;
  p.metadata_discovery = xdsType === "GRPC" ? false : metadataDiscovery;
  p.metrics_localhost_access_only = pc.proxyMetadata?.METRICS_LOCALHOST_ACCESS_ONLY === "true";
  setUnlessZero(p, "secure_metrics_port", BigInt((meta.ENVOY_SECURE_METRICS_PORT as number | undefined) ?? 0));
  setUnlessZero(
    p,
    "secure_merged_metrics_port",
    BigInt((meta.ENVOY_SECURE_MERGED_METRICS_PORT as number | undefined) ?? 0),
  );
  const platformMeta = (meta.PLATFORM_METADATA as Record<string, string> | undefined) ?? {};
  if (Object.hasOwn(platformMeta, "gcp_project_number")) p.gcp_project_number = platformMeta.gcp_project_number;
  const sts = atoiOrUndefined(meta.STS_PORT as string | undefined);
  if (sts !== undefined && sts > 0n) {
    p.sts = true;
    p.sts_port = sts;
    if (Object.hasOwn(platformMeta, "gcp_project")) p.gcp_project_id = platformMeta.gcp_project;
  }
  p.workload_identity_socket_file = meta.WORKLOAD_IDENTITY_SOCKET_FILE ?? "";
  // Node options: locality, stats, metadata, runtime flags, ports.
  setUnlessZero(p, "region", node.locality.region);
  setUnlessZero(p, "zone", node.locality.zone);
  setUnlessZero(p, "sub_zone", node.locality.subZone);
  const stats = statsOptions(meta);
  setUnlessZero(p, "inclusionPrefix", stats.inclusionPrefix);
  setUnlessZero(p, "inclusionSuffix", stats.inclusionSuffix);
  setUnlessZero(p, "inclusionRegexps", stats.inclusionRegexps);
  setUnlessZero(p, "extraStatTags", stats.extraStatTags);
  p.histogram_buckets = stats.histogramBuckets ?? null;
  if (stats.flushInterval !== undefined) p.stats_flush_interval = durationString(stats.flushInterval);
  if (stats.evictionIntervalSeconds !== undefined)
    p.stats_eviction_interval = envoyDuration(stats.evictionIntervalSeconds * 1_000_000_000n);
  p.meta_json_str = metadataJSON(meta, node.raw);
  p.runtime_flags = sortedJSON(runtimeFlags(pc, cfg.compliancePolicy ?? "", features.stripFragment));
  p.envoy_status_port = BigInt((meta.ENVOY_STATUS_PORT as number | undefined) ?? 0);
  p.envoy_prometheus_port = BigInt((meta.ENVOY_PROMETHEUS_PORT as number | undefined) ?? 0);
  p.global_downstream_max_connections = globalDownstreamMaxConnections(pc);
  if (features.statusPortProxyProtocol) p.envoy_status_port_enable_proxy_protocol = true;
  if (node.raw.ENABLE_SELF_DISCOVERY === "true" || node.raw.ENABLE_SELF_DISCOVERY === true)
    p.enable_self_discovery = true;
  // Addresses by IP family.
  const ips = (meta.INSTANCE_IPS as string[] | undefined) ?? [];
  const families = ips.map(family);
  if (families.every((f) => f === "4")) {
    Object.assign(p, { localhost: "127.0.0.1", wildcard: "0.0.0.0", dns_lookup_family: "V4_ONLY" });
  } else if (families.every((f) => f === "6")) {
    Object.assign(p, { localhost: "::1", wildcard: "::", dns_lookup_family: "V6_ONLY" });
  } else if (features.dualStack) {
    const v6First = families[0] === "6";
    Object.assign(p, {
      localhost: v6First ? "::1" : "127.0.0.1",
      wildcard: v6First ? "::" : "0.0.0.0",
      additional_localhost: v6First ? "127.0.0.1" : "::1",
      additional_wildcard: v6First ? "0.0.0.0" : "::",
      dns_lookup_family: "ALL",
      dual_stack: true,
    });
  } else {
    Object.assign(p, { localhost: "127.0.0.1", wildcard: "0.0.0.0", dns_lookup_family: "V4_ONLY" });
  }
  // Proxy config options.
  p.config = proxyConfigView(pc);
  p.cluster = serviceCluster(meta);
  addressOption(p, "pilot_grpc_address", discoveryAddress, features.hostIP);
  p.discovery_address = discoveryAddress;
  addressOption(p, "statsd", pc.statsdUdpAddress as string | undefined, features.hostIP);
  p.xds_root_cert = "";
  const tracing = pc.tracing as Record<string, Record<string, unknown> | undefined> | undefined;
  if (tracing !== undefined) {
    let h2 = false;
    if (tracing.zipkin !== undefined) {
      addressOption(p, "zipkin", tracing.zipkin.address as string | undefined, features.hostIP);
    } else if (tracing.lightstep !== undefined) {
      h2 = true;
      addressOption(p, "lightstep", tracing.lightstep.address as string | undefined, features.hostIP);
      p.lightstepToken = cfg.lightstepTokenPath ?? "";
    } else if (tracing.datadog !== undefined) {
      addressOption(p, "datadog", tracing.datadog.address as string | undefined, features.hostIP);
    } else if (tracing.stackdriver !== undefined) {
      const projectID = platformMeta.gcp_project;
      if (projectID === undefined)
        throw new BootstrapOptionError("unable to process Stackdriver tracer: missing GCP Project");
      const sd = tracing.stackdriver;
      const int64 = (v: unknown) => BigInt((v as number | string | undefined) ?? 200);
      Object.assign(p, {
        stackdriver: true,
        stackdriverProjectID: projectID,
        stackdriverDebug: sd.debug === true,
        stackdriverMaxAnnotations: int64(sd.maxNumberOfAnnotations),
        stackdriverMaxAttributes: int64(sd.maxNumberOfAttributes),
        stackdriverMaxEvents: int64(sd.maxNumberOfMessageEvents),
      });
    }
    const tls = tracing.tlsSettings as ClientTLS | undefined;
    if (tls !== undefined) p.tracing_tls = transportSocketJSON(tls, "tracer", meta, h2);
  }
  const remote = (key: "envoyMetricsService" | "envoyAccessLogService", prefix: string, sni: string) => {
    const svc = pc[key] as { address?: string; tlsSettings?: ClientTLS; tcpKeepalive?: TCPKeepalive } | undefined;
    if (!svc?.address) return;
    addressOption(p, `${prefix}_address`, svc.address, features.hostIP);
    if (svc.tlsSettings !== undefined) p[`${prefix}_tls`] = transportSocketJSON(svc.tlsSettings, sni, meta, true);
    if (svc.tcpKeepalive !== undefined) p[`${prefix}_tcp_keepalive`] = keepaliveJSON(svc.tcpKeepalive);
  };
  remote("envoyMetricsService", "envoy_metrics_service", "envoy_metrics_service");
  p.envoy_metrics_stats_compression = pc.statsCompression === undefined ? true : pc.statsCompression === true;
  remote("envoyAccessLogService", "envoy_accesslog_service", "envoy_accesslog_service");
  const lrs = node.raw.LOAD_STATS_CONFIG_JSON;
  if (typeof lrs === "string") p.load_stats_config_json_str = lrs;
  return p;
}
