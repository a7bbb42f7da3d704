/**
 * The fuzz cases for bench/webhook-fuzz.ts (fast-check arbitraries), and the check of one answer.
 *
 * A case is a request: method, path, content-type, chunked or not, and a body built from
 * examples/admission-review.json by 1–3 mutations (drop a field, duplicate an array element or a
 * JSON key in the text, retype a value, put a random JSON value at a random path, random Istio
 * annotations and labels, random probes, envelope variants, deep nesting), or a truncated text,
 * random bytes, an empty body, a huge body under the 6 MiB limit, or one over it. Bodies are built
 * when sent, so huge ones are not all held in memory.
 *
 * What each answer must be follows from the request alone, in the server's order of checks:
 * 404 outside /inject, 405 for a method other than POST, 415 for a content-type other than JSON,
 * 413 over 6 MiB, 400 when empty; otherwise 200 with an AdmissionReview (apiVersion echoed when
 * v1beta1, uid echoed when the envelope is valid, `allowed` boolean, a denial with a message, a
 * patch only when allowed and then a base64 JSON array of operations).
 */

import fc from "fast-check";
import fastJsonPatch, { type Operation } from "fast-json-patch";
import { EXAMPLE } from "./webhook-review.js";

const applyJsonPatch = fastJsonPatch.applyPatch;

export const MAX_BODY = 6 * 1024 * 1024;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Key = string | number;

export interface FuzzCase {
  /** What kind of body (for the report). */
  label: string;
  method: string;
  path: string;
  /** The content-type header, absent when undefined. */
  contentType: string | undefined;
  /** Whether that content-type is JSON (application/json, any case, parameters allowed). */
  json: boolean;
  /** Send with transfer-encoding: chunked instead of content-length. */
  chunked: boolean;
  body: () => Buffer;
}

// --- paths into the example ---

function paths(value: Json, prefix: Key[] = [], out: Key[][] = []): Key[][] {
  out.push(prefix);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) paths(v, [...prefix, i], out);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  }
  return out;
}
const ALL_PATHS = paths(EXAMPLE as Json);
const LEAF_PATHS = ALL_PATHS.filter((p) => p.length > 0);
const CONTAINER_PATHS = ALL_PATHS.filter((p) => {
  const v = get(EXAMPLE as Json, p);
  return v !== null && typeof v === "object";
});
const ARRAY_PATHS = ALL_PATHS.filter((p) => Array.isArray(get(EXAMPLE as Json, p)));
const KEYS = [...new Set(ALL_PATHS.flatMap((p) => p.filter((k): k is string => typeof k === "string")))];

function get(root: Json, path: readonly Key[]): Json | undefined {
  let v: Json | undefined = root;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = Array.isArray(v) ? v[Number(k)] : v[String(k)];
  }
  return v;
}

/** The container holding `path`'s last step, when the path still exists in this (mutated) doc. */
function parentOf(root: Json, path: readonly Key[]): { parent: Json[] | Record<string, Json>; key: Key } | undefined {
  if (path.length === 0) return undefined;
  const parent = get(root, path.slice(0, -1));
  if (parent === null || typeof parent !== "object") return undefined;
  return { parent, key: path[path.length - 1] as Key };
}

function put(root: Json, path: readonly Key[], value: Json): Json {
  if (path.length === 0) return value;
  const at = parentOf(root, path);
  if (at === undefined) return root;
  if (Array.isArray(at.parent)) at.parent[Math.min(Number(at.key), at.parent.length)] = value;
  else at.parent[String(at.key)] = value;
  return root;
}

// --- mutations ---

type Mutation = (doc: Json) => Json;

const WEIRD: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -0,
  Number.MAX_SAFE_INTEGER + 2,
  "",
  " ",
  "null",
  "true",
  "0",
  "12345678901234567890",
  "☃",
  "\u0000",
  "a".repeat(10_000),
  [],
  [null],
  [1, "a", {}],
  {},
  { "": null },
  { kind: "Pod" },
];

