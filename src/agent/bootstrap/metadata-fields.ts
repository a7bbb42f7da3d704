/**
 * The typed node metadata (Istio's model.BootstrapNodeMetadata with its embedded NodeMetadata) as a
 * table of its JSON keys and Go types: how a raw value is decoded into a field (Go's json.Unmarshal,
 * with the custom decoders of StringBool, StringList and PodPortList) and how a field is written back
 * (json.Marshal with `omitempty`). The typed metadata is a record by JSON key; an absent key is the
 * Go zero value.
 */

import { parseBool } from "../../go/strconv.js";
import { decodeMessage, ProtoJSONError, type ProxyConfig, toProtoJSONValue } from "../../mesh/index.js";

/** The Go types the fields have. */
export type FieldKind =
  | "string"
  | "map" // map[string]string
  | "stringList" // StringList: a comma-joined string in JSON
  | "stringBool" // StringBool: "true"/"false" in JSON
  | "stringBoolPtr" // *StringBool: nil stays absent
  | "int"
  | "strings" // []string
  | "podPorts" // PodPortList: a JSON string holding a JSON list
  | "proxyConfig"; // *NodeMetaProxyConfig: the ProxyConfig in proto3 JSON

const STRING_KEYS = [
  "ISTIO_VERSION",
  "ISTIO_REVISION",
  "NAMESPACE",
  "NODE_NAME",
  "WORKLOAD_NAME",
  "INTERCEPTION_MODE",
  "SERVICE_ACCOUNT",
  "HTTP_PROXY_PORT",
  "MESH_ID",
  "CLUSTER_ID",
  "NETWORK",
  "TLS_SERVER_CERT_CHAIN",
  "TLS_SERVER_KEY",
  "TLS_SERVER_ROOT_CERT",
  "TLS_CLIENT_CERT_CHAIN",
  "TLS_CLIENT_KEY",
  "TLS_CLIENT_ROOT_CERT",
  "BASE",
  "IDLE_TIMEOUT",
  "HTTP10",
  "GENERATOR",
  "AUTO_REGISTER_GROUP",
  "WORKLOAD_ENTRY",
  "UNPRIVILEGED_POD",
  "STS_PORT",
  "CLOUDRUN_ADDR",
  "WORKLOAD_IDENTITY_SOCKET_FILE",
  // BootstrapNodeMetadata's own fields.
  "NAME",
  "OWNER",
  "OUTLIER_LOG_PATH",
  "APP_CONTAINERS",
  "ISTIO_PROXY_SHA",
];

/** Every typed field by JSON key. */
export const METADATA_FIELDS: ReadonlyMap<string, FieldKind> = new Map<string, FieldKind>([
  ["PROXY_CONFIG", "proxyConfig"],
  ...STRING_KEYS.map((k): [string, FieldKind] => [k, "string"]),
  ["LABELS", "map"],
  ["STATIC_LABELS", "map"],
  ["ANNOTATIONS", "map"],
  ["PLATFORM_METADATA", "map"],
  ["INSTANCE_IPS", "stringList"],
  ["REQUESTED_NETWORK_VIEW", "stringList"],
  ["POD_PORTS", "podPorts"],
  ["DNS_CAPTURE", "stringBool"],
  ["DNS_AUTO_ALLOCATE", "stringBool"],
  ["ENABLE_HBONE", "stringBool"],
  ["DISABLE_HBONE_SEND", "stringBool"],
  ["EXIT_ON_ZERO_ACTIVE_CONNECTIONS", "stringBool"],
  ["INBOUND_LISTENER_EXACT_BALANCE", "stringBool"],
  ["OUTBOUND_LISTENER_EXACT_BALANCE", "stringBool"],
  ["ENVOY_SKIP_DEPRECATED_LOGS", "stringBool"],
  ["METADATA_DISCOVERY", "stringBoolPtr"],
  ["ENVOY_STATUS_PORT", "int"],
  ["ENVOY_PROMETHEUS_PORT", "int"],
  ["ENVOY_SECURE_METRICS_PORT", "int"],
  ["ENVOY_SECURE_MERGED_METRICS_PORT", "int"],
  ["PILOT_SAN", "strings"],
]);

