/**
 * Whether a file pilot-agent reads exists in its container, judged from the pod spec: a volume
 * mounted over the path (the longest mountPath that covers it) that holds the file. A downwardAPI
 * volume holds only its listed items; a ConfigMap volume with `items` only those; other volumes
 * are assumed to hold it. Relative paths are taken from the container's workingDir (`/` when unset,
 * as in the proxy image).
 */
import { posix } from "node:path";
import { isRecord } from "../../go/json.js";
import type { Container, Json } from "../../inject/pod.js";

export interface MountedFile {
  /** The volume that holds the file. */
  volume: string;
  /** The file's absolute path in the container. */
  path: string;
}

function itemPaths(source: Json): string[] | undefined {
  if (!Array.isArray(source.items)) return undefined;
  return source.items.filter(isRecord).map((item) => String(item.path ?? ""));
}

/** The volume holding `path` in the container, or undefined when nothing is mounted there. */
export function mountedFile(container: Container, volumes: readonly Json[], path: string): MountedFile | undefined {
  const cwd = typeof container.workingDir === "string" && container.workingDir !== "" ? container.workingDir : "/";
  const file = posix.resolve(cwd, path);
  let best: { mountPath: string; name: string; subPath: string } | undefined;
  for (const m of Array.isArray(container.volumeMounts) ? container.volumeMounts : []) {
    if (!isRecord(m) || typeof m.mountPath !== "string" || typeof m.name !== "string") continue;
    const mountPath = posix.resolve("/", m.mountPath);
    const covers = file === mountPath || file.startsWith(mountPath === "/" ? "/" : `${mountPath}/`);
    if (covers && (best === undefined || mountPath.length > best.mountPath.length)) {
      best = { mountPath, name: m.name, subPath: typeof m.subPath === "string" ? m.subPath : "" };
    }
  }
  if (best === undefined) return undefined;
  const volume = volumes.find((v) => v.name === best.name);
  if (volume === undefined) return undefined;
  const rel = posix.join(best.subPath, posix.relative(best.mountPath, file));
  const restricted = isRecord(volume.downwardAPI)
    ? (itemPaths(volume.downwardAPI) ?? [])
    : isRecord(volume.configMap)
      ? itemPaths(volume.configMap)
      : undefined;
  if (restricted !== undefined && !restricted.some((p) => posix.normalize(p) === rel)) return undefined;
  return { volume: best.name, path: file };
}
