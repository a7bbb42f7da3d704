/**
 * What the XDS proxy reads and writes itself on the two ADS flavours, on the wire: Envoy's requests
 * and istiod's responses pass through as the bytes received, and the proxy reads only their envelope
 * (the type URL; a response's version and nonce) with protobufjs and the reduced messages below,
 * which skip every other field unread — resources are never decoded, however large the push. Only
 * for the types the agent takes (NDS, PCDS) is the first resource's payload decoded: `resources[0]`'s
 * `Any` for state-of-the-world, `resources[0].resource` for delta. The agent's own requests (its first
 * NDS/PCDS requests, health, ACK/NACK) are encoded here as Istio's handleUpstreamResponse and
 * handleUpstreamDeltaResponse build them (state-of-the-world echoes the version; delta has none).
 * Malformed wire is a one-line error.
 */
import protobuf from "protobufjs/light.js";

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

/** A `google.protobuf.Any`. */
export interface AnyResource {
  typeUrl: string;
  value: Uint8Array;
}

/**
 * anypb's UnmarshalTo check (Any.MessageIs): the type URL names the message `fullName`, after its
 * last "/"; otherwise Go's error text, which the agent's NACK carries.
 */
export function checkAnyType(any: AnyResource, fullName: string): void {
  const url = any.typeUrl;
  if (url.endsWith(fullName) && (url.length === fullName.length || url[url.length - fullName.length - 1] === "/"))
    return;
  const name = url.slice(url.lastIndexOf("/") + 1);
  const valid = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(name);
  throw new Error(`proto: mismatched message type: got "${fullName}", want "${valid ? name : ""}"`);
}

export interface StreamShapes {
  /** The type URL of one of Envoy's requests (throws on malformed wire). */
  requestType(bytes: Uint8Array): string;
  /** A response's envelope (throws on malformed wire). */
  response(bytes: Uint8Array): ResponseEnvelope;
  /** The first resource (its `Any`), or undefined for a response without resources (throws on malformed wire). */
  firstResource(bytes: Uint8Array): AnyResource | undefined;
  /** The ACK (no error) or NACK (`errorDetail`) for a response the agent took. */
  ack(response: ResponseEnvelope, error?: { code: number; message: string }): AgentRequest;
  encode(request: AgentRequest): Buffer;
}

const field = (id: number, type = "string", rule?: "repeated") => ({ id, type, ...(rule ? { rule } : {}) });

/**
 * Envoy's envoy/service/discovery/v3/discovery.proto reduced to what the proxy reads and writes itself,
 * as protobufjs reflection JSON (its light build: nothing is parsed at run time). Field numbers are
 * Envoy's; the `*Envelope` messages name only the envelope, so every other field, the resources
 * included, is skipped unread; the resources are decoded only for the types the agent takes (NDS,
 * PCDS). google.rpc.Status's two fields as `Status`.
 */
const ENVELOPE = protobuf.Root.fromJSON({
  nested: {
    google: { nested: { protobuf: { nested: { Any: { fields: { typeUrl: field(1), value: field(2, "bytes") } } } } } },
    envelope: {
      nested: {
        DiscoveryRequestEnvelope: { fields: { typeUrl: field(4) } },
        DeltaDiscoveryRequestEnvelope: { fields: { typeUrl: field(2) } },
        DiscoveryResponseEnvelope: { fields: { versionInfo: field(1), typeUrl: field(4), nonce: field(5) } },
        DeltaDiscoveryResponseEnvelope: { fields: { typeUrl: field(4), nonce: field(5) } },
        DiscoveryResponse: { fields: { resources: field(2, "google.protobuf.Any", "repeated") } },
        Resource: { fields: { resource: field(2, "google.protobuf.Any") } },
        DeltaDiscoveryResponse: { fields: { resources: field(2, "Resource", "repeated") } },
        Status: { fields: { code: field(1, "int32"), message: field(2) } },
        DiscoveryRequest: {
          fields: {
            versionInfo: field(1),
            typeUrl: field(4),
            responseNonce: field(5),
            errorDetail: field(6, "Status"),
          },
        },
        DeltaDiscoveryRequest: {
          fields: { typeUrl: field(2), responseNonce: field(6), errorDetail: field(7, "Status") },
        },
      },
    },
  },
});

const type = (name: string): protobuf.Type => ENVELOPE.lookupType(`envelope.${name}`);

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
  typeUrl?: string;
  value?: Uint8Array;
}

const anyResource = (any: Any): AnyResource => ({ typeUrl: any.typeUrl ?? "", value: any.value ?? new Uint8Array() });

const sotw: StreamShapes = {
  requestType: (bytes) => decode<{ typeUrl: string }>("DiscoveryRequestEnvelope", bytes).typeUrl,
  response(bytes) {
    const m = decode<ResponseEnvelope>("DiscoveryResponseEnvelope", bytes);
    return { typeUrl: m.typeUrl, versionInfo: m.versionInfo, nonce: m.nonce };
  },
  firstResource(bytes) {
    const first = decode<{ resources: Any[] }>("DiscoveryResponse", bytes).resources[0];
    return first ? anyResource(first) : undefined;
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
  firstResource(bytes) {
    const first = decode<{ resources: { resource?: Any }[] }>("DeltaDiscoveryResponse", bytes).resources[0];
    return first ? anyResource(first.resource ?? {}) : undefined;
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
