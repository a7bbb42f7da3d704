/**
 * Istio's GetNodeMetaData (pkg/bootstrap/config.go), pure: the Envoy node — its ID, typed metadata,
 * raw metadata and locality — from the agent's environment, proxy config and the pod's downward-API
 * files (passed in as text; the caller reads them). The order of the steps is Istio's and matters:
 * later steps overwrite earlier ones.
 */

import { decodeJSON } from "../../go/encoding/json.js";
import { isRecord } from "../../go/json.js";
import type { ProxyConfig } from "../../mesh/index.js";
import { DownwardAPIError, parseDownwardAPI } from "./downward-api.js";
import { decodeField, fieldFor, METADATA_FIELDS, type TypedMetadata } from "./metadata-fields.js";

export const ISTIO_META_PREFIX = "ISTIO_META_";
export const ISTIO_METAJSON_PREFIX = "ISTIO_METAJSON_";
export const LOCALITY_LABEL = "istio-locality";
export const TOPOLOGY_LOCALITY_LABEL = "topology.istio.io/locality";
const POD_TEMPLATE_HASH = "pod-template-hash";

export interface Locality {
  region?: string;
  zone?: string;
  subZone?: string;
}

/** What the platform (cloud) tells about the node; Kubernetes without a cloud reports nothing. */
export interface Platform {
  metadata: Record<string, string>;
  locality: Locality;
  labels: Record<string, string> | undefined;
  isKubernetes: boolean;
}

export interface MetadataOptions {
  /** The process environment as `K=V` entries, in order. */
  envs: readonly string[];
  platform?: Platform;
  instanceIPs: readonly string[];
  stsPort?: number;
  id: string;
  /** The proxy config (undefined is Go's nil). */
  proxyConfig?: ProxyConfig;
  pilotSubjectAltName?: readonly string[];
  credentialSocketExists?: boolean;
  customCredentialsFileExists?: boolean;
  xdsRootCert?: string;
  outlierLogPath?: string;
  envoyStatusPort?: number;
  envoyPrometheusPort?: number;
  envoySecureMetricsPort?: number;
  envoySecureMergedMetricsPort?: number;
  exitOnZeroActiveConnections?: boolean;
  /** undefined is nil: then ENABLE_HBONE's value. */
  metadataDiscovery?: boolean;
  envoySkipDeprecatedLogs?: boolean;
  workloadIdentitySocketFile?: string;
  /** The agent's own version: ISTIO_VERSION when no metadata gives one. */
  binaryVersion: string;
  /** The pod labels file's text (`./etc/istio/pod/labels`); undefined when it cannot be read. */
  labelsFile?: string;
  /** The pod annotations file's text; undefined when it cannot be read. */
  annotationsFile?: string;
  /** The process's DNS_PROXY_ADDR (not from `envs`: Istio reads the real environment). */
  dnsProxyAddr?: string;
}

export interface Node {
  id: string;
  metadata: TypedMetadata;
  /** The untyped metadata: ISTIO_META_* and ISTIO_METAJSON_* entries, and what Istio adds to them. */
  raw: Record<string, unknown>;
  locality: Locality;
  /** What pilot-agent logs as warnings on the way (unparsable JSON, unreadable files). */
  warnings: string[];
}

/** Splits `K=V` at the first `=`; undefined without one. */
function splitEnv(entry: string): [string, string] | undefined {
  const eq = entry.indexOf("=");
  return eq < 0 ? undefined : [entry.slice(0, eq), entry.slice(eq + 1)];
}

/** model.SanitizeLocalityLabel: `.` separators become `/` unless the label already has a `/`. */
export function sanitizeLocality(label: string): string {
  return label.includes("/") ? label : label.replaceAll(".", "/");
}

/** label.SplitLocalityLabel via util.ConvertLocality: region/zone/sub-zone (the rest joined). */
export function convertLocality(locality: string): Locality {
  if (locality === "") return {};
  const items = locality.split("/");
  const [region = "", zone = "", ...rest] = items;
  const l: Locality = { region };
  if (items.length > 1) l.zone = zone;
  if (rest.length > 0) l.subZone = rest.join("/");
  return l;
}