/** Typed node metadata: JSON key → value (string, record, string[], boolean, number, ProxyConfig). */
export type TypedMetadata = Record<string, unknown>;

/** A raw value that does not decode into its typed field: Go's json.Unmarshal error. */
export class MetadataTypeError extends Error {
  override name = "MetadataTypeError";
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "object" ? "object" : typeof v;
}

function mismatch(key: string, v: unknown, goType: string): MetadataTypeError {
  return new MetadataTypeError(
    `json: cannot unmarshal ${jsonType(v)} into Go struct field of node metadata ${key} of type ${goType}`,
  );
}

function stringMap(key: string, v: unknown): Record<string, string> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw mismatch(key, v, "map[string]string");
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null) continue;
    if (typeof x !== "string") throw mismatch(`${key}.${k}`, x, "string");
    out[k] = x;
  }
  return out;
}

/** Decodes one raw (JSON) value into the typed field `key` of kind `kind`; undefined leaves the zero value. */
export function decodeField(key: string, kind: FieldKind, v: unknown): unknown {
  if (v === null) return undefined; // JSON null leaves a Go field untouched.
  switch (kind) {
    case "string":
      if (typeof v !== "string") throw mismatch(key, v, "string");
      return v;
    case "map":
      return stringMap(key, v);
    case "stringList":
      if (typeof v !== "string") throw mismatch(key, v, "string");
      return v === "" ? [] : v.split(",");
    case "stringBool":
    case "stringBoolPtr": {
      if (typeof v !== "string") throw mismatch(key, v, "StringBool");
      const b = parseBool(v);
      if (b === undefined)
        throw new MetadataTypeError(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
      return b;
    }
    case "int":
      if (typeof v !== "number" || !Number.isInteger(v)) throw mismatch(key, v, "int");
      return v;
    case "strings":
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string" && x !== null)) throw mismatch(key, v, "[]string");
      return v.map((x) => x ?? "");
    case "podPorts": {
      if (typeof v !== "string") throw mismatch(key, v, "PodPortList");
      let list: unknown;
      try {
        list = JSON.parse(v);
      } catch (e) {
        throw new MetadataTypeError(`node metadata ${key}: ${(e as Error).message}`);
      }
      if (!Array.isArray(list)) throw mismatch(key, list, "[]PodPort");
      return list;
    }
    case "proxyConfig":
      try {
        return decodeMessage("ProxyConfig", v) as ProxyConfig;
      } catch (e) {
        if (e instanceof ProtoJSONError) throw new MetadataTypeError(`node metadata ${key}: ${e.message}`);
        throw e;
      }
  }
}

/** The JSON value json.Marshal writes for a field, or undefined when `omitempty` leaves it out. */
export function encodeField(kind: FieldKind, v: unknown): unknown {
  if (v === undefined || v === null) return undefined;
  switch (kind) {
    case "string":
      return v === "" ? undefined : v;
    case "map":
      return Object.keys(v as object).length === 0 ? undefined : v;
    case "stringList":
      return (v as string[]).length === 0 ? undefined : (v as string[]).join(",");
    case "stringBool":
      return v === true ? "true" : undefined;
    case "stringBoolPtr":
      return v ? "true" : "false";
    case "int":
      return v === 0 ? undefined : v;
    case "strings":
      return (v as string[]).length === 0 ? undefined : v;
    case "podPorts":
      return (v as unknown[]).length === 0 ? undefined : JSON.stringify(v);
    case "proxyConfig":
      return toProtoJSONValue(v as ProxyConfig, "ProxyConfig");
  }
}

/** The typed field a raw key decodes into: the exact JSON key, else one equal under Unicode case folding (as Go matches). */
export function fieldFor(rawKey: string): string | undefined {
  if (METADATA_FIELDS.has(rawKey)) return rawKey;
  const upper = rawKey.toUpperCase();
  for (const key of METADATA_FIELDS.keys()) if (key === upper) return key;
  return undefined;
}
