/**
 * The pods of one ReplicaSet (or DaemonSet, Job...) are alike but for their names and what the
 * API server set on each: their drift is worked out once. A pod's key is the pod as the webhook saw
 * it: without its generated name, uid, resourceVersion, creation time, managed fields, node and the
 * random suffix of its service-account token volume. A pod without a generated name (a bare pod, a
 * StatefulSet's) keeps its name in the key, since templates may read it. Bounded. Pure.
 */

import { isRecord } from "../go/json.js";
import type { Json } from "../inject/pod.js";
import type { DriftChecker, PodDrift } from "./drift.js";

const TOKEN_VOLUME = /kube-api-access-[a-z0-9]+/g;

/** The key of a pod, or undefined for anything else. */
export function podKey(obj: Json): string | undefined {
  if (obj.kind !== "Pod" || !isRecord(obj.metadata) || !isRecord(obj.spec)) return undefined;
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...metadata } = obj.metadata;
  if (typeof metadata.generateName === "string" && metadata.generateName !== "") delete metadata.name;
  const { nodeName: _n, ...spec } = obj.spec;
  return JSON.stringify([obj.apiVersion, metadata, spec]).replace(TOKEN_VOLUME, "kube-api-access");
}

export class CachedDriftChecker {
  private readonly cache = new Map<string, PodDrift>();
  hits = 0;

  constructor(
    private readonly checker: DriftChecker,
    private readonly max = 4096,
  ) {}

  check(obj: Json): PodDrift {
    const key = podKey(obj);
    if (key === undefined) return this.checker.check(obj);
    const known = this.cache.get(key);
    if (known !== undefined) {
      this.hits++;
      const name = isRecord(obj.metadata) && typeof obj.metadata.name === "string" ? obj.metadata.name : "";
      return { ...known, pod: name };
    }
    const drift = this.checker.check(obj);
    if (this.cache.size >= this.max) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(key, drift);
    return drift;
  }
}