/** GetLocalityLabel: topology.istio.io/locality first, then istio-locality. */
function localityLabel(labels: Record<string, string> | undefined): string {
  if (labels === undefined) return "";
  if (Object.hasOwn(labels, TOPOLOGY_LOCALITY_LABEL)) return labels[TOPOLOGY_LOCALITY_LABEL] as string;
  return labels[LOCALITY_LABEL] ?? "";
}

/** Decodes the raw metadata into the typed fields (json.Marshal then json.Unmarshal into the struct). */
export function decodeTypedMetadata(raw: Record<string, unknown>): TypedMetadata {
  const typed: TypedMetadata = {};
  // Go's decoder walks the marshalled map in key order; a later key of the same field wins.
  for (const key of Object.keys(raw).sort()) {
    const field = fieldFor(key);
    if (field === undefined) continue;
    const value = decodeField(field, METADATA_FIELDS.get(field) as never, raw[key]);
    if (value !== undefined) typed[field] = value;
  }
  return typed;
}

/** Go's json.Unmarshal of a JSON object into a map[string]string; undefined (and a warning) when it fails. */
function jsonStringMap(text: string, warnings: string[]): Record<string, string> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null) return undefined;
    if (!isRecord(v) || Object.values(v).some((x) => typeof x !== "string" && x !== null)) {
      throw new Error("cannot unmarshal into map[string]string");
    }
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null)) as Record<string, string>;
  } catch (e) {
    warnings.push(`Env variable with value ${JSON.stringify(text)} failed json unmarshal: ${(e as Error).message}`);
    return undefined;
  }
}