/**
 * A copy of a generated value to put into a document: WEIRD's objects (and a case's values, reused
 * each time its body is built) are shared, so a later mutation writing into the document must not
 * write into them (that once made `{}` contain itself).
 */
function fresh(value: Json): Json {
  return value !== null && typeof value === "object" ? structuredClone(value) : value;
}

const jsonValue = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>;
const anyValue = fc.oneof(fc.constantFrom(...WEIRD), jsonValue);

const drop: fc.Arbitrary<Mutation> = fc.constantFrom(...LEAF_PATHS).map((path) => (doc) => {
  const at = parentOf(doc, path);
  if (at === undefined) return doc;
  if (Array.isArray(at.parent)) at.parent.splice(Number(at.key), 1);
  else delete at.parent[String(at.key)];
  return doc;
});

const retype: fc.Arbitrary<Mutation> = fc.tuple(fc.constantFrom(...ALL_PATHS), anyValue).map(
  ([path, value]) =>
    (doc) =>
      put(doc, path, fresh(value)),
);

const setRandom: fc.Arbitrary<Mutation> = fc
  .tuple(fc.constantFrom(...CONTAINER_PATHS), fc.oneof(fc.constantFrom(...KEYS), fc.string()), anyValue)
  .map(([path, key, value]) => (doc) => {
    const target = get(doc, path);
    if (target === null || typeof target !== "object") return doc;
    if (Array.isArray(target)) target.push(fresh(value));
    else target[key] = fresh(value);
    return doc;
  });

const duplicateElement: fc.Arbitrary<Mutation> = fc
  .tuple(fc.constantFrom(...ARRAY_PATHS), fc.nat(), fc.integer({ min: 1, max: 50 }))
  .map(([path, index, times]) => (doc) => {
    const target = get(doc, path);
    if (!Array.isArray(target) || target.length === 0) return doc;
    const element = target[index % target.length] as Json;
    // At most about 2 MiB more per duplication, so 3 mutations stay near the 6 MiB limit.
    const size = JSON.stringify(element)?.length ?? 4;
    for (let i = 0; i < Math.min(times, Math.floor((2 * 1024 * 1024) / size)); i++)
      target.push(structuredClone(element));
    return doc;
  });

