/**
 * A gRPC health server (grpc.health.v1.Health/Check) for tests of the agent's gRPC probes, built from
 * the protocol's .proto by @grpc/proto-loader (protobufjs): its messages are encoded and decoded by a
 * library we did not write, not by src/agent/probe/grpc-health-codec.ts, the code under test. It answers
 * as grpc-go's health server does: a known service gets its status, an unknown one NOT_FOUND.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

const PROTO = join(dirname(fileURLToPath(import.meta.url)), "testdata", "grpc-health-v1.proto");

/** The ServingStatus values, by name. */
export const SERVING_STATUS_VALUE = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

interface HealthPackage {
  grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
}

function healthDefinition(): grpc.ServiceDefinition {
  const definition = loadSync(PROTO, { enums: Number, defaults: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as HealthPackage;
  return pkg.grpc.health.v1.Health.service;
}

export interface HealthServer {
  port: number;
  /** The peer address of each Check call, as grpc-js reports it (`host:port`, IPv6 in brackets). */
  peers: string[];
  close(): void;
}

/**
 * Serves Health/Check on `hosts` (one port for all; 0 picks one): `statusOf(service)` is the
 * status to answer (read at each call), undefined for NOT_FOUND.
 */
export async function startHealthServer(
  statusOf: (service: string) => number | undefined,
  hosts: readonly string[] = ["127.0.0.1"],
  port = 0,
): Promise<HealthServer> {
  const server = new grpc.Server();
  const peers: string[] = [];
  server.addService(healthDefinition(), {
    Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, cb: grpc.sendUnaryData<{ status: number }>) => {
      peers.push(call.getPeer());
      const status = statusOf(call.request.service);
      if (status === undefined) cb({ code: grpc.status.NOT_FOUND, details: "unknown service" });
      else cb(null, { status });
    },
    Watch: (call: grpc.ServerWritableStream<unknown, unknown>) =>
      call.emit("error", { code: grpc.status.UNIMPLEMENTED, details: "Watch is not served here" }),
  });
  let bound = port;
  for (const host of hosts) {
    const address = host.includes(":") ? `[${host}]:${bound}` : `${host}:${bound}`;
    bound = await new Promise<number>((resolve, reject) =>
      server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  }
  return { port: bound, peers, close: () => server.forceShutdown() };
}
