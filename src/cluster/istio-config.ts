/**
 * The injector's configuration from the cluster, as `istioctl kube-inject` reads it without files:
 * the `config` and `values` keys of ConfigMap istio-sidecar-injector and the `mesh` key of ConfigMap
 * istio, in the Istio namespace, with istioctl's revision naming: for a revision REV the default
 * names become `istio-sidecar-injector-REV` and `istio-REV` (the values are always read from
 * `istio-sidecar-injector-REV` then, whatever --injectConfigMapName says, as istioctl does).
 */

import { type Cluster, ClusterError } from "./client.js";

export const DEFAULT_INJECT_CONFIGMAP = "istio-sidecar-injector";
export const DEFAULT_MESH_CONFIGMAP = "istio";

export interface ClusterConfigRequest {
  istioNamespace: string;
  revision: string;
  injectConfigMapName?: string;
  meshConfigMapName?: string;
  /** Which keys to read (those no file supplies). */
  want: { config: boolean; values: boolean; mesh: boolean };
}

/** The texts read, and where each came from (`ConfigMap NS/NAME key K`), for messages. */
export interface ClusterConfig {
  config?: string;
  values?: string;
  mesh?: string;
  names: { config?: string; values?: string; mesh?: string };
}

function revisioned(name: string | undefined, fallback: string, revision: string): string {
  const n = name ?? fallback;
  return n === fallback && revision !== "" ? `${fallback}-${revision}` : n;
}

/** The ConfigMap names istioctl reads for the request. */
export function configMapNames(req: ClusterConfigRequest): { config: string; values: string; mesh: string } {
  return {
    config: revisioned(req.injectConfigMapName, DEFAULT_INJECT_CONFIGMAP, req.revision),
    values:
      req.revision !== ""
        ? `${DEFAULT_INJECT_CONFIGMAP}-${req.revision}`
        : (req.injectConfigMapName ?? DEFAULT_INJECT_CONFIGMAP),
    mesh: revisioned(req.meshConfigMapName, DEFAULT_MESH_CONFIGMAP, req.revision),
  };
}

const FILE_FLAG = { config: "--injectConfigFile", values: "--valuesFile", mesh: "--meshConfigFile" } as const;

/** Reads the wanted keys; a ConfigMap that cannot be read, or lacks the key, is a ClusterError saying what to do. */
export async function readClusterConfig(cluster: Cluster, req: ClusterConfigRequest): Promise<ClusterConfig> {
  const names = configMapNames(req);
  const out: ClusterConfig = { names: {} };
  const cache = new Map<string, Promise<unknown>>();
  for (const key of ["config", "values", "mesh"] as const) {
    if (!req.want[key]) continue;
    const name = names[key];
    const what = `ConfigMap ${req.istioNamespace}/${name}`;
    const path = `/api/v1/namespaces/${encodeURIComponent(req.istioNamespace)}/configmaps/${encodeURIComponent(name)}`;
    let pending = cache.get(path);
    if (pending === undefined) {
      pending = cluster.get(path, what);
      cache.set(path, pending);
    }
    let cm: unknown;
    try {
      cm = await pending;
    } catch (e) {
      if (!(e instanceof ClusterError)) throw e;
      throw new ClusterError(
        `${e.message}; save it with \`kubectl -n ${req.istioNamespace} get cm ${name} -o yaml > ${name}.yaml\` and pass ${FILE_FLAG[key]} ${name}.yaml, or leave out the cluster flags for the built-in default`,
        e.status,
      );
    }
    const data = (cm as { data?: Record<string, unknown> } | null)?.data;
    const value = data?.[key];
    if (typeof value !== "string") {
      throw new ClusterError(`${what} (from ${cluster.where}) has no key ${JSON.stringify(key)}`);
    }
    out[key] = value;
    out.names[key] = `${what} key ${key}`;
  }
  return out;
}
