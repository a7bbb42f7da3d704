/**
 * The four xDS resources a proxyless gRPC client needs for one `xds:///host:port` service, as istiod
 * builds them for the `grpc` generator in outline: a Listener named `host:port` whose API listener is
 * an HttpConnectionManager taking its routes over RDS with the router filter, a RouteConfiguration
 * sending everything to `outbound|port||host`, that Cluster of type EDS over ADS, and its
 * ClusterLoadAssignment with one endpoint. With `istioMutualSans` the Cluster carries the transport
 * socket istiod adds for a DestinationRule with `tls.mode: ISTIO_MUTUAL` (grpcgen/cds.go applyTLS,
 * buildUpstreamTLSContext, grpcgen.go buildCommonTLSContext): an UpstreamTlsContext whose identity
 * and root come from the bootstrap's certificate provider instance `default` (certificate names
 * `default` and `ROOTCA`, in both the current and the deprecated fields) and whose validation
 * context matches the server's SANs exactly. For a proxyless gRPC server, the inbound Listener of
 * grpcgen/lds.go under STRICT mTLS. Encoded with protobufjs straight from Envoy's protos (the
 * XDS proxy under test never decodes them; @grpc/grpc-js-xds does).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import protobuf from "protobufjs";

const require = createRequire(import.meta.url);
const deps = join(dirname(require.resolve("@grpc/grpc-js-xds/package.json")), "deps");
const INCLUDE = [
  ...["envoy-api", "xds", "googleapis", "protoc-gen-validate"].map((d) => join(deps, d)),
  // google/protobuf/descriptor.proto, which the validate options import.
  dirname(require.resolve("protobufjs/package.json")),
];

export const LISTENER_TYPE = "type.googleapis.com/envoy.config.listener.v3.Listener";
export const ROUTE_TYPE = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";
export const CLUSTER_TYPE = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
export const ENDPOINT_TYPE = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";
const HCM = "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager";
const ROUTER = "envoy.extensions.filters.http.router.v3.Router";
const UPSTREAM_TLS = "envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext";
const DOWNSTREAM_TLS = "envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext";
/** grpcxds.ServerListenerNamePrefix: the bootstrap's server listener template without `%s`. */
export const SERVER_LISTENER_PREFIX = "xds.istio.io/grpc/lds/inbound/";

let root: protobuf.Root | undefined;

function types(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => {
    for (const dir of INCLUDE) if (existsSync(join(dir, target))) return join(dir, target);
    return target;
  };
  r.loadSync(
    [
      "envoy/config/listener/v3/listener.proto",
      "envoy/config/route/v3/route.proto",
      "envoy/config/cluster/v3/cluster.proto",
      "envoy/config/endpoint/v3/endpoint.proto",
      "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto",
      "envoy/extensions/filters/http/router/v3/router.proto",
      "envoy/extensions/transport_sockets/tls/v3/tls.proto",
    ],
    { keepCase: true },
  );
  root = r;
  return r;
}

export interface AnyValue {
  typeUrl: string;
  value: Buffer;
}

function encode(fullName: string, object: Record<string, unknown>): Buffer {
  const t = types().lookupType(fullName);
  return Buffer.from(t.encode(t.fromObject(object)).finish());
}

function any(fullName: string, object: Record<string, unknown>): { type_url: string; value: Buffer } {
  return { type_url: `type.googleapis.com/${fullName}`, value: encode(fullName, object) };
}

export interface GrpcService {
  /** `echo.shop.svc.cluster.local` */
  host: string;
  port: number;
  endpoint: { address: string; port: number };
  /** The service accounts' SPIFFE IDs: the cluster is ISTIO_MUTUAL, the server must present one. */
  istioMutualSans?: string[];
}

/** grpcgen.go buildCommonTLSContext: identity and root from the provider instance `default`. */
function commonTlsContext(sans: string[]): Record<string, unknown> {
  const instance = (certificate_name: string) => ({ instance_name: "default", certificate_name });
  return {
    tls_certificate_provider_instance: instance("default"),
    tls_certificate_certificate_provider_instance: instance("default"),
    combined_validation_context: {
      validation_context_certificate_provider_instance: instance("ROOTCA"),
      default_validation_context: {
        match_subject_alt_names: sans.map((exact) => ({ exact })),
        ca_certificate_provider_instance: instance("ROOTCA"),
      },
    },
  };
}

