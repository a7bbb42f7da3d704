/**
 * Reading the envelope of an AdmissionReview (admission.k8s.io/v1 or v1beta1) and writing the
 * answer. Reading never throws: input that is not a usable review gives the reason, together with
 * whatever the answer must echo (apiVersion, uid) so it is still well-formed.
 */

import { isRecord } from "../go/json.js";

export const ADMISSION_V1 = "admission.k8s.io/v1";
export const ADMISSION_V1BETA1 = "admission.k8s.io/v1beta1";
const ADMISSION_KIND = "AdmissionReview";

type Json = Record<string, unknown>;

/** Who and what a review is about, for logs: read from the request when it has them. */
export interface RequestIds {
  /** `request.namespace` ("" when absent). */
  namespace: string;
  /** `request.operation` (CREATE...), when given. */
  operation?: string;
  /** `request.dryRun`, when given. */
  dryRun?: boolean;
}

/** A review request with a Pod to look at. */
export interface PodRequest extends RequestIds {
  ok: true;
  apiVersion: string;
  uid: string;
  /** `request.object`, the Pod as the API server sent it. */
  object: Json;
}

/** A body that cannot be answered with an injection; the answer still echoes these. */
export interface BadRequest extends RequestIds {
  ok: false;
  apiVersion: string;
  uid: string;
  reason: string;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The kind named by a GroupVersionKind-like object (`request.kind`), or undefined. */
function kindOf(v: unknown): string | undefined {
  return isRecord(v) && typeof v.kind === "string" ? v.kind : undefined;
}

/** The request's namespace, operation and dryRun, as far as they are there and well typed. */
function requestIds(request: unknown): RequestIds {
  if (!isRecord(request)) return { namespace: "" };
  const { namespace, operation, dryRun } = request;
  return {
    namespace: str(namespace),
    ...(typeof operation === "string" ? { operation } : {}),
    ...(typeof dryRun === "boolean" ? { dryRun } : {}),
  };
}

/** Reads an AdmissionReview body (already parsed from JSON). */
export function readPodRequest(body: unknown): PodRequest | BadRequest {
  const ids = requestIds(isRecord(body) ? body.request : undefined);
  const bad = (reason: string, apiVersion = ADMISSION_V1, uid = ""): BadRequest => ({
    ok: false,
    apiVersion,
    uid,
    reason,
    ...ids,
  });
  if (!isRecord(body)) return bad(`expected an AdmissionReview object, got ${describeJson(body)}`);
  const version = body.apiVersion;
  const known = version === ADMISSION_V1 || version === ADMISSION_V1BETA1;
  const apiVersion = known ? (version as string) : ADMISSION_V1;
  if (body.kind !== ADMISSION_KIND || !known) {
    const got = (field: string, v: unknown) => (v === undefined ? `no ${field}` : `${field} ${describeValue(v)}`);
    return bad(
      `expected kind AdmissionReview of ${ADMISSION_V1} or ${ADMISSION_V1BETA1}, got ${got("kind", body.kind)} and ${got("apiVersion", version)}`,
      apiVersion,
    );
  }
  const request = body.request;
  if (!isRecord(request)) return bad("AdmissionReview has no request", apiVersion);
  const uid = str(request.uid);
  if (uid === "") return bad("AdmissionReview request has no uid", apiVersion);
  const object = request.object;
  if (!isRecord(object)) return bad(`request.object is not an object (${describeJson(object)})`, apiVersion, uid);
  const requestKind = kindOf(request.kind);
  if (requestKind !== undefined && requestKind !== "Pod") {
    return bad(`request is for a ${requestKind}, not a Pod`, apiVersion, uid);
  }
  if (object.kind !== undefined && object.kind !== "Pod") {
    return bad(`request.object is a ${describeValue(object.kind)}, not a Pod`, apiVersion, uid);
  }
  return { ok: true, apiVersion, uid, object, ...ids };
}

/**
 * A value from the request for an error message: a string quoted (cut to 100 characters), anything
 * else by its type only — a hostile request may nest values deeply or make them huge.
 */
function describeValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 100 ? `${v.slice(0, 100)}…` : v);
  return describeJson(v);
}

function describeJson(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/**
 * An AdmissionReview (v1) as the API server sends it when the ReplicaSet controller creates `pod` in
 * `namespace`: what the webhook's own reference pods and the conformance runner send.
 */
export function podCreationReview(uid: string, namespace: string, pod: unknown): Json {
  return {
    apiVersion: ADMISSION_V1,
    kind: ADMISSION_KIND,
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      requestResource: { group: "", version: "v1", resource: "pods" },
      namespace,
      operation: "CREATE",
      userInfo: { username: "system:serviceaccount:kube-system:replicaset-controller" },
      object: pod,
      oldObject: null,
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    },
  };
}

/** The AdmissionReview to send back around a response. */
export function reviewEnvelope(apiVersion: string, response: Json): Json {
  return { apiVersion, kind: ADMISSION_KIND, response };
}
