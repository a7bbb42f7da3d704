/**
 * What the XDS proxy remembers of one Envoy stream so that it can re-send it to a new istiod
 * connection: for state-of-the-world ADS the last request of each type (with its resource names and
 * the version Envoy holds, nonce and error dropped as on a fresh stream); for delta ADS each type's
 * subscriptions and the versions Envoy has received, sent as `initial_resource_versions`. The
 * Envoy node goes on the first re-sent request, as istiod expects it there.
 */
import { NAME_TABLE_TYPE_URL } from "../protos.js";

export type Message = Record<string, unknown>;

export interface StreamState {
  remember(request: Message): void;
  sawResponse(response: Message): void;
  /** The requests that bring a new upstream stream to where the old one was. */
  replay(): Message[];
  /** The proxy's own subscription to the name table. */
  ndsRequest(): Message;
  ndsAck(response: Message): Message;
  /** The NameTable payloads of a response. */
  ndsPayloads(response: Message): Uint8Array[];
}

function withNode(requests: Message[], node: unknown): Message[] {
  const first = requests[0];
  if (first && node !== undefined) requests[0] = { ...first, node };
  return requests;
}

export function sotwState(): StreamState {
  const last = new Map<string, Message>();
  let node: unknown;
  return {
    remember(request) {
      if (node === undefined && request.node) node = request.node;
      last.set(String(request.typeUrl ?? ""), request);
    },
    sawResponse() {},
    replay() {
      const requests = [...last.values()].map((r) => {
        const { node: _node, responseNonce: _nonce, errorDetail: _error, ...rest } = r;
        return rest;
      });
      return withNode(requests, node);
    },
    ndsRequest: () => ({ typeUrl: NAME_TABLE_TYPE_URL }),
    ndsAck: (response) => ({
      typeUrl: NAME_TABLE_TYPE_URL,
      versionInfo: response.versionInfo,
      responseNonce: response.nonce,
    }),
    ndsPayloads: (response) =>
      ((response.resources as { value?: Uint8Array }[] | undefined) ?? []).map((r) => r.value ?? new Uint8Array()),
  };
}

interface DeltaType {
  subscribed: Set<string>;
  versions: Map<string, string>;
}

export function deltaState(): StreamState {
  const types = new Map<string, DeltaType>();
  let node: unknown;
  const typeOf = (typeUrl: unknown): DeltaType => {
    const key = String(typeUrl ?? "");
    let t = types.get(key);
    if (!t) {
      t = { subscribed: new Set(), versions: new Map() };
      types.set(key, t);
    }
    return t;
  };
  return {
    remember(request) {
      if (node === undefined && request.node) node = request.node;
      const t = typeOf(request.typeUrl);
      for (const name of (request.resourceNamesSubscribe as string[] | undefined) ?? []) t.subscribed.add(name);
      for (const name of (request.resourceNamesUnsubscribe as string[] | undefined) ?? []) {
        t.subscribed.delete(name);
        t.versions.delete(name);
      }
    },
    sawResponse(response) {
      const t = typeOf(response.typeUrl);
      for (const r of (response.resources as { name?: string; version?: string }[] | undefined) ?? [])
        if (r.name) t.versions.set(r.name, r.version ?? "");
      for (const name of (response.removedResources as string[] | undefined) ?? []) t.versions.delete(name);
    },
    replay() {
      const requests: Message[] = [...types.entries()].map(([typeUrl, t]) => ({
        typeUrl,
        resourceNamesSubscribe: [...t.subscribed],
        initialResourceVersions: Object.fromEntries(t.versions),
      }));
      return withNode(requests, node);
    },
    ndsRequest: () => ({ typeUrl: NAME_TABLE_TYPE_URL }),
    ndsAck: (response) => ({ typeUrl: NAME_TABLE_TYPE_URL, responseNonce: response.nonce }),
    ndsPayloads: (response) =>
      ((response.resources as { resource?: { value?: Uint8Array } }[] | undefined) ?? []).map(
        (r) => r.resource?.value ?? new Uint8Array(),
      ),
  };
}
