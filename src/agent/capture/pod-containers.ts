/**
 * What a pod's containers say, read from plain JSON as a manifest gives them: the container lists,
 * a container's string lists (`command`, `args`), its environment and its security ids. Values
 * that only the cluster knows (`valueFrom`, `envFrom`) are left out, with a warning where they matter.
 */
import { type Container, isRecord, type Json } from "../../inject/pod.js";

/** A container field of the wrong type; the message names the container and the field. */
export class ContainerFieldError extends Error {
  override name = "ContainerFieldError";
}

/** The named containers of a pod spec's `containers` or `initContainers` (others cannot be found by name). */
export function containersOf(spec: Json, key: "containers" | "initContainers"): Container[] {
  const list = spec[key];
  return Array.isArray(list) ? list.filter((c): c is Container => isRecord(c) && typeof c.name === "string") : [];
}

/** A container field that must be a list of strings (`args`, `command`); empty when absent. */
export function stringList(container: Container, field: string): string[] {
  const v = container[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ContainerFieldError(`container ${container.name}: ${field} is not a list`);
  return v.map((item, i) => {
    if (typeof item === "string") return item;
    if (typeof item === "number" || typeof item === "boolean") return String(item);
    throw new ContainerFieldError(`container ${container.name}: ${field}[${i}] is not a string`);
  });
}

/**
 * A container's environment as name → value. Values from `valueFrom` and `envFrom` are known only
 * in the cluster: they are left out, with a warning when the variable is one of `relevant`.
 */
export function containerEnv(
  container: Container,
  relevant: ReadonlySet<string>,
  warn: (message: string) => void,
): Record<string, string> {
  const env: Record<string, string> = {};
  const name = container.name;
  for (const entry of Array.isArray(container.env) ? container.env : []) {
    if (!isRecord(entry) || typeof entry.name !== "string") continue;
    if (entry.valueFrom !== undefined && entry.valueFrom !== null) {
      if (relevant.has(entry.name))
        warn(
          `container ${name}: env ${entry.name} comes from valueFrom, which only the cluster can resolve; left unset`,
        );
      continue;
    }
    const value = entry.value;
    env[entry.name] = typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
  }
  if (Array.isArray(container.envFrom) && container.envFrom.length > 0) {
    warn(`container ${name}: envFrom (ConfigMaps, Secrets) is not read; only its env entries with a value are used`);
  }
  return env;
}

/** A securityContext id (runAsUser / runAsGroup), or null. */
export function securityId(container: Container, field: "runAsUser" | "runAsGroup"): number | null {
  const sc = container.securityContext;
  if (!isRecord(sc)) return null;
  const v = sc[field];
  return typeof v === "number" ? v : null;
}
