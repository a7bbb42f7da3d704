/**
 * The `ISTIO_KUBE_APP_PROBERS` value as Go's encoding/json writes and reads it: a map from agent path
 * to Istio's `Prober` struct (`httpGet`, `tcpSocket`, `grpc`, `timeoutSeconds`) holding Kubernetes'
 * typed actions. Encoding follows the Go types (field order, omitempty, map keys sorted, HTML
 * escaping), so the text is byte-identical to Istio's; decoding follows json.Unmarshal into those
 * types (case-insensitive field names, unknown fields dropped, a type mismatch is an error).
 */

/** An IntOrString port: a number or a named port. */
export type PortValue = number | string;

export interface HTTPHeader {
  name: string;
  value: string;
}

export interface HTTPGetAction {
  path?: string;
  port: PortValue;
  host?: string;
  scheme?: string;
  httpHeaders?: HTTPHeader[] | null;
}

export interface TCPSocketAction {
  port: PortValue;
  host?: string;
}

export interface GRPCAction {
  port: number;
  /** Go's `*string` without omitempty: unset is written as `null`. */
  service?: string | null;
}

export interface Prober {
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  grpc?: GRPCAction;
  timeoutSeconds?: number;
}

/** Path → prober; a `null` entry is a nil *Prober (only from decoding). */
export type AppProbers = Record<string, Prober | null>;

// ---------------------------------------------------------------------------------------------
// Encoding

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A JavaScript string as Go holds it after decoding: lone surrogates become U+FFFD. */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, "\ufffd");
}

/** A JSON string as Go writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped, lone surrogates as U+FFFD. */
export function goJSONString(s: string): string {
  return JSON.stringify(wellFormed(s))
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

function goNumber(n: number): string {
  // Ports and timeouts are int32 in Go; the value is always a whole number here.
  return String(Math.trunc(n));
}

function encodePort(p: PortValue): string {
  return typeof p === "number" ? goNumber(p) : goJSONString(p);
}

function encodeObject(fields: Array<[string, string | undefined]>): string {
  const parts = fields.filter(([, v]) => v !== undefined).map(([k, v]) => `"${k}":${v}`);
  return `{${parts.join(",")}}`;
}

const nonEmpty = (s: string | undefined) => (s === undefined || s === "" ? undefined : goJSONString(s));

function encodeHTTPGet(a: HTTPGetAction): string {
  const headers =
    a.httpHeaders && a.httpHeaders.length > 0
      ? `[${a.httpHeaders
          .map((h) =>
            encodeObject([
              ["name", goJSONString(h.name ?? "")],
              ["value", goJSONString(h.value ?? "")],
            ]),
          )
          .join(",")}]`
      : undefined;
  return encodeObject([
    ["path", nonEmpty(a.path)],
    ["port", encodePort(a.port ?? 0)],
    ["host", nonEmpty(a.host)],
    ["scheme", nonEmpty(a.scheme)],
    ["httpHeaders", headers],
  ]);
}

function encodeTCPSocket(a: TCPSocketAction): string {
  return encodeObject([
    ["port", encodePort(a.port ?? 0)],
    ["host", nonEmpty(a.host)],
  ]);
}

function encodeGRPC(a: GRPCAction): string {
  return encodeObject([
    ["port", goNumber(a.port ?? 0)],
    ["service", a.service === undefined || a.service === null ? "null" : goJSONString(a.service)],
  ]);
}

export function encodeProber(p: Prober | null): string {
  if (p === null) return "null";
  return encodeObject([
    ["httpGet", p.httpGet ? encodeHTTPGet(p.httpGet) : undefined],
    ["tcpSocket", p.tcpSocket ? encodeTCPSocket(p.tcpSocket) : undefined],
    ["grpc", p.grpc ? encodeGRPC(p.grpc) : undefined],
    ["timeoutSeconds", p.timeoutSeconds ? goNumber(p.timeoutSeconds) : undefined],
  ]);
}

/** Go's sort order for map keys: byte order of the UTF-8 encoding. */
function compareGoStrings(a: string, b: string): number {
  const ba = Buffer.from(wellFormed(a), "utf8");
  const bb = Buffer.from(wellFormed(b), "utf8");
  return Buffer.compare(ba, bb);
}

/** `json.Marshal(KubeAppProbers)`. */
export function encodeAppProbers(probers: AppProbers): string {
  const keys = Object.keys(probers).sort(compareGoStrings);
  return `{${keys.map((k) => `${goJSONString(k)}:${encodeProber(probers[k] as Prober | null)}`).join(",")}}`;
}

// ---------------------------------------------------------------------------------------------
// Decoding

class DecodeError extends Error {}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: Json): v is { [k: string]: Json } => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The fields of a JSON object matched to a Go struct's json names: exact match first, else ASCII
 * case-insensitive (as encoding/json does); later duplicates win; unknown keys are dropped.
 */
