/**
 * What the XDS proxy reads and writes itself on the two ADS flavours, on the wire: Envoy's requests
 * and istiod's responses pass through as the bytes received, and the proxy reads only their envelope
 * (the type URL; a response's version and nonce) with protobufjs and ./proto/discovery-envelope.proto,
 * which skips every other field unread — resources are never decoded, however large the push. Only
 * for the types the agent takes (NDS, PCDS) is the first resource's payload decoded: `resources[0]`'s
 * `Any` for state-of-the-world, `resources[0].resource` for delta. The agent's own requests (its first
 * NDS/PCDS requests, health, ACK/NACK) are encoded here as Istio's handleUpstreamResponse and
 * handleUpstreamDeltaResponse build them (state-of-the-world echoes the version; delta has none).
 * Malformed wire is a one-line error.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

export type StreamKind = "sotw" | "delta";

/** A response's envelope. */
export interface ResponseEnvelope {
  typeUrl: string;
  versionInfo: string;
  nonce: string;
}

/** A request of the agent's own. */
export interface AgentRequest {
  typeUrl: string;
  versionInfo?: string;
  responseNonce?: string;
  errorDetail?: { code: number; message: string };
}

export interface StreamShapes {
  /** The type URL of one of Envoy's requests (throws on malformed wire). */
  requestType(bytes: Uint8Array): string;
  /** A response's envelope (throws on malformed wire). */
  response(bytes: Uint8Array): ResponseEnvelope;
  /** The first resource's payload bytes, or undefined for a response without resources (throws on malformed wire). */
  firstPayload(bytes: Uint8Array): Uint8Array | undefined;
  /** The ACK (no error) or NACK (`errorDetail`) for a response the agent took. */
  ack(response: ResponseEnvelope, error?: { code: number; message: string }): AgentRequest;
  encode(request: AgentRequest): Buffer;
}

const here = dirname(fileURLToPath(import.meta.url));
let root: protobuf.Root | undefined;
const types = new Map<string, protobuf.Type>();

function type(name: string): protobuf.Type {
  let t = types.get(name);
  if (!t) {
    root ??= protobuf.loadSync(join(here, "proto", "discovery-envelope.proto"));
    t = root.lookupType(`envoy.service.discovery.v3.${name}`);
    types.set(name, t);
  }
  return t;
}

function decode<T>(name: string, bytes: Uint8Array): T {
  try {
    // As a plain Uint8Array: protobufjs reads a Node Buffer with a reader that cuts a string running
    // past the end short instead of failing; the plain reader fails, as Go's proto.Unmarshal does.
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return type(name).decode(view) as unknown as T;
  } catch (error) {
    throw new Error(`undecodable ${name.replace(/Envelope$/, "")} (${(error as Error).message})`);
  }
}

function encode(name: string, request: AgentRequest): Buffer {
  const t = type(name);
  const w = t.encode(t.fromObject(request));
  return Buffer.from(w.finish());
}

interface Any {
  value?: Uint8Array;
}

const sotw: StreamShapes = {
  requestType: (bytes) => decode<{ typeUrl: string }>("DiscoveryRequestEnvelope", bytes).typeUrl,
  response(bytes) {
    const m = decode<ResponseEnvelope>("DiscoveryResponseEnvelope", bytes);
    return { typeUrl: m.typeUrl, versionInfo: m.versionInfo, nonce: m.nonce };
  },
  firstPayload(bytes) {
    const first = decode<{ resources: Any[] }>("DiscoveryResponse", bytes).resources[0];
    return first ? (first.value ?? new Uint8Array()) : undefined;
  },
  ack: (response, error) => ({
    versionInfo: response.versionInfo,
    typeUrl: response.typeUrl,
    responseNonce: response.nonce,
    ...(error ? { errorDetail: error } : {}),
  }),
  encode: (request) => encode("DiscoveryRequest", request),
};

const delta: StreamShapes = {
  requestType: (bytes) => decode<{ typeUrl: string }>("DeltaDiscoveryRequestEnvelope", bytes).typeUrl,
  response(bytes) {
    const m = decode<ResponseEnvelope>("DeltaDiscoveryResponseEnvelope", bytes);
    return { typeUrl: m.typeUrl, versionInfo: "", nonce: m.nonce };
  },
  firstPayload(bytes) {
    const first = decode<{ resources: { resource?: Any }[] }>("DeltaDiscoveryResponse", bytes).resources[0];
    return first ? (first.resource?.value ?? new Uint8Array()) : undefined;
  },
  ack: (response, error) => ({
    typeUrl: response.typeUrl,
    responseNonce: response.nonce,
    ...(error ? { errorDetail: error } : {}),
  }),
  encode: (request) => {
    const { versionInfo: _, ...rest } = request;
    return encode("DeltaDiscoveryRequest", rest);
  },
};

export function streamShapes(kind: StreamKind): StreamShapes {
  return kind === "sotw" ? sotw : delta;
}
