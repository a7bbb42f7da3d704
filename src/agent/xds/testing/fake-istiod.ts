/**
 * A fake istiod of ours (the real one cannot run here): the ADS service, SotW and delta, over real
 * TLS on loopback. It records every request with its headers, and the test pushes responses to the
 * open streams, honouring write backpressure so a blocked reader shows up as pushes not yet written.
 */
import { Server, ServerCredentials, type ServerDuplexStream } from "@grpc/grpc-js";
import { serviceClient } from "../../protos.js";
import type { TestCa } from "../../testing/pki.js";

type Message = Record<string, unknown>;

export interface IstiodStream {
  kind: "sotw" | "delta";
  requests: Message[];
  authorization: string | undefined;
  clusterId: string | undefined;
  call: ServerDuplexStream<Message, Message>;
  /** Writes one response, resolving when the stream takes more (backpressure). */
  push(response: Message): Promise<void>;
}

export interface FakeIstiod {
  address: string;
  port: number;
  streams: IstiodStream[];
  /** Called on each request (after it is recorded). */
  onRequest?: (stream: IstiodStream, request: Message) => void;
  close(): Promise<void>;
}

export async function startFakeIstiod(pki: TestCa, port = 0): Promise<FakeIstiod> {
  const server = new Server({ "grpc.max_receive_message_length": 64 << 20 });
  const fake: FakeIstiod = {
    address: "",
    port: 0,
    streams: [],
    close: async () => server.forceShutdown(),
  };
  const handler = (kind: "sotw" | "delta") => (call: ServerDuplexStream<Message, Message>) => {
    const stream: IstiodStream = {
      kind,
      requests: [],
      authorization: call.metadata.get("authorization")[0]?.toString(),
      clusterId: call.metadata.get("clusterid")[0]?.toString(),
      call,
      push: (response) =>
        new Promise((resolve) => {
          if (call.write(response)) resolve();
          else call.once("drain", () => resolve());
        }),
    };
    fake.streams.push(stream);
    call.on("data", (request: Message) => {
      stream.requests.push(request);
      fake.onRequest?.(stream, request);
    });
    call.on("error", () => {});
    call.on("end", () => call.end());
  };
  server.addService(serviceClient("envoy.service.discovery.v3.AggregatedDiscoveryService").service, {
    StreamAggregatedResources: handler("sotw"),
    DeltaAggregatedResources: handler("delta"),
  });
  const creds = ServerCredentials.createSsl(null, [
    { cert_chain: Buffer.from(pki.serving.certPem), private_key: Buffer.from(pki.serving.keyPem) },
  ]);
  fake.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, creds, (error, p) => (error ? reject(error) : resolve(p))),
  );
  fake.address = `127.0.0.1:${fake.port}`;
  return fake;
}
