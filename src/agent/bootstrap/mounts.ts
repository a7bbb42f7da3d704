/**
 * Whether a file pilot-agent reads exists in its container, judged from the pod spec: a volume
 * mounted over the path (the longest mountPath that covers it) that holds the file. A downwardAPI
 * volume holds only its listed items; a ConfigMap volume with `items` only those; other volumes
 * are assumed to hold it. Relative paths are taken from the container's workingDir (`/` when unset,
 * as in the proxy image).
 */

import { isRecord } from "../../go/json.js";
import { cleanPath } from "../../go/path.js";
import type { Container, Json } from "../../inject/pod.js";

export interface MountedFile {
  /** The volume that holds the file. */
  volume: string;
  /** The file's absolute path in the container. */
  path: string;
}

/** POSIX path.resolve from an absolute `base` (no process working directory: a container's is `/`). */
function resolvePath(base: string, path: string): string {
  return cleanPath(path.startsWith("/") ? path : `/${base}/${path}`);
}

/** POSIX path.normalize: cleaned, keeping a trailing slash. */
function normalizePath(p: string): string {
  const clean = cleanPath(p);
  return p.endsWith("/") && clean !== "/" ? `${clean}/` : clean;
}

/** POSIX path.join: the non-empty parts joined and normalized ("." when all are empty). */
function joinPath(...parts: string[]): string {
  const joined = parts.filter((p) => p !== "").join("/");
  return joined === "" ? "." : normalizePath(joined);
}

/** path.relative(dir, file) for a `file` at or below the cleaned absolute `dir`. */
function relativeBelow(dir: string, file: string): string {
  if (file === dir) return "";
  return file.slice(dir === "/" ? 1 : dir.length + 1);
}

function itemPaths(source: Json): string[] | undefined {
  if (!Array.isArray(source.items)) return undefined;
  return source.items.filter(isRecord).map((item) => String(item.path ?? ""));
}

/** The volume holding `path` in the container, or undefined when nothing is mounted there. */
export function mountedFile(container: Container, volumes: readonly Json[], path: string): MountedFile | undefined {
  const cwd = typeof container.workingDir === "string" && container.workingDir !== "" ? container.workingDir : "/";
  const file = resolvePath(cwd, path);
  let best: { mountPath: string; name: string; subPath: string } | undefined;
  for (const m of Array.isArray(container.volumeMounts) ? container.volumeMounts : []) {
    if (!isRecord(m) || typeof m.mountPath !== "string" || typeof m.name !== "string") continue;
    const mountPath = resolvePath("/", m.mountPath);
    const covers = file === mountPath || file.startsWith(mountPath === "/" ? "/" : `${mountPath}/`);
    if (covers && (best === undefined || mountPath.length > best.mountPath.length)) {
      best = { mountPath, name: m.name, subPath: typeof m.subPath === "string" ? m.subPath : "" };
    }
  }
  if (best === undefined) return undefined;
  const volume = volumes.find((v) => v.name === best.name);
  if (volume === undefined) return undefined;
  const rel = joinPath(best.subPath, relativeBelow(best.mountPath, file));
  const restricted = isRecord(volume.downwardAPI)
    ? (itemPaths(volume.downwardAPI) ?? [])
    : isRecord(volume.configMap)
      ? itemPaths(volume.configMap)
      : undefined;
  if (restricted !== undefined && !restricted.some((p) => normalizePath(p) === rel)) return undefined;
  return { volume: best.name, path: file };
}