const ISTIO_ANNOTATIONS = [
  "sidecar.istio.io/inject",
  "sidecar.istio.io/status",
  "sidecar.istio.io/interceptionMode",
  "sidecar.istio.io/proxyCPU",
  "sidecar.istio.io/proxyCPULimit",
  "sidecar.istio.io/proxyMemory",
  "sidecar.istio.io/proxyMemoryLimit",
  "sidecar.istio.io/proxyImage",
  "sidecar.istio.io/logLevel",
  "sidecar.istio.io/componentLogLevel",
  "sidecar.istio.io/agentLogLevel",
  "sidecar.istio.io/userVolume",
  "sidecar.istio.io/userVolumeMount",
  "sidecar.istio.io/bootstrapOverride",
  "sidecar.istio.io/rewriteAppHTTPProbers",
  "sidecar.istio.io/nativeSidecar",
  "sidecar.istio.io/enableCoreDump",
  "sidecar.istio.io/statsInclusionPrefixes",
  "sidecar.istio.io/extraStatTags",
  "status.sidecar.istio.io/port",
  "readiness.status.sidecar.istio.io/initialDelaySeconds",
  "readiness.status.sidecar.istio.io/periodSeconds",
  "readiness.status.sidecar.istio.io/failureThreshold",
  "readiness.status.sidecar.istio.io/applicationPorts",
  "traffic.sidecar.istio.io/includeOutboundIPRanges",
  "traffic.sidecar.istio.io/excludeOutboundIPRanges",
  "traffic.sidecar.istio.io/includeInboundPorts",
  "traffic.sidecar.istio.io/excludeInboundPorts",
  "traffic.sidecar.istio.io/excludeOutboundPorts",
  "traffic.sidecar.istio.io/excludeInterfaces",
  "traffic.sidecar.istio.io/kubevirtInterfaces",
  "proxy.istio.io/config",
  "proxy.istio.io/overrides",
  "inject.istio.io/templates",
  "istio.io/rev",
  "kubectl.kubernetes.io/default-container",
  "kubectl.kubernetes.io/default-logs-container",
  "prometheus.io/scrape",
  "prometheus.io/port",
  "prometheus.io/path",
  "ambient.istio.io/redirection",
];
const ISTIO_LABELS = [
  "sidecar.istio.io/inject",
  "istio.io/rev",
  "istio.io/tag",
  "service.istio.io/canonical-name",
  "service.istio.io/canonical-revision",
  "app",
  "app.kubernetes.io/name",
  "version",
  "topology.istio.io/network",
];
const ANNOTATION_VALUES = fc.oneof(
  fc.constantFrom(
    "true",
    "false",
    "enabled",
    "disabled",
    "*",
    "",
    "0.0.0.0/0",
    "10.0.0.0/8,::/0",
    "10.0.0.300/8",
    "1,2,3",
    "-1",
    "65536",
    "8080,*",
    "100m",
    "1Gi",
    "-5Mi",
    "{}",
    "[]",
    "null",
    "{{ .Values }}",
    '{"holdApplicationUntilProxyStarts": true}',
    "holdApplicationUntilProxyStarts: true\nconcurrency: 4",
    "concurrency: -1\nproxyMetadata: [1, 2]",
    '{"containers":[{"name":"istio-proxy","image":42}]}',
    '{"vol":{"name":"x","emptyDir":{}}}',
    "sidecar,nonexistent",
    "TPROXY",
    "REDIRECT",
    "NONE",
  ),
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  jsonValue.map((v) => JSON.stringify(v)),
);

const istioMetadata: fc.Arbitrary<Mutation> = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...ISTIO_ANNOTATIONS), ANNOTATION_VALUES), { minLength: 1, maxLength: 4 }),
    fc.array(fc.tuple(fc.constantFrom(...ISTIO_LABELS), ANNOTATION_VALUES), { maxLength: 2 }),
  )
  .map(([annotations, labels]) => (doc) => {
    const metadata = get(doc, ["request", "object", "metadata"]);
    if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return doc;
    metadata.annotations ??= {};
    metadata.labels ??= {};
    const a = metadata.annotations;
    const l = metadata.labels;
    if (a !== null && typeof a === "object" && !Array.isArray(a)) for (const [k, v] of annotations) a[k] = v;
    if (l !== null && typeof l === "object" && !Array.isArray(l)) for (const [k, v] of labels) l[k] = v;
    return doc;
  });

const portValue = fc.oneof(
  fc.integer({ min: -5, max: 70_000 }),
  fc.constantFrom("http", "8080", "", "http-web", "x".repeat(70)),
);
const probe = fc.record(
  {
    httpGet: fc.record(
      {
        path: fc.oneof(fc.string(), fc.constant("/ready")),
        port: portValue,
        scheme: fc.constantFrom("HTTP", "HTTPS", ""),
      },
      { requiredKeys: [] },
    ),
    tcpSocket: fc.record({ port: portValue }, { requiredKeys: [] }),
    grpc: fc.record({ port: portValue, service: fc.string() }, { requiredKeys: [] }),
    exec: fc.record({ command: fc.array(fc.string(), { maxLength: 3 }) }),
    initialDelaySeconds: fc.oneof(fc.integer(), fc.string()),
  },
  { requiredKeys: [] },
);
const probes: fc.Arbitrary<Mutation> = fc
  .tuple(
    fc.constantFrom("readinessProbe", "livenessProbe", "startupProbe"),
    probe,
    fc.array(
      fc.record({ containerPort: portValue, name: fc.string(), protocol: fc.constantFrom("TCP", "UDP", "SCTP", "x") }),
      {
        maxLength: 3,
      },
    ),
  )
  .map(([which, p, ports]) => (doc) => {
    const container = get(doc, ["request", "object", "spec", "containers", 0]);
    if (container === null || typeof container !== "object" || Array.isArray(container)) return doc;
    container[which] = p as Json;
    if (ports.length > 0) container.ports = ports as Json;
    return doc;
  });

