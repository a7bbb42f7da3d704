/**
 * The pods of one ReplicaSet (or DaemonSet, StatefulSet, Job...) are alike but for their names and
 * what the API server and their controller set on each: their drift is worked out once. A pod's key
 * is the pod without its uid, resourceVersion, creation time, managed fields and node, with the
 * random suffix of its service-account token volume and its own name (wherever it appears whole:
 * a StatefulSet pod's hostname and pod-name label) left out, and without the node affinity a
 * DaemonSet's controller pins each of its pods to its node with. Injection copies these through
 * untouched, so pods alike but for them drift alike. Bounded. Pure.
 */

import { isRecord } from "../go/json.js";
import type { Json } from "../inject/pod.js";
import type { DriftChecker, PodDrift } from "./drift.js";

const TOKEN_VOLUME = /kube-api-access-[a-z0-9]+/g;

/** The key of a pod, or undefined for anything else. */
export function podKey(obj: Json): string | undefined {
  if (obj.kind !== "Pod" || !isRecord(obj.metadata) || !isRecord(obj.spec)) return undefined;
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...metadata } = obj.metadata;
  const { nodeName: _n, ...spec } = obj.spec;
  const owners = Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences : [];
  if (owners.some((o) => isRecord(o) && o.kind === "DaemonSet" && o.controller === true) && isRecord(spec.affinity)) {
    const { nodeAffinity: _a, ...affinity } = spec.affinity;
    spec.affinity = affinity;
  }
  let key = JSON.stringify([obj.apiVersion, metadata, spec]).replace(TOKEN_VOLUME, "kube-api-access");
  const name = metadata.name;
  if (typeof name === "string" && name !== "") key = key.replaceAll(JSON.stringify(name), '"\u0000name"');
  return key;
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
