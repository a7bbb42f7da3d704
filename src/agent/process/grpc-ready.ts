/**
 * The gRPC bootstrap's readiness (pilot-agent's status/grpcready probe): ready once the bootstrap file
 * loads as JSON (remembered from then on), and, when it names a `file_watcher` certificate provider,
 * while its certificate, key and CA files exist. Paths are read under the agent's root.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { underRoot } from "../options/files.js";

type Bootstrap = { certificate_providers?: Record<string, { plugin_name?: unknown; config?: unknown }> };

/** FileWatcherProvider().FilePaths(): the first file_watcher provider's three files. */
function fileWatcherPaths(b: Bootstrap): string[] | undefined {
  for (const provider of Object.values(b.certificate_providers ?? {})) {
    if (provider?.plugin_name !== "file_watcher") continue;
    const c = (provider.config ?? {}) as Record<string, unknown>;
    const text = (k: string) => (typeof c[k] === "string" ? (c[k] as string) : "");
    return [text("certificate_file"), text("private_key_file"), text("ca_certificate_file")];
  }
  return undefined;
}

/** A readiness check for the bootstrap at `shown` (read at `root`/`shown`): undefined when ready. */
export function grpcReadyCheck(root: string, shown: string): () => Promise<string | undefined> {
  let loaded: Bootstrap | undefined;
  return async () => {
    if (loaded === undefined) {
      try {
        const value: unknown = JSON.parse(await readFile(underRoot(root, shown), "utf8"));
        loaded = value !== null && typeof value === "object" ? (value as Bootstrap) : {};
      } catch (e) {
        return `failed loading ${shown}: ${(e as Error).message}`;
      }
    }
    for (const path of fileWatcherPaths(loaded) ?? []) {
      if (!existsSync(underRoot(root, path))) return `${path} does not exist`;
    }
    return undefined;
  };
}