const envelope: fc.Arbitrary<Mutation> = fc
  .record(
    {
      apiVersion: fc.constantFrom<Json>(
        "admission.k8s.io/v1",
        "admission.k8s.io/v1beta1",
        "admission.k8s.io/v2",
        "",
        1,
        null,
      ),
      kind: fc.constantFrom<Json>("AdmissionReview", "AdmissionRequest", "", null, 7),
      uid: fc.oneof(fc.constantFrom<Json>("", null, 5, {}), fc.string()),
      requestKind: fc.constantFrom<Json>("Pod", "Deployment", "", null),
      objectKind: fc.constantFrom<Json>("Pod", "Service", "", null),
    },
    { requiredKeys: [] },
  )
  .map((e) => (doc) => {
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return doc;
    if ("apiVersion" in e) doc.apiVersion = e.apiVersion as Json;
    if ("kind" in e) doc.kind = e.kind as Json;
    const request = doc.request;
    if (request === null || typeof request !== "object" || Array.isArray(request)) return doc;
    if ("uid" in e) request.uid = e.uid as Json;
    if ("requestKind" in e) request.kind = { group: "", version: "v1", kind: e.requestKind as Json };
    const object = request.object;
    if ("objectKind" in e && object !== null && typeof object === "object" && !Array.isArray(object)) {
      object.kind = e.objectKind as Json;
    }
    return doc;
  });

/**
 * Nested arrays or objects `depth` deep at a random path. The document holds a marker string that
 * serialising expands (JSON.stringify and structuredClone recurse and would overflow the stack).
 */
const deepNesting: fc.Arbitrary<Mutation> = fc
  .tuple(fc.constantFrom(...ALL_PATHS), fc.integer({ min: 10, max: 100_000 }), fc.boolean())
  .map(
    ([path, depth, arrays]) =>
      (doc) =>
        put(doc, path, `\u0001deep\u0001${depth}\u0001${arrays ? "a" : "o"}`),
  );

function expandDeep(text: string): string {
  return text.replace(/"\\u0001deep\\u0001(\d+)\\u0001([ao])"/g, (_, depth: string, shape: string) => {
    const n = Number(depth);
    return shape === "a" ? `${"[".repeat(n)}${"]".repeat(n)}` : `${'{"a":'.repeat(n)}{}${"}".repeat(n)}`;
  });
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: drop, weight: 4 },
  { arbitrary: retype, weight: 4 },
  { arbitrary: setRandom, weight: 3 },
  { arbitrary: duplicateElement, weight: 2 },
  { arbitrary: istioMetadata, weight: 4 },
  { arbitrary: probes, weight: 2 },
  { arbitrary: envelope, weight: 2 },
  { arbitrary: deepNesting, weight: 1 },
);

// --- serialising, with an optional duplicate key in the text ---

interface DuplicateKey {
  /** Which object (index in document order) gets the duplicate, modulo the number of objects. */
  objectIndex: number;
  value: Json;
  /** Before the real key (JSON.parse keeps the real one) or after (the duplicate wins). */
  before: boolean;
}

/** JSON text of `doc`; with `dup`, one object has one of its keys twice. Iterative (deep nesting). */
function serialise(doc: Json, dup?: DuplicateKey): string {
  return expandDeep(serialiseShallow(doc, dup));
}

