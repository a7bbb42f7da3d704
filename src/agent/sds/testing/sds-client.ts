/**
 * An SDS client standing in for Envoy: @grpc/grpc-js on the agent's Unix socket, StreamSecrets or
 * DeltaSecrets, ACKing every response and decoding the Secrets it receives.
 */
import { type ClientDuplexStream, credentials } from "@grpc/grpc-js";
import { messageType, serviceClient } from "../../protos.js";

export interface ReceivedSecret {
  name: string;
  certChainPem?: string;
  privateKeyPem?: string;
  rootCertPem?: string;
}

export interface SdsTestClient {
  responses: { version: string; secrets: ReceivedSecret[] }[];
  /** Resolves when `count` responses have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

function decodeSecret(any: { typeUrl: string; value: Buffer }): ReceivedSecret {
  const type = messageType("envoy.extensions.transport_sockets.tls.v3.Secret");
  const s = type.toObject(type.decode(any.value)) as {
    name: string;
    tlsCertificate?: { certificateChain?: { inlineBytes: Uint8Array }; privateKey?: { inlineBytes: Uint8Array } };
    validationContext?: { trustedCa?: { inlineBytes: Uint8Array } };
  };
  const text = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString() : undefined);
  return {
    name: s.name,
    certChainPem: text(s.tlsCertificate?.certificateChain?.inlineBytes),
    privateKeyPem: text(s.tlsCertificate?.privateKey?.inlineBytes),
    rootCertPem: text(s.validationContext?.trustedCa?.inlineBytes),
  };
}

export function sdsClient(socketPath: string, names: string[], mode: "sotw" | "delta" = "sotw"): SdsTestClient {
  const Stub = serviceClient("envoy.service.secret.v3.SecretDiscoveryService");
  const stub = new Stub(`unix:${socketPath}`, credentials.createInsecure()) as unknown as Record<
    string,
    () => ClientDuplexStream<unknown, Record<string, unknown>>
  >;
  const call = (mode === "sotw" ? stub.StreamSecrets : stub.DeltaSecrets)?.call(stub) as ClientDuplexStream<
    unknown,
    Record<string, unknown>
  >;
  const responses: SdsTestClient["responses"] = [];
  const waiters: (() => void)[] = [];
  call.on("data", (response) => {
    if (mode === "sotw") {
      const resources = response.resources as { typeUrl: string; value: Buffer }[];
      responses.push({ version: String(response.versionInfo), secrets: resources.map(decodeSecret) });
      call.write({ versionInfo: response.versionInfo, resourceNames: names, responseNonce: response.nonce });
    } else {
      const resources = response.resources as { resource: { typeUrl: string; value: Buffer } }[];
      responses.push({
        version: String(response.systemVersionInfo),
        secrets: resources.map((r) => decodeSecret(r.resource)),
      });
      call.write({ responseNonce: response.nonce });
    }
    for (const w of waiters.splice(0)) w();
  });
  call.on("error", () => {});
  if (mode === "sotw")
    call.write({ node: { id: "sidecar~10.0.0.1~pod.ns1~ns1.svc.cluster.local" }, resourceNames: names });
  else call.write({ node: { id: "sidecar~10.0.0.1~pod.ns1~ns1.svc.cluster.local" }, resourceNamesSubscribe: names });
  return {
    responses,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (responses.length < count) {
        if (Date.now() > deadline)
          throw new Error(`SDS client: ${responses.length}/${count} responses after ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100).unref();
        });
      }
    },
    close() {
      call.cancel();
      stub.close?.call(stub);
    },
  };
}
