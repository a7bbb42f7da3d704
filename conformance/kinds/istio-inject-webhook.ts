/**
 * The `istio-inject` kind in webhook mode (`--mode webhook`; the corpus FORMAT.md §6): each
 * injectable part of a case's input becomes a Pod as a ReplicaSet or controller would create it,
 * is sent to the webhook as an AdmissionReview, has the answered JSON patch applied, and is compared
 * with the golden part (made into a Pod the same way) as typed JSON after the Go test's
 * normalisation. Each injected pod is then sent again: the answer must leave it as it is (fixed point),
 * a failure otherwise, except for the cases where Istio's own re-injection is not a fixed point either
 * (ISTIO_NOT_FIXED_POINTS), which must settle as Istio's does and are named in the result line.
 *
 * The webhook is reached through a {@link TransportFactory}: in-process `reviewBody()` by default; an
 * HTTPS client of a running server plugs in the same way (one server per case settings).
 */

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { readYaml } from "../../src/go/yaml/read.js";
import { applyPatch } from "../../src/kube/json-patch.js";
import { marshalTyped } from "../../src/kube/typed.js";
import { reviewBody, type WebhookState } from "../../src/webhook/admission.js";
import { podCreationReview } from "../../src/webhook/admission-request.js";
import type { NamespaceLike } from "../../src/webhook/openshift.js";
import { type Failure, type KindOptions, type KindResult, shown } from "../result.js";
import { caseInjector, ISTIO_NOT_FIXED_POINTS, type IstioInjectCase } from "./istio-inject-case.js";

/** Sends one AdmissionReview (JSON text) to the webhook; resolves to the answer (JSON text). */
export type Transport = (reviewJson: string) => Promise<string>;

/** A webhook running with the given state, and how to stop it. */
export interface WebhookConnection {
  send: Transport;
  close(): Promise<void>;
}

/**
 * Starts (or reaches) a webhook for one case: `state` is what the case's files load to; a server
 * can instead read the files themselves, `caseDir`/injector-config.yaml, values.json and mesh.yaml
 * (the effective MeshConfig, which gives itself again when applied over the defaults).
 */
export type TransportFactory = (state: WebhookState, caseDir: string) => Promise<WebhookConnection>;

const INJECT_PATH = "/inject";

/** The webhook called in-process: the same `reviewBody()` the server runs, through JSON text both ways. */
export const inProcessTransport: TransportFactory = async (state) => ({
  send: async (json) => JSON.stringify(reviewBody(JSON.parse(json), INJECT_PATH, state).response),
  close: async () => {},
});

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** case.json, with the fields only the webhook reads (FORMAT.md §4.3). */
type CaseFile = IstioInjectCase & { namespaces?: NamespaceLike[] };

/** The Namespace of that name in case.json's list. */
export function caseNamespace(meta: CaseFile, name: string): NamespaceLike | undefined {
  return meta.namespaces?.find((ns) => ns.metadata?.name === name);
}

const WORKLOAD_KINDS = new Set([
  "Deployment",
  "DeploymentConfig",
  "DaemonSet",
  "StatefulSet",
  "Job",
  "ReplicaSet",
  "ReplicationController",
  "CronJob",
  "Pod",
]);

/** §6.1: the injectable parts of a stream, split on "\n---"; Lists replaced by their items. */
export function webhookParts(text: string): Json[] {
  const parts: Json[] = [];
  const visit = (obj: unknown): void => {
    if (!isRecord(obj)) return;
    if (obj.kind === "List") {
      for (const item of Array.isArray(obj.items) ? obj.items : []) visit(JSON.parse(JSON.stringify(item)));
    } else if (typeof obj.kind === "string" && WORKLOAD_KINDS.has(obj.kind)) {
      parts.push(obj);
    }
  };
  for (const chunk of text.split("\n---")) visit(readYaml(chunk));
  return parts;
}

function objectAt(obj: unknown, ...path: string[]): Json {
  let cur: unknown = obj;
  for (const k of path) cur = isRecord(cur) ? cur[k] : undefined;
  return isRecord(cur) ? cur : {};
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** §6.2: the Pod a controller would create for a workload (a Pod part is used as it is). */
export function podOfPart(part: Json): Json {
  if (part.kind === "Pod") return part;
  const meta = objectAt(part, "metadata");
  const name = str(meta.name);
  const template =
    part.kind === "CronJob"
      ? objectAt(part, "spec", "jobTemplate", "spec", "template")
      : objectAt(part, "spec", "template");
  const metadata: Json = { ...objectAt(template, "metadata") };
  if (part.kind === "Deployment") {
    metadata.generateName = `${name}-fake-`;
    metadata.ownerReferences = [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: `${name}-fake`, controller: true }];
    metadata.labels = { ...objectAt(metadata, "labels"), "pod-template-hash": "fake" };
  } else {
    metadata.generateName = name;
    metadata.ownerReferences = [{ apiVersion: str(part.apiVersion), kind: str(part.kind), name, controller: true }];
  }
  return { metadata, spec: objectAt(template, "spec") };
}