function serialiseShallow(doc: Json, dup?: DuplicateKey): string {
  if (dup === undefined) return JSON.stringify(doc);
  let objects = 0;
  const countObjects = (v: Json) => {
    const stack: Json[] = [v];
    while (stack.length > 0) {
      const x = stack.pop() as Json;
      if (x !== null && typeof x === "object") {
        if (!Array.isArray(x) && Object.keys(x).length > 0) objects++;
        stack.push(...(Array.isArray(x) ? x : Object.values(x)));
      }
    }
  };
  countObjects(doc);
  if (objects === 0) return JSON.stringify(doc);
  const target = dup.objectIndex % objects;
  let seen = 0;
  // A replacer sees each object before its children, in document order like countObjects' count.
  let done = false;
  return JSON.stringify(doc, function (this: unknown, _key, value: Json) {
    if (done || value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const keys = Object.keys(value);
    if (keys.length === 0) return value;
    if (seen++ !== target) return value;
    done = true;
    const first = keys[0] as string;
    const copy: Record<string, Json> = {};
    const marker = `\u0001dup\u0001${first}`;
    if (dup.before) copy[marker] = dup.value;
    for (const k of keys) copy[k] = value[k] as Json;
    if (!dup.before) copy[marker] = dup.value;
    return copy;
  }).replace(/"\\u0001dup\\u0001((?:[^"\\]|\\.)*)"/, '"$1"');
}

// --- bodies ---

interface BodyCase {
  label: string;
  body: () => Buffer;
  /** Bodies only sent with a JSON content-type (huge ones). */
  jsonOnly?: boolean;
}

const mutated: fc.Arbitrary<BodyCase> = fc
  .tuple(
    fc.array(mutation, { minLength: 1, maxLength: 3 }),
    fc.oneof(
      { arbitrary: fc.constant(null), weight: 4 },
      { arbitrary: fc.record({ objectIndex: fc.nat(), value: anyValue, before: fc.boolean() }), weight: 1 },
    ),
  )
  .map(([mutations, dup]) => ({
    label: dup === null ? "mutated" : "mutated+dup-key",
    body: () => {
      let doc = structuredClone(EXAMPLE) as Json;
      for (const m of mutations) doc = m(doc);
      return Buffer.from(serialise(doc, dup ?? undefined));
    },
  }));

const truncated: fc.Arbitrary<BodyCase> = fc
  .tuple(fc.option(mutation, { freq: 2 }), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([m, fraction]) => ({
    label: "truncated",
    body: () => {
      const text = serialise(m === null ? (EXAMPLE as Json) : m(structuredClone(EXAMPLE) as Json));
      return Buffer.from(text.slice(0, Math.max(1, Math.floor(text.length * fraction))));
    },
  }));

const garbage: fc.Arbitrary<BodyCase> = fc
  .oneof(
    fc.uint8Array({ minLength: 1, maxLength: 4000 }).map((a) => Buffer.from(a)),
    fc.string({ minLength: 1, maxLength: 2000 }).map((s) => Buffer.from(s)),
    jsonValue.map((v) => Buffer.from(JSON.stringify(v))),
    fc
      .constantFrom("null", "0", '""', "[]", "{}", "true", "\ufeff{}", " ", "\n", "{", "}", "NaN")
      .map((s) => Buffer.from(s)),
  )
  .map((b) => ({ label: "garbage", body: () => b }));

const empty: fc.Arbitrary<BodyCase> = fc.constant({ label: "empty", body: () => Buffer.alloc(0) });
const unchanged: fc.Arbitrary<BodyCase> = fc.constant({
  label: "unchanged",
  body: () => Buffer.from(JSON.stringify(EXAMPLE)),
});

