/**
 * Which SDS socket the agent serves (pkg/istio-agent/agent.go `Run`, `checkSocket`,
 * `socketHealthCheck`): WORKLOAD_IDENTITY_SOCKET_FILE names a file under
 * `./var/run/secrets/workload-spiffe-uds` (a name, never a path). A live socket already there
 * (SPIRE's, say) means another server owns workload identity: the agent serves only file
 * certificates, on `./var/run/secrets/credential-uds/files-socket`, with no CA client. A dead socket
 * there is removed. A non-default name with no socket behind it is an error.
 */
import { rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { Client, credentials } from "@grpc/grpc-js";

export const WORKLOAD_IDENTITY_PATH = "var/run/secrets/workload-spiffe-uds";
export const DEFAULT_WORKLOAD_IDENTITY_SOCKET_FILE = "socket";
export const FILE_CREDENTIAL_NAME_SOCKET_PATH = "var/run/secrets/credential-uds/files-socket";

/** socketHealthCheck: a gRPC connection can be made within a second. */
function healthy(path: string): Promise<boolean> {
  const client = new Client(`unix:${path}`, credentials.createInsecure());
  return new Promise((resolve) =>
    client.waitForReady(Date.now() + 1000, (error) => {
      client.close();
      resolve(!error);
    }),
  );
}

/** checkSocket: true when a responsive socket is there; an unresponsive one is removed. */
export async function checkSocket(path: string): Promise<boolean> {
  let isSocketLike: boolean;
  try {
    isSocketLike = !statSync(path).isFile();
  } catch {
    return false;
  }
  if (!isSocketLike) return false;
  if (await healthy(path)) return true;
  try {
    rmSync(path);
  } catch (error) {
    throw new Error(
      `failed to check SDS socket: existing SDS socket could not be removed: ${(error as Error).message}`,
    );
  }
  return false;
}

/** Where our SDS server listens, and whether it serves only file certificates. */
export async function chooseSdsSocket(
  root: string,
  socketFile: string,
): Promise<{ path: string; serveOnlyFiles: boolean }> {
  if (socketFile !== basename(socketFile))
    throw new Error(`workload identity socket file override must be a filename, not a path: ${socketFile}`);
  const configured = join(root, WORKLOAD_IDENTITY_PATH, socketFile);
  const isIstioSds = socketFile === DEFAULT_WORKLOAD_IDENTITY_SOCKET_FILE;
  if (await checkSocket(configured))
    return { path: join(root, FILE_CREDENTIAL_NAME_SOCKET_PATH), serveOnlyFiles: true };
  if (!isIstioSds)
    throw new Error(`agent configured for non-default SDS socket path: ${configured} but no socket found`);
  return { path: join(root, WORKLOAD_IDENTITY_PATH, DEFAULT_WORKLOAD_IDENTITY_SOCKET_FILE), serveOnlyFiles: false };
}
