/**
 * The proxy config a workload ends up with. Injector side (pilot/pkg/model/proxy_config.go
 * EffectiveProxyConfig): defaults < mesh defaultConfig < root-namespace ProxyConfig resource <
 * namespace resource < `proxy.istio.io/config` annotation < workload-selecting resource. Agent side
 * (pilot-agent getMeshConfig): defaults < mesh config file < PROXY_CONFIG env < annotation.
 */

import { isRecord } from "../go/json.js";
import { applyMeshConfig, applyProxyConfig, applyProxyConfigToMesh, mergeProxyConfigJSON } from "./apply.js";
import { defaultMeshConfig, defaultProxyConfig } from "./defaults.js";
import type { Msg } from "./message.js";
import { protoToJSON } from "./to-json.js";
import type { MeshConfig, ProxyConfig } from "./types.js";

export const PROXY_CONFIG_ANNOTATION = "proxy.istio.io/config";

/** A `networking.istio.io` ProxyConfig resource, as EffectiveProxyConfig sees it. */
export interface ProxyConfigResource {
  name: string;
  namespace: string;
  /** The spec: selector, concurrency, environmentVariables, image. */
  spec: Record<string, unknown>;
  /** Creation time (any monotonic number, e.g. epoch seconds); older resources win. */
  creationTime?: number;
}

export interface ProxyIdentity {
  namespace: string;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
}

/** toMeshConfigProxyConfig: concurrency, environmentVariables (→ proxyMetadata) and image carried over. */
export function toMeshConfigProxyConfig(spec: Record<string, unknown>): ProxyConfig {
  const out: Msg = {};
  if (spec.concurrency !== undefined && spec.concurrency !== null) out.concurrency = spec.concurrency;
  if (isRecord(spec.environmentVariables)) out.proxyMetadata = { ...spec.environmentVariables };
  if (isRecord(spec.image)) out.image = { ...spec.image };
  return out;
}

/**
 * mergeWithPrecedence: the first config wins. Each is rendered as jsonpb JSON and applied, lowest
 * first, with the proxy config merge rules; undefined/null entries are skipped.
 */
export function mergeWithPrecedence(...configs: Array<ProxyConfig | null | undefined>): ProxyConfig {
  let merged: Msg = {};
  for (let i = configs.length - 1; i >= 0; i--) {
    const pc = configs[i];
    if (pc === null || pc === undefined) continue;
    merged = mergeProxyConfigJSON(JSON.parse(protoToJSON(pc, "ProxyConfig")), merged);
  }
  return merged as ProxyConfig;
}

function sortResources(list: readonly ProxyConfigResource[]): ProxyConfigResource[] {
  return [...list].sort(
    (a, b) =>
      (a.creationTime ?? 0) - (b.creationTime ?? 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0),
  );
}

function selectorLabels(spec: Record<string, unknown>): Record<string, string> {
  const sel = spec.selector;
  return isRecord(sel) && isRecord(sel.matchLabels) ? (sel.matchLabels as Record<string, string>) : {};
}

/** The oldest selector-less resource of a namespace. */
function namespaceConfig(list: ProxyConfigResource[], ns: string): ProxyConfig | undefined {
  const r = list.find((c) => c.namespace === ns && Object.keys(selectorLabels(c.spec)).length === 0);
  return r && toMeshConfigProxyConfig(r.spec);
}

/** The oldest resource of the namespace whose non-empty selector matches the labels. */
function workloadConfig(
  list: ProxyConfigResource[],
  ns: string,
  labels: Record<string, string>,
): ProxyConfig | undefined {
  const r = list.find((c) => {
    if (c.namespace !== ns) return false;
    const sel = selectorLabels(c.spec);
    const keys = Object.keys(sel);
    return keys.length > 0 && keys.every((k) => labels[k] === sel[k]);
  });
  return r && toMeshConfigProxyConfig(r.spec);
}

/** EffectiveProxyConfig for a proxy. `mesh` is not modified. An invalid annotation is ignored. */
export function effectiveProxyConfig(
  mesh: MeshConfig,
  proxy: ProxyIdentity,
  resources: readonly ProxyConfigResource[] = [],
): ProxyConfig {
  const list = sortResources(resources);
  const root = typeof mesh.rootNamespace === "string" ? mesh.rootNamespace : "";
  const meshDefault = isRecord(mesh.defaultConfig) ? mesh.defaultConfig : undefined;
  let pc = mergeWithPrecedence(meshDefault, defaultProxyConfig());
  pc = mergeWithPrecedence(namespaceConfig(list, root), pc);
  if (proxy.namespace !== root) pc = mergeWithPrecedence(namespaceConfig(list, proxy.namespace), pc);
  const annotation = proxy.annotations?.[PROXY_CONFIG_ANNOTATION];
  if (annotation) {
    try {
      pc = mergeWithPrecedence(applyProxyConfig(annotation, {}), pc);
    } catch {
      // Istio logs and ignores an annotation it cannot parse.
    }
  }
  return mergeWithPrecedence(workloadConfig(list, proxy.namespace, proxy.labels ?? {}), pc);
}

/**
 * The proxy config the injector renders for a pod without ProxyConfig resources: `mesh.defaultConfig`
 * with the pod's `proxy.istio.io/config` annotation merged over it (ApplyProxyConfig). Throws when
 * the annotation cannot be parsed.
 */
export function podProxyConfig(mesh: MeshConfig, annotations?: Record<string, string> | null): ProxyConfig {
  const annotation = annotations?.[PROXY_CONFIG_ANNOTATION];
  const base = isRecord(mesh.defaultConfig) ? mesh.defaultConfig : defaultProxyConfig();
  return annotation ? applyProxyConfig(annotation, base) : base;
}

export interface AgentInputs {
  /** The mesh config file (ConfigMap `mesh` key as mounted). */
  meshConfigFile?: string;
  /** The PROXY_CONFIG environment variable. */
  proxyConfigEnv?: string;
  /** The `proxy.istio.io/config` annotation. */
  proxyConfigAnnotation?: string;
}

/** pilot-agent's getMeshConfig: the resulting mesh config (its defaultConfig is the proxy's). */
export function agentMeshConfig(inputs: AgentInputs): MeshConfig {
  let mc = defaultMeshConfig();
  if (inputs.meshConfigFile) mc = applyMeshConfig(inputs.meshConfigFile, mc);
  if (inputs.proxyConfigEnv) mc = applyProxyConfigToMesh(inputs.proxyConfigEnv, mc);
  if (inputs.proxyConfigAnnotation) mc = applyProxyConfigToMesh(inputs.proxyConfigAnnotation, mc);
  return mc;
}