/** The example grown to about `bytes` by one big annotation, many env vars, or an unknown big field. */
function grown(bytes: number, how: "annotation" | "env" | "field"): Buffer {
  const doc = structuredClone(EXAMPLE) as { request: { object: Record<string, unknown> } };
  const base = JSON.stringify(doc).length;
  const room = Math.max(0, bytes - base);
  const object = doc.request.object;
  if (how === "annotation") {
    (object.metadata as { annotations?: Record<string, string> }).annotations = {
      "example.com/big": "x".repeat(room - 40),
    };
  } else if (how === "env") {
    const entry = (i: number) => ({ name: `VAR_${i}`, value: `value-${i}` });
    const n = Math.floor(room / JSON.stringify(entry(100_000)).length);
    const container = (object.spec as { containers: Record<string, unknown>[] }).containers[0] as Record<
      string,
      unknown
    >;
    container.env = Array.from({ length: n }, (_, i) => entry(i));
  } else {
    object.bigUnknownField = Array.from({ length: Math.floor(room / 12) }, (_, i) => i % 1e9);
  }
  return Buffer.from(JSON.stringify(doc));
}

const huge: fc.Arbitrary<BodyCase> = fc
  .tuple(
    fc.integer({ min: 1024 * 1024, max: MAX_BODY - 64 * 1024 }),
    fc.constantFrom("annotation", "env", "field") as fc.Arbitrary<"annotation" | "env" | "field">,
  )
  .map(([bytes, how]) => ({ label: `huge-${how}`, body: () => grown(bytes, how), jsonOnly: true }));

const overLimit: fc.Arbitrary<BodyCase> = fc
  .integer({ min: MAX_BODY + 1, max: MAX_BODY + 2 * 1024 * 1024 })
  .map((bytes) => ({
    label: "over-limit",
    body: () => Buffer.alloc(bytes, 0x20),
    jsonOnly: true,
  }));

const bodyCase: fc.Arbitrary<BodyCase> = fc.oneof(
  { arbitrary: mutated, weight: 800 },
  { arbitrary: truncated, weight: 70 },
  { arbitrary: garbage, weight: 70 },
  { arbitrary: unchanged, weight: 40 },
  { arbitrary: empty, weight: 10 },
  { arbitrary: huge, weight: 2 },
  { arbitrary: overLimit, weight: 1 },
);

// --- the request around the body ---

const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "Application/JSON",
  "application/json;charset=UTF-8",
];
const OTHER_TYPES = [
  undefined,
  "",
  "text/plain",
  "application/xml",
  "application/json-patch+json",
  "application/jsonl",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "json",
  "application/ json",
  "application/yaml",
];

const contentType: fc.Arbitrary<{ contentType: string | undefined; json: boolean }> = fc.oneof(
  { arbitrary: fc.constantFrom(...JSON_TYPES).map((t) => ({ contentType: t, json: true })), weight: 95 },
  { arbitrary: fc.constantFrom(...OTHER_TYPES).map((t) => ({ contentType: t, json: false })), weight: 5 },
);

const segment = fc.oneof(
  fc.constantFrom("cluster", "net", "Kubernetes", "network1", ""),
  fc.tuple(fc.stringMatching(/^[A-Z_]{1,12}$/), fc.stringMatching(/^[a-z0-9.-]{0,12}$/)).map(([k, v]) => `${k}:${v}`),
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
);
const path: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant("/inject"), weight: 80 },
  {
    arbitrary: fc.array(segment, { maxLength: 6 }).map((segments) => `/inject/${segments.join("/")}`),
    weight: 17,
  },
  { arbitrary: fc.constantFrom("/", "/injectx", "/mutate", "/inject.json"), weight: 3 },
);
const method = fc.oneof(
  { arbitrary: fc.constant("POST"), weight: 98 },
  { arbitrary: fc.constantFrom("GET", "PUT", "PATCH", "DELETE"), weight: 2 },
);

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc
  .record({ body: bodyCase, type: contentType, path, method, chunked: fc.boolean() })
  .map(({ body, type, path, method, chunked }) => ({
    label: body.label,
    method: body.jsonOnly ? "POST" : method,
    path: body.jsonOnly ? "/inject" : path,
    ...(body.jsonOnly ? { contentType: "application/json", json: true } : type),
    chunked,
    body: body.body,
  }));

