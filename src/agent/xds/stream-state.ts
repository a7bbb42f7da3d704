/**
 * What differs between the two ADS flavours where the XDS proxy answers istiod itself: where the
 * payload of a response's first resource is (`resources[0]` is the `Any` for state-of-the-world,
 * `resources[0].resource` for delta), and the ACK/NACK the agent sends for a response it took
 * (state-of-the-world echoes the version; delta has none), as Istio's handleUpstreamResponse and
 * handleUpstreamDeltaResponse build them.
 */
export type Message = Record<string, unknown>;
export type StreamKind = "sotw" | "delta";

export interface StreamShapes {
  /** The first resource's payload bytes, or undefined for a response without resources. */
  firstPayload(response: Message): Uint8Array | undefined;
  /** The ACK (no error) or NACK (`errorDetail`) for a response the agent took. */
  ack(response: Message, error?: { code: number; message: string }): Message;
}

const sotw: StreamShapes = {
  firstPayload(response) {
    const first = (response.resources as { value?: Uint8Array }[] | undefined)?.[0];
    return first ? (first.value ?? new Uint8Array()) : undefined;
  },
  ack: (response, error) => ({
    versionInfo: response.versionInfo,
    typeUrl: response.typeUrl,
    responseNonce: response.nonce,
    ...(error ? { errorDetail: error } : {}),
  }),
};

const delta: StreamShapes = {
  firstPayload(response) {
    const first = (response.resources as { resource?: { value?: Uint8Array } }[] | undefined)?.[0];
    return first ? (first.resource?.value ?? new Uint8Array()) : undefined;
  },
  ack: (response, error) => ({
    typeUrl: response.typeUrl,
    responseNonce: response.nonce,
    ...(error ? { errorDetail: error } : {}),
  }),
};

export function streamShapes(kind: StreamKind): StreamShapes {
  return kind === "sotw" ? sotw : delta;
}
