/**
 * A fake istiod of ours (the real one cannot run here): the ADS service, SotW and delta, over real
 * TLS on loopback (plaintext when no CA is given). Its messages are encoded and decoded by protoc's
 * descriptors and @bufbuild/protobuf (./istiod-protos.ts), not by the proto loader the XDS proxy
 * uses, so a field the proxy drops or mangles shows up here. It records every request with its
 * headers and whether the stream is still open; the test pushes responses to the open streams,
 * honouring write backpressure so a blocked reader shows up as pushes not yet written.
 */

import { create, type DescMessage, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type handleBidiStreamingCall,
  Server,
  ServerCredentials,
  type ServerDuplexStream,
  type ServiceDefinition,
} from "@grpc/grpc-js";
import type { TestCa } from "../../testing/pki.js";
import { istiodMessage } from "./istiod-protos.js";

type Message = Record<string, unknown>;

export interface IstiodStream {
  kind: "sotw" | "delta";
  requests: Message[];
  authorization: string | undefined;
  clusterId: string | undefined;
  /** False once the proxy cancelled or closed the stream, or istiod ended it. */
  open: boolean;
  call: ServerDuplexStream<Message, Message | Buffer>;
  /** Writes one response (or its bytes, encoded beforehand), resolving when the stream takes more (backpressure). */
  push(response: Message | Buffer): Promise<void>;
  /** Ends the stream: with status OK, or with an error code and message. */
  end(error?: { code: number; details: string }): void;
}

export interface FakeIstiod {
  address: string;
  port: number;
  streams: IstiodStream[];
  /** Called on each request (after it is recorded). */
  onRequest?: (stream: IstiodStream, request: Message) => void;
  close(): Promise<void>;
}

const ADS = "/envoy.service.discovery.v3.AggregatedDiscoveryService";

function codec(desc: DescMessage) {
  return {
    // A Buffer is a message encoded beforehand (encodeIstiodMessage): written as it is.
    serialize: (m: Message | Buffer) =>
      Buffer.isBuffer(m) ? m : Buffer.from(toBinary(desc, create(desc, m as never))),
    deserialize: (b: Buffer) => fromBinary(desc, b) as unknown as Message,
  };
}

function method(name: string, request: string, response: string) {
  const req = codec(istiodMessage(request));
  const res = codec(istiodMessage(response));
  return {
    path: `${ADS}/${name}`,
    requestStream: true,
    responseStream: true,
    requestSerialize: req.serialize,
    requestDeserialize: req.deserialize,
    responseSerialize: res.serialize,
    responseDeserialize: res.deserialize,
  };
}

export async function startFakeIstiod(pki: TestCa | undefined, port = 0): Promise<FakeIstiod> {
  const server = new Server({ "grpc.max_receive_message_length": 64 << 20 });
  const fake: FakeIstiod = {
    address: "",
    port: 0,
    streams: [],
    close: async () => server.forceShutdown(),
  };
  const handler = (kind: "sotw" | "delta") => (call: ServerDuplexStream<Message, Message | Buffer>) => {
    const stream: IstiodStream = {
      kind,
      requests: [],
      authorization: call.metadata.get("authorization")[0]?.toString(),
      clusterId: call.metadata.get("clusterid")[0]?.toString(),
      open: true,
      call,
      push: (response) =>
        new Promise((resolve) => {
          if (call.write(response)) resolve();
          else call.once("drain", () => resolve());
        }),
      end(error) {
        stream.open = false;
        if (error) call.emit("error", error);
        else call.end();
      },
    };
    fake.streams.push(stream);
    call.on("data", (request: Message) => {
      stream.requests.push(request);
      fake.onRequest?.(stream, request);
    });
    const closed = () => {
      stream.open = false;
    };
    call.on("cancelled", closed);
    call.on("close", closed);
    call.on("error", closed);
    call.on("end", () => {
      closed();
      call.end();
    });
  };
  const definition: ServiceDefinition = {
    StreamAggregatedResources: method(
      "StreamAggregatedResources",
      "envoy.service.discovery.v3.DiscoveryRequest",
      "envoy.service.discovery.v3.DiscoveryResponse",
    ),
    DeltaAggregatedResources: method(
      "DeltaAggregatedResources",
      "envoy.service.discovery.v3.DeltaDiscoveryRequest",
      "envoy.service.discovery.v3.DeltaDiscoveryResponse",
    ),
  };
  server.addService(definition, {
    StreamAggregatedResources: handler("sotw") as handleBidiStreamingCall<Message, Message | Buffer>,
    DeltaAggregatedResources: handler("delta") as handleBidiStreamingCall<Message, Message | Buffer>,
  });
  const creds = pki
    ? ServerCredentials.createSsl(null, [
        { cert_chain: Buffer.from(pki.serving.certPem), private_key: Buffer.from(pki.serving.keyPem) },
      ])
    : ServerCredentials.createInsecure();
  fake.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, creds, (error, p) => (error ? reject(error) : resolve(p))),
  );
  fake.address = `127.0.0.1:${fake.port}`;
  return fake;
}

/** Encodes a message of the fake's protos (a NameTable, a ProxyConfig) for an `Any`'s value. */
export function encodeIstiodMessage(fullName: string, value: Message): Buffer {
  const desc = istiodMessage(fullName);
  return Buffer.from(toBinary(desc, create(desc, value as never)));
}
