/**
 * What a pod's containers say, read from plain JSON as a manifest gives them: the container lists
 * (istio-proxy among them), a container's string lists (`command`, `args`) and its security ids.
 * (Its environment and expanded command line: pod-env.ts.)
 */

import { isRecord } from "../go/json.js";
import { type Container, type Json, PROXY_CONTAINER } from "../inject/pod.js";

/** A container field of the wrong type; the message names the container and the field. */
export class ContainerFieldError extends Error {
  override name = "ContainerFieldError";
}

/** The named containers of a pod spec's `containers` or `initContainers` (others cannot be found by name). */
export function containersOf(spec: Json, key: "containers" | "initContainers"): Container[] {
  const list = spec[key];
  return Array.isArray(list) ? list.filter((c): c is Container => isRecord(c) && typeof c.name === "string") : [];
}

/** The pod's istio-proxy container (a native sidecar is an init container), or undefined. */
export function proxyContainer(spec: Json): Container | undefined {
  return [...containersOf(spec, "containers"), ...containersOf(spec, "initContainers")].find(
    (c) => c.name === PROXY_CONTAINER,
  );
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

/** A securityContext id (runAsUser / runAsGroup), or null. */
export function securityId(container: Container, field: "runAsUser" | "runAsGroup"): number | null {
  const sc = container.securityContext;
  if (!isRecord(sc)) return null;
  const v = sc[field];
  return typeof v === "number" ? v : null;
}
