/**
 * An ADS client standing in for Envoy: @grpc/grpc-js on the proxy's Unix socket (or any address),
 * SotW or delta, collecting responses and the stream's final status; it can stop reading to play a
 * slow Envoy. Like the fake istiod it encodes and decodes with protoc's descriptors and
 * @bufbuild/protobuf, not with the proxy's proto loader.
 */

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type ChannelCredentials,
  Client,
  type ClientDuplexStream,
  credentials,
  type StatusObject,
} from "@grpc/grpc-js";
import { istiodMessage } from "./istiod-protos.js";

type Message = Record<string, unknown>;

export interface AdsTestClient {
  call: ClientDuplexStream<Message, Message>;
  responses: Message[];
  /** The stream's status once it has ended. */
  status: StatusObject | undefined;
  send(request: Message): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves with the status when the stream ends (rejects after `timeoutMs`). */
  ended(timeoutMs?: number): Promise<StatusObject>;
  close(): void;
}

export function adsClient(
  target: string,
  mode: "sotw" | "delta" = "sotw",
  channelCredentials: ChannelCredentials = credentials.createInsecure(),
  channelOptions: Record<string, string | number> = {},
): AdsTestClient {
  const client = new Client(target, channelCredentials, {
    "grpc.max_receive_message_length": 64 << 20,
    ...channelOptions,
  });
  const [method, request, response] =
    mode === "sotw"
      ? ["StreamAggregatedResources", "DiscoveryRequest", "DiscoveryResponse"]
      : ["DeltaAggregatedResources", "DeltaDiscoveryRequest", "DeltaDiscoveryResponse"];
  const req = istiodMessage(`envoy.service.discovery.v3.${request}`);
  const res = istiodMessage(`envoy.service.discovery.v3.${response}`);
  const call = client.makeBidiStreamRequest<Message, Message>(
    `/envoy.service.discovery.v3.AggregatedDiscoveryService/${method}`,
    (m) => Buffer.from(toBinary(req, create(req, m as never))),
    (b) => fromBinary(res, b) as unknown as Message,
  );
  const responses: Message[] = [];
  const test: AdsTestClient = {
    call,
    responses,
    status: undefined,
    send: (m) => call.write(m),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (responses.length < count) {
        if (Date.now() > deadline)
          throw new Error(`ADS client: ${responses.length}/${count} responses after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async ended(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!test.status) {
        if (Date.now() > deadline) throw new Error(`ADS client: stream still open after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return test.status;
    },
    close() {
      call.cancel();
      client.close();
    },
  };
  call.on("data", (r: Message) => responses.push(r));
  call.on("status", (s: StatusObject) => {
    test.status = s;
  });
  call.on("error", () => {});
  return test;
}
