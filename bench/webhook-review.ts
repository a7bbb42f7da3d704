/**
 * The typical pod review (examples/admission-review.json) for the webhook benchmarks: a body with a
 * fresh uid per request, and the check that an answer is a well-formed AdmissionReview that echoes
 * that uid, allows the pod and carries a JSONPatch.
 */

import { readFileSync } from "node:fs";
import type { SendResult } from "./webhook-harness.js";

export const EXAMPLE_TEXT = readFileSync(new URL("../examples/admission-review.json", import.meta.url), "utf8");
export const EXAMPLE: Record<string, unknown> = JSON.parse(EXAMPLE_TEXT);
const EXAMPLE_UID = (EXAMPLE.request as { uid: string }).uid;
const [BEFORE_UID, AFTER_UID] = EXAMPLE_TEXT.split(`"${EXAMPLE_UID}"`) as [string, string];

/** The example with `uid` instead of its own (the text otherwise byte for byte the file's). */
export function reviewBody(uid: string): Buffer {
  return Buffer.from(`${BEFORE_UID}${JSON.stringify(uid)}${AFTER_UID}`);
}

export const JSON_HEADERS = { "content-type": "application/json" } as const;

export function postHeaders(body: Buffer): Record<string, string | number> {
  return { ...JSON_HEADERS, "content-length": body.length };
}

/** What an injected answer holds, for callers that look further (the soak checks the patch's content). */
export interface Injected {
  patch: string;
}

/** Checks an answer to reviewBody(uid): undefined when good, else what is wrong. */
export function checkInjected(uid: string, res: SendResult): { problem: string } | Injected {
  if (res.status !== 200) return { problem: `HTTP ${res.status}: ${res.body.toString("utf8", 0, 200)}` };
  let answer: { apiVersion?: unknown; kind?: unknown; response?: Record<string, unknown> };
  try {
    answer = JSON.parse(res.body.toString("utf8"));
  } catch {
    return { problem: `answer is not JSON: ${res.body.toString("utf8", 0, 200)}` };
  }
  const r = answer.response;
  if (answer.apiVersion !== "admission.k8s.io/v1" || answer.kind !== "AdmissionReview" || r === undefined) {
    return { problem: `not an admission.k8s.io/v1 AdmissionReview: ${res.body.toString("utf8", 0, 200)}` };
  }
  if (r.uid !== uid) return { problem: `uid ${JSON.stringify(r.uid)} instead of ${JSON.stringify(uid)}` };
  if (r.allowed !== true) return { problem: `not allowed: ${JSON.stringify(r.status)}` };
  if (r.patchType !== "JSONPatch" || typeof r.patch !== "string" || r.patch === "") {
    return { problem: `no JSONPatch (patchType ${JSON.stringify(r.patchType)})` };
  }
  return { patch: r.patch };
}