/** GetNodeMetaData. Throws MetadataTypeError when a raw value does not fit its typed field. */
export function getNodeMetaData(options: MetadataOptions): Node {
  const warnings: string[] = [];
  const raw: Record<string, unknown> = {};
  // 1. proxyMetadata entries named ISTIO_META_*.
  for (const [k, v] of Object.entries(options.proxyConfig?.proxyMetadata ?? {})) {
    if (k.startsWith(ISTIO_META_PREFIX)) raw[k.slice(ISTIO_META_PREFIX.length)] = v;
  }
  // 2. ISTIO_META_K=V from the environment.
  for (const e of options.envs) {
    if (!e.startsWith(ISTIO_META_PREFIX)) continue;
    const kv = splitEnv(e.slice(ISTIO_META_PREFIX.length));
    if (kv !== undefined) raw[kv[0]] = kv[1];
  }
  // 3. ISTIO_METAJSON_*: the object's keys are merged into the raw metadata itself.
  for (const e of options.envs) {
    if (!e.startsWith(ISTIO_METAJSON_PREFIX)) continue;
    const kv = splitEnv(e.slice(ISTIO_METAJSON_PREFIX.length));
    if (kv === undefined) continue;
    try {
      const v = decodeJSON(kv[1]);
      if (v === null) continue;
      if (!isRecord(v)) throw new Error(`json: cannot unmarshal ${Array.isArray(v) ? "array" : typeof v} into map`);
      Object.assign(raw, v);
    } catch (err) {
      warnings.push(`Env variable ${kv[0]} [${kv[1]}] failed json unmarshal: ${(err as Error).message}`);
    }
  }
  // 4. The DNS proxy's address, from the real process environment.
  if (options.dnsProxyAddr) raw.DNS_PROXY_ADDR = options.dnsProxyAddr;
  // 5. The typed view.
  const meta = decodeTypedMetadata(raw);
  // 6. What the agent itself knows.
  if (!meta.ISTIO_VERSION) meta.ISTIO_VERSION = options.binaryVersion;
  meta.INSTANCE_IPS = [...new Set(options.instanceIPs)];
  if (options.stsPort) meta.STS_PORT = String(options.stsPort);
  meta.ENVOY_STATUS_PORT = options.envoyStatusPort ?? 0;
  meta.ENVOY_PROMETHEUS_PORT = options.envoyPrometheusPort ?? 0;
  meta.ENVOY_SECURE_METRICS_PORT = options.envoySecureMetricsPort ?? 0;
  meta.ENVOY_SECURE_MERGED_METRICS_PORT = options.envoySecureMergedMetricsPort ?? 0;
  meta.EXIT_ON_ZERO_ACTIVE_CONNECTIONS = options.exitOnZeroActiveConnections ?? false;
  if (options.metadataDiscovery !== undefined) meta.METADATA_DISCOVERY = options.metadataDiscovery;
  else delete meta.METADATA_DISCOVERY;
  meta.ENVOY_SKIP_DEPRECATED_LOGS = options.envoySkipDeprecatedLogs ?? false;
  meta.WORKLOAD_IDENTITY_SOCKET_FILE = options.workloadIdentitySocketFile ?? "";
  if (options.proxyConfig !== undefined) meta.PROXY_CONFIG = options.proxyConfig;
  else delete meta.PROXY_CONFIG;
  // 7. Attributes from the environment (every entry, last wins).
  for (const e of options.envs) {
    const [name, value] = splitEnv(e) ?? [e, ""];
    switch (name) {
      case "ISTIO_METAJSON_LABELS": {
        const m = jsonStringMap(value, warnings);
        if (m !== undefined && Object.keys(m).length > 0) {
          // One map object for both, as in Istio: changing one changes the other.
          meta.LABELS = m;
          meta.STATIC_LABELS = m;
        }
        break;
      }
      case "POD_NAME":
        meta.NAME = value;
        break;
      case "POD_NAMESPACE":
        meta.NAMESPACE = value;
        break;
      case "SERVICE_ACCOUNT":
        meta.SERVICE_ACCOUNT = value;
        break;
    }
  }
  const platform = options.platform;
  if (platform !== undefined && Object.keys(platform.metadata).length > 0) meta.PLATFORM_METADATA = platform.metadata;
  if (platform !== undefined && !platform.isKubernetes) {
    meta.STATIC_LABELS = { ...((meta.STATIC_LABELS as Record<string, string>) ?? {}), ...(platform.labels ?? {}) };
  }
  // 8. Pod labels from the downward-API file.
  if (options.labelsFile !== undefined) {
    try {
      const fileLabels = parseDownwardAPI(options.labelsFile);
      const labels: Record<string, string> = { ...((meta.STATIC_LABELS as Record<string, string>) ?? {}) };
      for (const [k, v] of Object.entries(fileLabels)) if (k !== POD_TEMPLATE_HASH) labels[k] = v;
      meta.LABELS = labels;
    } catch (e) {
      if (!(e instanceof DownwardAPIError)) throw e;
      warnings.push(`failed to read pod labels: ${e.message}`);
    }
  }
  // 9. Pod annotations from the downward-API file.
  if (options.annotationsFile !== undefined) {
    try {
      const annotations = parseDownwardAPI(options.annotationsFile);
      meta.ANNOTATIONS = { ...((meta.ANNOTATIONS as Record<string, string>) ?? {}), ...annotations };
    } catch (e) {
      if (!(e instanceof DownwardAPIError)) throw e;
      warnings.push(`failed to read pod annotations: ${e.message}`);
    }
  }
  // 10. Locality.
  const labels = meta.LABELS as Record<string, string> | undefined;
  let locality: Locality;
  const label = localityLabel(labels);
  if (label === "" && platform !== undefined) {
    locality = { ...platform.locality };
  } else {
    const sanitized = sanitizeLocality(label);
    if (sanitized !== "" && labels !== undefined) labels[LOCALITY_LABEL] = sanitized;
    locality = convertLocality(sanitized);
  }
  // 11. From the options.
  meta.PILOT_SAN = options.pilotSubjectAltName === undefined ? undefined : [...options.pilotSubjectAltName];
  meta.OUTLIER_LOG_PATH = options.outlierLogPath ?? "";
  if (options.credentialSocketExists) raw.credential = "true";
  if (options.customCredentialsFileExists) raw["file-credential"] = "true";
  // 12. Metadata discovery follows HBONE unless set.
  if (meta.METADATA_DISCOVERY === undefined) meta.METADATA_DISCOVERY = meta.ENABLE_HBONE === true;
  return { id: options.id, metadata: meta, raw, locality, warnings };
}
