/**
 * ISTIO_KUBE_APP_PROBERS: the application probes the injector rewrote, as the agent reads them at start.
 * Decoding follows Go's encoding/json into pilot-agent's Prober struct (field names match
 * case-insensitively, unknown fields are ignored, a value of the wrong JSON type is an error), then each
 * entry is validated as pilot-agent does. Pure: no I/O.
 */

export const KUBE_APP_PROBERS_ENV = "ISTIO_KUBE_APP_PROBERS";

/** The keys the agent serves: `/app-health/<container>/<kind>` and `/app-lifecycle/<container>/<hook>`. */
export const APP_PROBER_PATTERN = /^\/(app-health|app-lifecycle)\/[^/]+\/(livez|readyz|startupz|prestopz|poststartz)$/;

/** A Kubernetes IntOrString as decoded: a JSON number gives `int`, a JSON string gives `string`. */
export type IntOrString = { type: "int"; value: number } | { type: "string"; value: string };

export interface HTTPHeader {
  name: string;
  value: string;
}

export interface HTTPGetAction {
  path: string;
  port: IntOrString;
  host: string;
  scheme: string;
  httpHeaders: HTTPHeader[];
}

export interface TCPSocketAction {
  port: IntOrString;
  host: string;
}

export interface GRPCAction {
  port: number;
  /** `undefined` when absent or null: the health check then asks for service "". */
  service: string | undefined;
}

export interface Prober {
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  grpc?: GRPCAction;
  /** 0 = none given. */
  timeoutSeconds: number;
}

export type KubeAppProbers = Map<string, Prober>;

class DecodeError extends Error {}

type Json = Record<string, unknown>;

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** Go's struct decoding: each JSON key is matched to a field name ignoring case; the last match wins. */
function fields(obj: unknown, what: string, names: readonly string[]): Map<string, unknown> | undefined {
  if (obj === null || obj === undefined) return undefined;
  if (jsonType(obj) !== "object") throw new DecodeError(`cannot unmarshal ${jsonType(obj)} into ${what}`);
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(obj as Json)) {
    const name = names.find((n) => n.toLowerCase() === key.toLowerCase());
    if (name !== undefined) out.set(name, value);
  }
  return out;
}

function str(v: unknown, what: string): string {
  if (v === null || v === undefined) return "";
  if (typeof v !== "string") throw new DecodeError(`cannot unmarshal ${jsonType(v)} into ${what} of type string`);
  return v;
}

function int32(v: unknown, what: string): number {
  if (v === null || v === undefined) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) {
    throw new DecodeError(`cannot unmarshal ${jsonType(v)} ${JSON.stringify(v)} into ${what} of type int32`);
  }
  return v;
}

function intOrString(v: unknown, what: string): IntOrString {
  if (typeof v === "string") return { type: "string", value: v };
  return { type: "int", value: int32(v, what) };
}

function httpGet(v: unknown): HTTPGetAction | undefined {
  const f = fields(v, "HTTPGetAction", ["path", "port", "host", "scheme", "httpHeaders"]);
  if (!f) return undefined;
  const headers = f.get("httpHeaders");
  if (headers !== null && headers !== undefined && !Array.isArray(headers)) {
    throw new DecodeError(`cannot unmarshal ${jsonType(headers)} into httpGet.httpHeaders`);
  }
  return {
    path: str(f.get("path"), "httpGet.path"),
    port: intOrString(f.get("port"), "httpGet.port"),
    host: str(f.get("host"), "httpGet.host"),
    scheme: str(f.get("scheme"), "httpGet.scheme"),
    httpHeaders: ((headers as unknown[] | null | undefined) ?? []).map((h) => {
      const hf = fields(h, "HTTPHeader", ["name", "value"]) ?? new Map();
      return { name: str(hf.get("name"), "httpHeaders.name"), value: str(hf.get("value"), "httpHeaders.value") };
    }),
  };
}

function tcpSocket(v: unknown): TCPSocketAction | undefined {
  const f = fields(v, "TCPSocketAction", ["port", "host"]);
  if (!f) return undefined;
  return { port: intOrString(f.get("port"), "tcpSocket.port"), host: str(f.get("host"), "tcpSocket.host") };
}

function grpc(v: unknown): GRPCAction | undefined {
  const f = fields(v, "GRPCAction", ["port", "service"]);
  if (!f) return undefined;
  const service = f.get("service");
  return {
    port: int32(f.get("port"), "grpc.port"),
    service: service === null || service === undefined ? undefined : str(service, "grpc.service"),
  };
}

function prober(v: unknown): Prober | undefined {
  const f = fields(v, "Prober", ["httpGet", "tcpSocket", "grpc", "timeoutSeconds"]);
  if (!f) return undefined;
  return {
    httpGet: httpGet(f.get("httpGet")),
    tcpSocket: tcpSocket(f.get("tcpSocket")),
    grpc: grpc(f.get("grpc")),
    timeoutSeconds: int32(f.get("timeoutSeconds"), "timeoutSeconds"),
  };
}

/** pilot-agent's check of one entry; returns the error text or undefined. */
export function validateAppProber(path: string, p: Prober | undefined): string | undefined {
  if (!APP_PROBER_PATTERN.test(path)) {
    return `invalid path, must be in form of regex pattern ${APP_PROBER_PATTERN.source}`;
  }
  const count = [p?.httpGet, p?.tcpSocket, p?.grpc].filter((a) => a !== undefined).length;
  if (count !== 1) return "invalid prober type, must be one of type httpGet, tcpSocket or gRPC";
  if (p?.httpGet && p.httpGet.port.type !== "int") {
    return `invalid prober config for ${path}, the port must be int type`;
  }
  if (p?.tcpSocket && p.tcpSocket.port.type !== "int") {
    return `invalid prober config for ${path}, the port must be int type`;
  }
  return undefined;
}

/**
 * Decodes and validates the ISTIO_KUBE_APP_PROBERS text; "" means no probers. Throws an Error with
 * pilot-agent's message when the agent would refuse to start.
 */
export function parseKubeAppProbers(text: string): KubeAppProbers {
  const out: KubeAppProbers = new Map();
  if (text === "") return out;
  let decoded: Map<string, Prober | undefined>;
  try {
    const raw: unknown = JSON.parse(text);
    if (raw === null) return out;
    if (jsonType(raw) !== "object") throw new DecodeError(`cannot unmarshal ${jsonType(raw)} into KubeAppProbers`);
    decoded = new Map(Object.entries(raw as Json).map(([k, v]) => [k, prober(v)]));
  } catch (e) {
    throw new Error(`failed to decode app prober err = ${(e as Error).message}, json string = ${text}`);
  }
  for (const [path, p] of decoded) {
    const problem = validateAppProber(path, p);
    if (problem) throw new Error(problem);
    out.set(path, p as Prober);
  }
  return out;
}

/** The port a validated HTTP or TCP prober connects to. */
export function proberPort(p: Prober): number {
  if (p.httpGet?.port.type === "int") return p.httpGet.port.value;
  if (p.tcpSocket?.port.type === "int") return p.tcpSocket.port.value;
  return p.grpc?.port ?? 0;
}
