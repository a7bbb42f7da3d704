/**
 * The .proto files behind the agent's protos (src/agent/protos.json, written from them by
 * scripts/agent-protos.ts): Envoy's discovery and secret services (the Envoy API tree that ships inside
 * `@grpc/grpc-js-xds`), and Istio's certificate service, name table and proxy config (vendored beside
 * their users, `sds/proto/ca.proto`, `xds/proto/nds.proto`, `xds/proto/proxy-config.proto`). Read by
 * the generator and by the tests' protoc, never by the running agent.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const xdsDeps = join(dirname(createRequire(import.meta.url).resolve("@grpc/grpc-js-xds/package.json")), "deps");

/** Where the imports of the protos below are found. */
export const INCLUDE_DIRS = [
  join(xdsDeps, "envoy-api"),
  join(xdsDeps, "xds"),
  join(xdsDeps, "googleapis"),
  join(xdsDeps, "protoc-gen-validate"),
  join(here, "sds", "proto"),
  join(here, "xds", "proto"),
];

export const PROTO_FILES = [
  "envoy/service/discovery/v3/ads.proto",
  "envoy/service/secret/v3/sds.proto",
  "envoy/extensions/transport_sockets/tls/v3/secret.proto",
  "ca.proto",
  "nds.proto",
  "proxy-config.proto",
];

/** What the agent speaks: its gRPC services and the messages it reads from or writes into an `Any`. */
export const AGENT_PROTO_ROOTS = [
  "envoy.service.discovery.v3.AggregatedDiscoveryService",
  "envoy.service.secret.v3.SecretDiscoveryService",
  "istio.v1.auth.IstioCertificateService",
  "envoy.extensions.transport_sockets.tls.v3.Secret",
  "istio.networking.nds.v1.NameTable",
  "istio.mesh.v1alpha1.ProxyConfig",
];
