/**
 * The protos the agent's gRPC servers and clients speak, loaded once from protos.json (the types the
 * agent uses, written from the .proto files of ./proto-files.ts by scripts/agent-protos.ts) with
 * protobufjs's reflection (its light build: no .proto parser). `serviceClient` gives a service's client
 * constructor for @grpc/grpc-js (its `.service` is the definition servers add); `messageType` encodes
 * and decodes the payloads that travel inside `google.protobuf.Any` (the SDS Secret, the NDS
 * NameTable, the PCDS ProxyConfig).
 *
 * Messages look as @grpc/proto-loader made them with the options the agent gave it (keepCase false,
 * longs and enums as strings, defaults, oneofs): camelCase fields, 64-bit integers as strings; a
 * request is built with `fromObject` and encoded, a response decoded and turned into such an object.
 */
import { readFileSync } from "node:fs";
import { makeClientConstructor, type ServiceClientConstructor, type ServiceDefinition } from "@grpc/grpc-js";
import protobuf from "protobufjs/light.js";

export const SECRET_TYPE_URL = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret";
export const NAME_TABLE_TYPE_URL = "type.googleapis.com/istio.networking.nds.v1.NameTable";

/** How decoded messages look (proto-loader's toObject options as the agent set them). */
const OBJECT_OPTIONS: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };

let root: protobuf.Root | undefined;

function protoRoot(): protobuf.Root {
  root ??= protobuf.Root.fromJSON(JSON.parse(readFileSync(new URL("./protos.json", import.meta.url), "utf8")));
  return root;
}

/** A message type by full name, for encoding and decoding `Any` payloads. */
export function messageType(fullName: string): protobuf.Type {
  return protoRoot().lookupType(fullName);
}

function serializer(type: protobuf.Type): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value))
      throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    return type.encode(type.fromObject(value)).finish() as Buffer;
  };
}

/**
 * Decodes from a plain Uint8Array view of gRPC's Buffer: protobufjs reads a Node Buffer with a reader
 * that cuts a string running past the end short instead of failing; the plain reader fails, as Go's
 * proto.Unmarshal does (and the server answers the frame as malformed).
 */
function deserializer(type: protobuf.Type): (bytes: Buffer) => object {
  return (bytes) =>
    type.toObject(type.decode(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)), OBJECT_OPTIONS);
}

const clients = new Map<string, ServiceClientConstructor>();

/** A service's client constructor (which also carries its `.service` definition) by full name. */
export function serviceClient(fullName: string): ServiceClientConstructor {
  const known = clients.get(fullName);
  if (known) return known;
  let service: protobuf.Service;
  try {
    service = protoRoot().lookupService(fullName);
  } catch {
    throw new Error(`proto service ${fullName} not found`);
  }
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const request = method.resolvedRequestType as protobuf.Type;
    const response = method.resolvedResponseType as protobuf.Type;
    definition[method.name] = {
      path: `/${fullName}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: serializer(request),
      requestDeserialize: deserializer(request),
      responseSerialize: serializer(response),
      responseDeserialize: deserializer(response),
      // proto-loader's alias: `streamAggregatedResources` beside `StreamAggregatedResources`.
      originalName: method.name.charAt(0).toLowerCase() + method.name.slice(1),
    };
  }
  const client = makeClientConstructor(definition, fullName);
  clients.set(fullName, client);
  return client;
}
