/**
 * An SDS client standing in for Envoy on the agent's Unix socket, built so that nothing the agent
 * encodes is decoded by the agent's own code: it speaks StreamSecrets with raw frames, its requests
 * are encoded and every response decoded by `protoc` against Envoy's discovery and secret protos.
 * It ACKs each response as Envoy does (same names, the response's version and nonce).
 */
import { Client, credentials } from "@grpc/grpc-js";
import {
  field,
  fields,
  parseTextFormat,
  protocDecode,
  protocEncode,
  SDS_PROTOS,
  type TextMessage,
  textString,
} from "../../testing/protoc.js";

export const SECRET_TYPE = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret";
const NODE_ID = "sidecar~10.0.0.1~pod.ns1~ns1.svc.cluster.local";

export interface ReceivedSecret {
  /** The `type_url` of the Any that carried it, as protoc read it off the wire. */
  typeUrl: string;
  name: string;
  certChainPem?: string;
  privateKeyPem?: string;
  rootCertPem?: string;
  /** `validation_context.crl.filename`. */
  crlFile?: string;
}

export interface ReceivedResponse {
  version: string;
  nonce: string;
  typeUrl: string;
  secrets: ReceivedSecret[];
}

export interface SdsTestClient {
  responses: ReceivedResponse[];
  /** The stream's end: gRPC status code and details, once it ended. */
  status: { code: number; details: string } | undefined;
  /** Resolves when `count` responses have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves with the stream's status once it ends. */
  waitForEnd(timeoutMs?: number): Promise<{ code: number; details: string }>;
  /** Sends a request for other names (an ACK of the last response, or an initial request when none came). */
  request(names: string[]): void;
  close(): void;
}

function text(b: unknown): string | undefined {
  return Buffer.isBuffer(b) ? b.toString("utf8") : undefined;
}

/**
 * One `resources` Any: its `type_url` as read off the wire names the type protoc decodes `value` as
 * (protoc --decode prints an Any unexpanded), so an empty or wrong URL shows as a secret without content.
 */
function readSecret(any: TextMessage): ReceivedSecret {
  const typeUrl = text(field(any, "type_url")) ?? "";
  const value = field(any, "value");
  const type = typeUrl.replace(/^type\.googleapis\.com\//, "");
  if (typeUrl !== SECRET_TYPE || !Buffer.isBuffer(value)) return { typeUrl, name: "" };
  const body = parseTextFormat(protocDecode(type, SDS_PROTOS, value));
  return {
    typeUrl,
    name: text(field(body, "name")) ?? "",
    certChainPem: text(field(body, "tls_certificate.certificate_chain.inline_bytes")),
    privateKeyPem: text(field(body, "tls_certificate.private_key.inline_bytes")),
    rootCertPem: text(field(body, "validation_context.trusted_ca.inline_bytes")),
    crlFile: text(field(body, "validation_context.crl.filename")),
  };
}

export function decodeDiscoveryResponse(bytes: Uint8Array): ReceivedResponse {
  const m = parseTextFormat(protocDecode("envoy.service.discovery.v3.DiscoveryResponse", SDS_PROTOS, bytes));
  return {
    version: text(field(m, "version_info")) ?? "",
    nonce: text(field(m, "nonce")) ?? "",
    typeUrl: text(field(m, "type_url")) ?? "",
    secrets: fields(m, "resources").map((r) => readSecret(r as TextMessage)),
  };
}

export function encodeDiscoveryRequest(r: {
  node?: boolean;
  names: string[];
  version?: string;
  nonce?: string;
  error?: string;
}): Buffer {
  const lines = [
    r.node ? `node { id: ${textString(NODE_ID)} }` : "",
    r.version ? `version_info: ${textString(r.version)}` : "",
    ...r.names.map((n) => `resource_names: ${textString(n)}`),
    `type_url: ${textString(SECRET_TYPE)}`,
    r.nonce ? `response_nonce: ${textString(r.nonce)}` : "",
    r.error ? `error_detail { code: 3 message: ${textString(r.error)} }` : "",
  ];
  return protocEncode("envoy.service.discovery.v3.DiscoveryRequest", SDS_PROTOS, lines.join("\n"));
}

export function sdsClient(socketPath: string, names: string[], options: { ack?: boolean } = {}): SdsTestClient {
  const client = new Client(`unix:${socketPath}`, credentials.createInsecure());
  const call = client.makeBidiStreamRequest(
    "/envoy.service.secret.v3.SecretDiscoveryService/StreamSecrets",
    (b: Buffer) => b,
    (b: Buffer) => b,
  );
  let current = names;
  const responses: ReceivedResponse[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const result: SdsTestClient = {
    responses,
    status: undefined,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (responses.length < count) {
        if (Date.now() > deadline)
          throw new Error(
            `SDS client: ${responses.length}/${count} responses after ${timeoutMs} ms${result.status ? ` (stream ended: ${result.status.details})` : ""}`,
          );
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100).unref();
        });
      }
    },
    async waitForEnd(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!result.status) {
        if (Date.now() > deadline) throw new Error(`SDS client: stream still open after ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100).unref();
        });
      }
      return result.status;
    },
    request(next) {
      current = next;
      const last = responses.at(-1);
      call.write(encodeDiscoveryRequest({ names: next, version: last?.version, nonce: last?.nonce, node: !last }));
    },
    close() {
      call.cancel();
      client.close();
    },
  };
  call.on("data", (bytes: Buffer) => {
    const response = decodeDiscoveryResponse(bytes);
    responses.push(response);
    if (options.ack !== false)
      call.write(encodeDiscoveryRequest({ names: current, version: response.version, nonce: response.nonce }));
    wake();
  });
  call.on("status", (s) => {
    result.status = { code: s.code, details: s.details };
    client.close(); // the stream is over: nothing may keep the test process alive
    wake();
  });
  call.on("error", () => {});
  call.write(encodeDiscoveryRequest({ node: true, names }));
  return result;
}
