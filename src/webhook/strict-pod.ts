/**
 * What the webhook refuses in a received Pod beyond what typed marshalling (src/kube/typed.ts)
 * refuses. The API server sends JSON, which Istio's webhook decodes with encoding/json: a number or
 * boolean where ObjectMeta has a string (`metadata.name: 7`, `annotations: {"a": 1}`) is a decode
 * error there, while typed marshalling, made for YAML read the sigs.k8s.io/yaml way, turns it into
 * a string — and the patch computed from that string form would not apply to the object sent. A Pod
 * without a spec is refused as well: every injection patches /spec, which is not there.
 *
 * Messages are encoding/json's (`json: cannot unmarshal number into Go struct field
 * ObjectMeta.metadata.name of type string`), as for the spec's decode errors.
 */

import { isRecord } from "../go/json.js";

/** ObjectMeta's string fields, its string maps and its string list. */
const META_STRINGS = ["name", "generateName", "namespace", "selfLink", "uid", "resourceVersion"];
const META_STRING_MAPS = ["labels", "annotations"];
/** OwnerReference's string fields. */
const OWNER_STRINGS = ["apiVersion", "kind", "name", "uid"];

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v === "boolean" ? "bool" : typeof v;
}

function notString(v: unknown, struct: string, path: string): string | undefined {
  if (v === undefined || v === null || typeof v === "string") return undefined;
  return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${path} of type string`;
}

/** Why the received Pod cannot be decoded as encoding/json would, or undefined. */
export function strictPodError(object: Record<string, unknown>): string | undefined {
  const metadata = object.metadata;
  if (isRecord(metadata)) {
    for (const field of META_STRINGS) {
      const error = notString(metadata[field], "ObjectMeta", `metadata.${field}`);
      if (error) return error;
    }
    for (const field of META_STRING_MAPS) {
      const map = metadata[field];
      if (!isRecord(map)) continue; // not a map at all: typed marshalling reports it
      for (const value of Object.values(map)) {
        const error = notString(value, "ObjectMeta", `metadata.${field}`);
        if (error) return error;
      }
    }
    const finalizers = metadata.finalizers;
    for (const value of Array.isArray(finalizers) ? finalizers : []) {
      const error = notString(value, "ObjectMeta", "metadata.finalizers");
      if (error) return error;
    }
    const owners = metadata.ownerReferences;
    for (const owner of Array.isArray(owners) ? owners : []) {
      if (!isRecord(owner)) continue;
      for (const field of OWNER_STRINGS) {
        const error = notString(owner[field], "OwnerReference", `metadata.ownerReferences.${field}`);
        if (error) return error;
      }
    }
  }
  if (object.spec === undefined || object.spec === null) return "the Pod has no spec";
  return undefined;
}
