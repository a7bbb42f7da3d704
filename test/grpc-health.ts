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

function healthPackage(): HealthPackage {
  const definition = loadSync(PROTO, { enums: Number, defaults: true });
  return grpc.loadPackageDefinition(definition) as unknown as HealthPackage;
}

function healthDefinition(): grpc.ServiceDefinition {
  return healthPackage().grpc.health.v1.Health.service;
}

type CheckClient = grpc.Client & {
  Check(req: { service: string }, cb: (e: grpc.ServiceError | null, r?: { status: number }) => void): void;
};

/**
 * Health/Check as the kubelet's gRPC probe makes it, with @grpc/grpc-js: a new connection per probe
 * (dial, wait until ready, one call, close); resolves with the serving status.
 */
export function makeHealthChecker(): (port: number, service?: string) => Promise<number> {
  const Health = healthPackage().grpc.health.v1.Health;
  return (port, service = "") =>
    new Promise((resolve, reject) => {
      // A local subchannel pool: no connection is shared with an earlier probe's client.
      const client = new Health(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
      }) as unknown as CheckClient;
      client.Check({ service }, (e, r) => {
        client.close();
        if (e) reject(e);
        else resolve(r?.status ?? 0);
      });
    });
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
