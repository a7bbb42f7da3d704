/**
 * The type URLs the XDS proxy tells apart (Istio's pkg/model/xds.go): Envoy's types (forwarded to
 * Envoy), the ones the agent takes itself (the name table for the DNS proxy, the proxy config for
 * the trust bundle), the listener type whose first request triggers the agent's own requests, and
 * the workload type that also goes to the client.
 */
const API_TYPE_PREFIX = "type.googleapis.com/";

/** The gRPC path of Envoy's aggregated discovery service, on both sides of the proxy. */
export const ADS_SERVICE_PATH = "/envoy.service.discovery.v3.AggregatedDiscoveryService";

export const LISTENER_TYPE = `${API_TYPE_PREFIX}envoy.config.listener.v3.Listener`;
export const NAME_TABLE_TYPE = `${API_TYPE_PREFIX}istio.networking.nds.v1.NameTable`;
export const PROXY_CONFIG_TYPE = `${API_TYPE_PREFIX}istio.mesh.v1alpha1.ProxyConfig`;
export const WORKLOAD_TYPE = `${API_TYPE_PREFIX}istio.workload.Workload`;

/** `model.IsEnvoyType`. */
export function isEnvoyType(typeUrl: string): boolean {
  return typeUrl.startsWith(`${API_TYPE_PREFIX}envoy.`);
}

/** `model.GetShortType`, for log lines. */
export function shortType(typeUrl: string): string {
  const short: Record<string, string> = {
    [`${API_TYPE_PREFIX}envoy.config.cluster.v3.Cluster`]: "CDS",
    [LISTENER_TYPE]: "LDS",
    [`${API_TYPE_PREFIX}envoy.config.route.v3.RouteConfiguration`]: "RDS",
    [`${API_TYPE_PREFIX}envoy.config.endpoint.v3.ClusterLoadAssignment`]: "EDS",
    [`${API_TYPE_PREFIX}envoy.extensions.transport_sockets.tls.v3.Secret`]: "SDS",
    [NAME_TABLE_TYPE]: "NDS",
    [PROXY_CONFIG_TYPE]: "PCDS",
    [`${API_TYPE_PREFIX}envoy.config.core.v3.TypedExtensionConfig`]: "ECDS",
    [`${API_TYPE_PREFIX}istio.workload.Address`]: "WDS",
    [WORKLOAD_TYPE]: "WDS",
    [`${API_TYPE_PREFIX}istio.security.Authorization`]: "WADS",
  };
  return short[typeUrl] ?? typeUrl;
}