/** cds.go buildUpstreamTLSContext, encoded: the UpstreamTlsContext bytes of an ISTIO_MUTUAL cluster. */
export function upstreamTlsContext(sans: string[]): Buffer {
  return encode(UPSTREAM_TLS, { common_tls_context: commonTlsContext(sans) });
}

/** lds.go buildInboundFilterChains under STRICT mTLS, encoded: no SAN matchers, client certificate required. */
export function downstreamTlsContext(): Buffer {
  return encode(DOWNSTREAM_TLS, {
    common_tls_context: commonTlsContext([]),
    require_client_certificate: { value: true },
  });
}

/**
 * lds.go buildInboundListeners for a proxyless gRPC server listening on `address:port` (the name its
 * bootstrap's server listener template gives), STRICT mTLS: one filter chain `inbound-mtls` whose
 * HttpConnectionManager has the inline route config `inbound` (every path, non-forwarding action)
 * and the router filter, and whose transport socket is the DownstreamTlsContext above.
 */
export function grpcInboundListener(address: string, port: number): { name: string; any: AnyValue } {
  const name = `${SERVER_LISTENER_PREFIX}${address}:${port}`;
  const hcm = any(HCM, {
    route_config: {
      name: "inbound",
      virtual_hosts: [{ domains: ["*"], routes: [{ match: { prefix: "/" }, non_forwarding_action: {} }] }],
    },
    http_filters: [{ name: "envoy.filters.http.router", typed_config: any(ROUTER, {}) }],
  });
  return {
    name,
    any: {
      typeUrl: LISTENER_TYPE,
      value: encode("envoy.config.listener.v3.Listener", {
        name,
        address: { socket_address: { address, port_value: port } },
        filter_chains: [
          {
            name: "inbound-mtls",
            filters: [{ name: "inbound-hcmmtls", typed_config: hcm }],
            transport_socket: {
              name: "envoy.transport_sockets.tls",
              typed_config: { type_url: `type.googleapis.com/${DOWNSTREAM_TLS}`, value: downstreamTlsContext() },
            },
          },
        ],
      }),
    },
  };
}

/** The resources by type URL, each as the `Any` a DiscoveryResponse carries, with its name. */
export function grpcServiceResources(svc: GrpcService): Record<string, { name: string; any: AnyValue }> {
  const listener = `${svc.host}:${svc.port}`;
  const cluster = `outbound|${svc.port}||${svc.host}`;
  const ads = { ads: {}, resource_api_version: "V3" };
  const out: Record<string, { name: string; any: AnyValue }> = {};
  const put = (typeUrl: string, fullName: string, name: string, object: Record<string, unknown>) => {
    out[typeUrl] = { name, any: { typeUrl, value: encode(fullName, object) } };
  };
  put(LISTENER_TYPE, "envoy.config.listener.v3.Listener", listener, {
    name: listener,
    api_listener: {
      api_listener: any(HCM, {
        rds: { config_source: ads, route_config_name: listener },
        http_filters: [{ name: "envoy.filters.http.router", typed_config: any(ROUTER, {}) }],
      }),
    },
  });
  put(ROUTE_TYPE, "envoy.config.route.v3.RouteConfiguration", listener, {
    name: listener,
    virtual_hosts: [
      { name: listener, domains: [svc.host, listener], routes: [{ match: { prefix: "" }, route: { cluster } }] },
    ],
  });
  put(CLUSTER_TYPE, "envoy.config.cluster.v3.Cluster", cluster, {
    name: cluster,
    type: "EDS",
    eds_cluster_config: { eds_config: ads, service_name: cluster },
    lb_policy: "ROUND_ROBIN",
    ...(svc.istioMutualSans && {
      transport_socket: {
        name: "envoy.transport_sockets.tls",
        typed_config: {
          type_url: `type.googleapis.com/${UPSTREAM_TLS}`,
          value: upstreamTlsContext(svc.istioMutualSans),
        },
      },
    }),
  });
  put(ENDPOINT_TYPE, "envoy.config.endpoint.v3.ClusterLoadAssignment", cluster, {
    cluster_name: cluster,
    endpoints: [
      {
        locality: { region: "local" },
        load_balancing_weight: { value: 1 },
        lb_endpoints: [
          {
            endpoint: {
              address: { socket_address: { address: svc.endpoint.address, port_value: svc.endpoint.port } },
            },
            load_balancing_weight: { value: 1 },
          },
        ],
      },
    ],
  });
  return out;
}