function typedPod(obj: unknown): Json {
  return marshalTyped(obj, "Pod") as Json;
}

function kubeletMinor(version: string): number {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  return m ? Number(m[2]) : Number.NaN;
}

async function loadState(caseDir: string, meta: CaseFile): Promise<WebhookState> {
  const injector = caseInjector(caseDir, meta);
  const flag = meta.environment.ENABLE_NATIVE_SIDECARS ?? "auto";
  const minors = meta.nodes.map((n) => kubeletMinor(n.kubeletVersion));
  return {
    injector,
    revision: meta.revision,
    nativeSidecars: flag === "false" ? "off" : flag === "true" ? "on" : "auto",
    ...(minors.length > 0 ? { kubeletMinorVersion: Math.min(...minors) } : {}),
    ...(meta.platform === "openshift" ? { platform: "openshift" as const } : {}),
    namespace: (name) => caseNamespace(meta, name),
  };
}

let uidCounter = 0;

/** Sends a pod through the webhook; resolves to the pod as the API server would store it, or a reason. */
async function admit(send: Transport, object: Json, namespace: string): Promise<{ pod: Json } | { error: string }> {
  const uid = `conformance-${++uidCounter}`;
  const answer: unknown = JSON.parse(await send(JSON.stringify(podCreationReview(uid, namespace, object))));
  const response = objectAt(answer, "response");
  if (!isRecord(answer) || answer.apiVersion !== "admission.k8s.io/v1" || answer.kind !== "AdmissionReview") {
    return { error: `not an AdmissionReview answer: ${JSON.stringify(answer).slice(0, 200)}` };
  }
  if (response.uid !== uid) return { error: `uid not echoed: ${JSON.stringify(response.uid)}` };
  if (response.allowed !== true) return { error: `denied: ${str(objectAt(response, "status").message)}` };
  if (response.patch === undefined) return { pod: object };
  if (response.patchType !== "JSONPatch") return { error: `patchType ${JSON.stringify(response.patchType)}` };
  const ops: unknown = JSON.parse(Buffer.from(str(response.patch), "base64").toString("utf8"));
  return { pod: applyPatch(object, ops as unknown[]) as Json };
}

/** §6.3 step 3: the status annotation dropped, fieldRef apiVersion cleared in containers. */
function normalise(pod: Json, got: boolean): Json {
  const out = JSON.parse(JSON.stringify(pod)) as Json;
  const annotations = objectAt(out, "metadata", "annotations");
  delete annotations["sidecar.istio.io/status"];
  if (got) {
    for (const c of Array.isArray(objectAt(out, "spec").containers)
      ? (objectAt(out, "spec").containers as unknown[])
      : []) {
      for (const e of Array.isArray(objectAt(c).env) ? (objectAt(c).env as unknown[]) : []) {
        const fieldRef = objectAt(e, "valueFrom", "fieldRef");
        delete fieldRef.apiVersion;
      }
    }
  }
  return typedPod(out);
}

/** §6.3: every ISTIO_METAJSON_* env of the containers is a JSON object of strings; the first offender. */
function badMetaJson(pod: Json): string | undefined {
  const containers = objectAt(pod, "spec").containers;
  for (const c of Array.isArray(containers) ? containers : []) {
    for (const e of Array.isArray(objectAt(c).env) ? (objectAt(c).env as unknown[]) : []) {
      const name = str(objectAt(e).name);
      if (!name.startsWith("ISTIO_METAJSON_")) continue;
      let value: unknown;
      try {
        value = JSON.parse(str(objectAt(e).value));
      } catch {
        return name;
      }
      if (!isRecord(value) || !Object.values(value).every((v) => typeof v === "string")) return name;
    }
  }
  return undefined;
}

function firstDifference(want: unknown, got: unknown, path = ""): string {
  if (isDeepStrictEqual(want, got)) return "";
  if (isRecord(want) && isRecord(got)) {
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const d = firstDifference(want[k], got[k], `${path}/${k}`);
      if (d) return d;
    }
  } else if (Array.isArray(want) && Array.isArray(got) && want.length === got.length) {
    for (let i = 0; i < want.length; i++) {
      const d = firstDifference(want[i], got[i], `${path}/${i}`);
      if (d) return d;
    }
  }
  return `${path || "/"}: expected ${JSON.stringify(want)?.slice(0, 300)}, got ${JSON.stringify(got)?.slice(0, 300)}`;
}

interface PartVerdict {
  failure?: { reason: string; got: string };
  /** Whether re-injecting the injected pod gave it back unchanged. */
  fixedPoint: boolean;
  fixedPointProblem?: string;
  /** The re-injection pass that changed nothing (1 for a fixed point); absent when none within the limit. */
  settledAfter?: number;
}

/** Re-injections tried before a part that is not a fixed point counts as not settling. */
const MAX_SETTLE_PASSES = 4;

