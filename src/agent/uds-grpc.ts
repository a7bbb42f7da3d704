/**
 * A gRPC server bound to a Unix socket that only the agent's user can use, as the sockets Envoy talks
 * to (SDS, XDS) must be: the parent directory is created owner-only when missing, a stale socket from
 * an earlier run is removed, and the socket is set to 0600 before anyone is told it exists.
 */
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { type Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";

export async function bindUnixSocket(server: Server, socketPath: string): Promise<void> {
  mkdirSync(dirname(socketPath), { recursive: true, mode: 0o700 });
  try {
    if (lstatSync(socketPath).isSocket()) unlinkSync(socketPath);
    else throw new Error(`${socketPath} exists and is not a socket`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix:${socketPath}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(new Error(`cannot listen on ${socketPath}: ${error.message}`)) : resolve(),
    ),
  );
  chmodSync(socketPath, 0o600);
}

/** Stops a server: gracefully, then by force after `graceMs`. */
export function shutdown(server: Server, graceMs = 1000): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

/**
 * A service definition whose request decoders report what they cannot decode (`onMalformed`) before
 * grpc-js ends that call with an error; nothing else changes, and the server keeps serving.
 */
export function countingDecoders(
  service: ServiceDefinition,
  onMalformed: (method: string, error: Error) => void,
): ServiceDefinition {
  const counted: Record<string, ServiceDefinition[string]> = {};
  for (const [name, method] of Object.entries(service)) {
    counted[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch (error) {
          onMalformed(name, error as Error);
          throw error;
        }
      },
    };
  }
  return counted;
}
