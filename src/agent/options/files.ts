/**
 * The agent's I/O edge for its start: the files pilot-agent reads, under a root folder (`/` in a
 * pod; a temporary folder in tests) — the mesh config, the pod's downward-API annotations and
 * labels, the credential sockets — and the host's addresses for when INSTANCE_IP is unset.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { networkInterfaces } from "node:os";
import { isAbsolute, join } from "node:path";
import { type AgentFiles, POD_ANNOTATIONS_FILE, POD_LABELS_FILE } from "../plan.js";

/** A path as pilot-agent sees it (relative ones from `/`), under `root`. */
export function underRoot(root: string, path: string): string {
  return join(root, isAbsolute(path) ? path.slice(1) : path);
}

/** A file the agent reads that exists but cannot be read (a folder in its place, no permission). */
export class AgentFileError extends Error {
  override name = "AgentFileError";
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new AgentFileError(`cannot read ${path}: ${(e as Error).message}`);
  }
}

const CREDENTIAL_SOCKET = "./var/run/secrets/credential-uds/socket";
const FILE_CREDENTIAL_SOCKET = "./var/run/secrets/credential-uds/files-socket";

export async function readAgentFiles(root: string, meshConfigPath: string): Promise<AgentFiles> {
  return {
    meshConfig: await readIfPresent(underRoot(root, meshConfigPath)),
    annotations: await readIfPresent(underRoot(root, POD_ANNOTATIONS_FILE)),
    labels: await readIfPresent(underRoot(root, POD_LABELS_FILE)),
    credentialSocketExists: existsSync(underRoot(root, CREDENTIAL_SOCKET)),
    customCredentialsFileExists: existsSync(underRoot(root, FILE_CREDENTIAL_SOCKET)),
  };
}

/** The addresses of the host's non-loopback interfaces, in interface order (planAgent filters them as GetPrivateIPs). */
export function hostIPs(): string[] {
  const out: string[] = [];
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (!a.internal) out.push(a.address);
  }
  return out;
}

/** Every interface's addresses, by name (for traffic.sidecar.istio.io/excludeInterfaces). */
export function interfaceAddresses(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, addrs] of Object.entries(networkInterfaces())) out[name] = (addrs ?? []).map((a) => a.address);
  return out;
}

export { readIfPresent };