function structFields(v: Json, names: readonly string[]): Map<string, Json> | null {
  if (v === null) return null;
  if (!isObject(v)) throw new DecodeError("expected an object");
  const out = new Map<string, Json>();
  for (const [key, value] of Object.entries(v)) {
    const name = names.includes(key) ? key : names.find((n) => n.toLowerCase() === key.toLowerCase());
    if (name !== undefined) out.set(name, value);
  }
  return out;
}

function decodeInt32(v: Json): number | undefined {
  if (v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
    throw new DecodeError("expected an int32");
  }
  return v;
}

function decodeString(v: Json): string | undefined {
  if (v === null) return undefined;
  if (typeof v !== "string") throw new DecodeError("expected a string");
  return v;
}

function decodePort(v: Json): PortValue {
  if (typeof v === "string") return v;
  return decodeInt32(v) ?? 0;
}

function decodeHTTPGet(v: Json): HTTPGetAction | undefined {
  const f = structFields(v, ["path", "port", "host", "scheme", "httpHeaders"]);
  if (f === null) return undefined;
  const out: HTTPGetAction = { port: f.has("port") ? decodePort(f.get("port") as Json) : 0 };
  const path = decodeString(f.get("path") ?? null);
  if (path !== undefined) out.path = path;
  const host = decodeString(f.get("host") ?? null);
  if (host !== undefined) out.host = host;
  const scheme = decodeString(f.get("scheme") ?? null);
  if (scheme !== undefined) out.scheme = scheme;
  const headers = f.get("httpHeaders") ?? null;
  if (headers !== null) {
    if (!Array.isArray(headers)) throw new DecodeError("expected an array");
    out.httpHeaders = headers.map((h) => {
      const hf = structFields(h, ["name", "value"]);
      return { name: decodeString(hf?.get("name") ?? null) ?? "", value: decodeString(hf?.get("value") ?? null) ?? "" };
    });
  }
  return out;
}

function decodeTCPSocket(v: Json): TCPSocketAction | undefined {
  const f = structFields(v, ["port", "host"]);
  if (f === null) return undefined;
  const out: TCPSocketAction = { port: f.has("port") ? decodePort(f.get("port") as Json) : 0 };
  const host = decodeString(f.get("host") ?? null);
  if (host !== undefined) out.host = host;
  return out;
}

function decodeGRPC(v: Json): GRPCAction | undefined {
  const f = structFields(v, ["port", "service"]);
  if (f === null) return undefined;
  return { port: decodeInt32(f.get("port") ?? null) ?? 0, service: decodeString(f.get("service") ?? null) ?? null };
}

function decodeProber(v: Json): Prober | null {
  const f = structFields(v, ["httpGet", "tcpSocket", "grpc", "timeoutSeconds"]);
  if (f === null) return null;
  const out: Prober = {};
  const httpGet = decodeHTTPGet(f.get("httpGet") ?? null);
  if (httpGet) out.httpGet = httpGet;
  const tcpSocket = decodeTCPSocket(f.get("tcpSocket") ?? null);
  if (tcpSocket) out.tcpSocket = tcpSocket;
  const grpc = decodeGRPC(f.get("grpc") ?? null);
  if (grpc) out.grpc = grpc;
  const timeout = decodeInt32(f.get("timeoutSeconds") ?? null);
  if (timeout) out.timeoutSeconds = timeout;
  return out;
}

/** `json.Unmarshal` into KubeAppProbers: the map, or undefined where Go returns an error. */
export function decodeAppProbers(text: string): AppProbers | undefined {
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
  if (parsed === null) return {};
  if (!isObject(parsed)) return undefined;
  try {
    const out: AppProbers = {};
    for (const [k, v] of Object.entries(parsed)) {
      // defineProperty: a "__proto__" key is data, not the prototype.
      Object.defineProperty(out, k, { value: decodeProber(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  } catch (e) {
    if (e instanceof DecodeError) return undefined;
    throw e;
  }
}
