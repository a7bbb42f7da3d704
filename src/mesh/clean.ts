/**
 * cleanProxyConfig (pkg/kube/inject/template.go): the proxy config with every field equal to its
 * DefaultProxyConfig() value removed, which is what the injector writes into the sidecar's
 * PROXY_CONFIG variable (as `protoToJSON`), so that the agent's own defaults fill the rest.
 */

import { cloneJson, isRecord } from "../go/json.js";
import { defaultProxyConfig } from "./defaults.js";
import { fieldsEqual, type Msg } from "./message.js";
import { findField, messageDef } from "./schema.js";
import { protoToJSON } from "./to-json.js";
import type { ProxyConfig } from "./types.js";

/** The fields Istio compares with the defaults (serviceCluster only when it is the set cluster name). */
const CLEANED = [
  "configPath",
  "binaryPath",
  "controlPlaneAuthPolicy",
  "serviceCluster",
  "drainDuration",
  "terminationDrainDuration",
  "discoveryAddress",
  "envoyMetricsService",
  "envoyAccessLogService",
  "tracing",
  "proxyAdminPort",
  "statNameLength",
  "statusPort",
  "concurrency",
] as const;

export function cleanProxyConfig(pc: ProxyConfig): ProxyConfig {
  const out: Msg = cloneJson(pc);
  const defaults: Msg = defaultProxyConfig();
  const def = messageDef("ProxyConfig");
  for (const key of CLEANED) {
    const field = findField(def, key);
    if (field === undefined) continue;
    if (key === "serviceCluster") {
      // Only a set service cluster equal to the default's goes; a tracing service name stays.
      if (typeof out.serviceCluster === "string" && out.serviceCluster === defaults.serviceCluster) {
        delete out.serviceCluster;
      }
      continue;
    }
    if (fieldsEqual(field, out[key], defaults[key])) delete out[key];
  }
  if (!isRecord(out.proxyMetadata) || Object.keys(out.proxyMetadata).length === 0) delete out.proxyMetadata;
  return out as ProxyConfig;
}

/** The PROXY_CONFIG value: `protoToJSON(cleanProxyConfig(pc))`. */
export function proxyConfigJSON(pc: ProxyConfig): string {
  return protoToJSON(cleanProxyConfig(pc), "ProxyConfig");
}