async function judgePart(send: Transport, input: Json, golden: Json): Promise<PartVerdict> {
  const namespace = str(objectAt(input, "metadata").namespace);
  const request = typedPod(podOfPart(input));
  const first = await admit(send, request, namespace);
  if ("error" in first) return { failure: { reason: "webhook refused", got: first.error }, fixedPoint: false };
  const injected = typedPod(first.pod);

  // Re-injection: the first re-injection should change nothing; else, how many passes it takes to settle.
  let fixedPointProblem: string | undefined;
  let settledAfter: number | undefined;
  let current = injected;
  for (let pass = 1; pass <= MAX_SETTLE_PASSES && settledAfter === undefined; pass++) {
    const again = await admit(send, current, namespace);
    if ("error" in again) {
      fixedPointProblem ??= again.error;
      break;
    }
    const next = typedPod(again.pod);
    const d = firstDifference(current, next);
    if (d === "") settledAfter = pass;
    else fixedPointProblem ??= d;
    current = next;
  }
  const verdict = (failure?: PartVerdict["failure"]): PartVerdict => ({
    ...(failure ? { failure } : {}),
    fixedPoint: fixedPointProblem === undefined,
    ...(fixedPointProblem !== undefined ? { fixedPointProblem } : {}),
    ...(settledAfter !== undefined ? { settledAfter } : {}),
  });

  const bad = badMetaJson(injected);
  if (bad !== undefined) return verdict({ reason: "ISTIO_METAJSON env is not a JSON object of strings", got: bad });
  const got = normalise(injected, true);
  const want = normalise(typedPod(podOfPart(golden)), false);
  // Go's json.Marshal sorts map keys and writes struct fields in a fixed order: key order does not count.
  if (isDeepStrictEqual(got, want)) return verdict();
  return verdict({ reason: "pods differ", got: firstDifference(want, got) });
}

export async function runIstioInjectWebhook(
  dir: string,
  _options: KindOptions,
  connect: TransportFactory = inProcessTransport,
): Promise<KindResult> {
  const failures: Failure[] = [];
  const notes: Failure[] = [];
  let passed = 0;
  let total = 0;
  let fixedPoints = 0;
  let settled = 0;
  let parts = 0;
  /** Parts of cases where Istio's re-injection is not a fixed point either, and what ours did. */
  let expectedParts = 0;
  const matchingIstio: string[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  for (const name of entries.sort()) {
    const caseDir = join(dir, name);
    const meta = JSON.parse(await readFile(join(caseDir, "case.json"), "utf8")) as CaseFile;
    if (!meta.webhook) continue;
    total++;
    const fail = (reason: string, got: string) => failures.push({ file: name, name, reason, expected: "golden", got });
    let connection: WebhookConnection | undefined;
    try {
      const inputs = webhookParts(await readFile(join(caseDir, "input.yaml"), "utf8"));
      const goldens = webhookParts(await readFile(join(caseDir, "want.yaml"), "utf8"));
      if (inputs.length !== goldens.length || inputs.length !== meta.webhookParts) {
        fail("part count", `input ${inputs.length}, golden ${goldens.length}, case.json ${meta.webhookParts}`);
        continue;
      }
      connection = await connect(await loadState(caseDir, meta), caseDir);
      let caseFailure: { reason: string; got: string } | undefined;
      for (const [i, input] of inputs.entries()) {
        parts++;
        const v = await judgePart(connection.send, input, goldens[i] as Json);
        const asIstio = ISTIO_NOT_FIXED_POINTS[name];
        if (asIstio !== undefined) expectedParts++;
        if (v.fixedPoint) {
          fixedPoints++;
          if (asIstio !== undefined) {
            notes.push({
              file: name,
              name: `${name} part ${i + 1}`,
              reason: "a fixed point, where Istio's own re-injection is not",
              expected: asIstio,
              got: "unchanged on re-injection",
            });
          }
        } else {
          if (v.settledAfter !== undefined) settled++;
          const settles =
            v.settledAfter === undefined
              ? `does not settle within ${MAX_SETTLE_PASSES} re-injections`
              : `settles on re-injection ${v.settledAfter}`;
          if (asIstio !== undefined && v.settledAfter !== undefined) {
            matchingIstio.push(`${name} ${settles}`);
          } else {
            // Istio gives this golden back unchanged (or, for the listed cases, settles): so must we.
            v.failure ??= { reason: `not a fixed point (${settles})`, got: v.fixedPointProblem ?? "" };
          }
        }
        if (v.failure && caseFailure === undefined)
          caseFailure = { reason: `part ${i + 1}: ${v.failure.reason}`, got: v.failure.got };
      }
      if (caseFailure === undefined) passed++;
      else fail(caseFailure.reason, shown(caseFailure.got));
    } catch (e) {
      fail("runner error", shown(e instanceof Error ? (e.stack ?? e.message) : String(e)));
    } finally {
      await connection?.close();
    }
  }
  return {
    passed,
    total,
    failures,
    notes,
    details:
      `webhook mode; re-injection: fixed point ${fixedPoints - (expectedParts - matchingIstio.length)}/` +
      `${parts - expectedParts} parts where Istio's is one` +
      (matchingIstio.length > 0 ? `; as Istio's, not fixed points: ${matchingIstio.join(", ")}` : "") +
      (settled > matchingIstio.length ? `; ${settled - matchingIstio.length} others settle later` : ""),
  };
}
