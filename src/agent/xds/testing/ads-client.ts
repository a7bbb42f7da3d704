/**
 * An ADS client standing in for Envoy: @grpc/grpc-js on the proxy's Unix socket (or any address),
 * SotW or delta, collecting responses; it can stop reading to play a slow Envoy.
 */
import { type ClientDuplexStream, credentials } from "@grpc/grpc-js";
import { serviceClient } from "../../protos.js";

type Message = Record<string, unknown>;

export interface AdsTestClient {
  call: ClientDuplexStream<Message, Message>;
  responses: Message[];
  send(request: Message): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function adsClient(
  target: string,
  mode: "sotw" | "delta" = "sotw",
  channelCredentials = credentials.createInsecure(),
  channelOptions: Record<string, string | number> = {},
): AdsTestClient {
  const Stub = serviceClient("envoy.service.discovery.v3.AggregatedDiscoveryService");
  const stub = new Stub(target, channelCredentials, {
    "grpc.max_receive_message_length": 64 << 20,
    ...channelOptions,
  }) as unknown as Record<string, () => ClientDuplexStream<Message, Message>> & { close(): void };
  const method = mode === "sotw" ? "StreamAggregatedResources" : "DeltaAggregatedResources";
  const call = (stub[method] as () => ClientDuplexStream<Message, Message>).call(stub);
  const responses: Message[] = [];
  call.on("data", (r: Message) => responses.push(r));
  call.on("error", () => {});
  return {
    call,
    responses,
    send: (request) => call.write(request),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (responses.length < count) {
        if (Date.now() > deadline)
          throw new Error(`ADS client: ${responses.length}/${count} responses after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close() {
      call.cancel();
      stub.close();
    },
  };
}