// --- what the answer must be ---

/** The HTTP status the server must answer, from the request alone (the server's order of checks). */
export function expectedStatus(c: FuzzCase, bodyLength: number): 200 | 400 | 404 | 405 | 413 | 415 {
  if (c.path !== "/inject" && !c.path.startsWith("/inject/")) return 404;
  if (c.method !== "POST") return 405;
  if (!c.json) return 415;
  if (bodyLength > MAX_BODY) return 413;
  if (bodyLength === 0) return 400;
  return 200;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks a 200 answer to `body`: undefined when it is a well-formed AdmissionReview for it, else why not. */
export function checkReview(body: Buffer, answer: Buffer): string | undefined {
  let sent: unknown;
  try {
    sent = JSON.parse(body.toString("utf8"));
  } catch {
    sent = undefined; // the server must answer the decode error as an AdmissionReview
  }
  const v1beta1 = isRecord(sent) && sent.apiVersion === "admission.k8s.io/v1beta1";
  const validEnvelope =
    isRecord(sent) &&
    sent.kind === "AdmissionReview" &&
    (sent.apiVersion === "admission.k8s.io/v1" || v1beta1) &&
    isRecord(sent.request) &&
    typeof sent.request.uid === "string" &&
    sent.request.uid !== "";
  let got: unknown;
  try {
    got = JSON.parse(answer.toString("utf8"));
  } catch {
    return "answer is not JSON";
  }
  if (!isRecord(got) || got.kind !== "AdmissionReview") return "answer is not an AdmissionReview";
  const apiVersion = v1beta1 ? "admission.k8s.io/v1beta1" : "admission.k8s.io/v1";
  if (got.apiVersion !== apiVersion)
    return `answer apiVersion ${JSON.stringify(got.apiVersion)}, expected ${apiVersion}`;
  const r = got.response;
  if (!isRecord(r)) return "answer has no response object";
  if (typeof r.allowed !== "boolean") return `response.allowed is ${JSON.stringify(r.allowed)}`;
  if (typeof r.uid !== "string") return `response.uid is ${JSON.stringify(r.uid)}`;
  if (validEnvelope && r.uid !== (sent as { request: { uid: string } }).request.uid) return "response.uid not echoed";
  if (!r.allowed && !(isRecord(r.status) && typeof r.status.message === "string"))
    return "denial without status.message";
  if (r.patch !== undefined) {
    if (!r.allowed) return "a patch on a denial";
    if (r.patchType !== "JSONPatch" || typeof r.patch !== "string") return "patch without patchType JSONPatch";
    const raw = Buffer.from(r.patch, "base64");
    if (raw.toString("base64") !== r.patch) return "patch is not canonical base64";
    let ops: unknown;
    try {
      ops = JSON.parse(raw.toString("utf8"));
    } catch {
      return "patch is not JSON";
    }
    if (!Array.isArray(ops) || ops.length === 0) return "patch is not a non-empty array";
    for (const op of ops) {
      if (!isRecord(op) || typeof op.op !== "string" || typeof op.path !== "string") return "patch operation malformed";
      if (!["add", "remove", "replace", "move", "copy", "test"].includes(op.op)) return `patch op ${op.op}`;
      if (op.path !== "" && !op.path.startsWith("/")) return `patch path ${op.path}`;
    }
    // The API server applies the patch to the object it sent: it must apply there, checked with an
    // RFC 6902 implementation that is not ours (src/kube/json-patch.ts made the patch).
    // A fresh parse stands for the copy (a deeply nested object is too deep to clone recursively).
    const fresh = validEnvelope ? (JSON.parse(body.toString("utf8")) as { request: { object?: unknown } }) : undefined;
    try {
      applyJsonPatch(fresh?.request.object, ops as Operation[], true, true);
    } catch (e) {
      return `patch does not apply to request.object (fast-json-patch): ${(e as Error).message.split("\n")[0]}`;
    }
  }
  return undefined;
}
