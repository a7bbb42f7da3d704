/**
 * The protos the agent's gRPC servers speak, loaded once: Envoy's discovery and secret services (from
 * the Envoy API tree that ships inside `@grpc/grpc-js-xds`), and Istio's certificate service and name
 * table (vendored beside their users, `sds/proto/ca.proto` and `xds/proto/nds.proto`). `grpcObject`
 * gives the service definitions for @grpc/grpc-js; `messages` encodes and decodes the payloads that
 * travel inside `google.protobuf.Any` (the SDS Secret, the NDS NameTable).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type GrpcObject, loadPackageDefinition, type ServiceClientConstructor } from "@grpc/grpc-js";
import { loadSync, type Options } from "@grpc/proto-loader";
import protobuf from "protobufjs";

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

const FILES = [
  "envoy/service/discovery/v3/ads.proto",
  "envoy/service/secret/v3/sds.proto",
  "envoy/extensions/transport_sockets/tls/v3/secret.proto",
  "ca.proto",
  "nds.proto",
];

export const SECRET_TYPE_URL = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret";
export const NAME_TABLE_TYPE_URL = "type.googleapis.com/istio.networking.nds.v1.NameTable";

/** How messages look in JS on both sides of every call: camelCase fields, 64-bit ints as strings. */
const LOADER_OPTIONS: Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: INCLUDE_DIRS,
};

let cached: GrpcObject | undefined;

/** The service tree (`envoy.service.discovery.v3.AggregatedDiscoveryService`, …). */
export function grpcObject(): GrpcObject {
  cached ??= loadPackageDefinition(loadSync(FILES, LOADER_OPTIONS));
  return cached;
}

/** A service's client constructor (which also carries its `.service` definition) by full name. */
export function serviceClient(fullName: string): ServiceClientConstructor {
  let node: unknown = grpcObject();
  for (const part of fullName.split(".")) node = (node as Record<string, unknown>)[part];
  if (typeof node !== "function") throw new Error(`proto service ${fullName} not found`);
  return node as ServiceClientConstructor;
}

let root: protobuf.Root | undefined;

function messageRoot(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => {
    for (const dir of INCLUDE_DIRS) {
      const candidate = join(dir, target);
      if (existsSync(candidate)) return candidate;
    }
    return target;
  };
  r.loadSync(["envoy/extensions/transport_sockets/tls/v3/secret.proto", "nds.proto"], { keepCase: false });
  root = r;
  return r;
}

/** A message type by full name, for encoding and decoding `Any` payloads. */
export function messageType(fullName: string): protobuf.Type {
  return messageRoot().lookupType(fullName);
}
