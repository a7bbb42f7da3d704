/**
 * The merges of pkg/config/mesh/mesh.go: jsonpb's "present fields replace" apply, the proxy config
 * merge (ApplyProxyConfig: proxyMetadata merged key by key, unset proxyHeaders parts kept) and the
 * mesh config merge (ApplyMeshConfig: defaultConfig merged, defaultProviders merged field by field,
 * extensionProviders merged by name, trustDomainAliases united; then validated). Inputs are never
 * modified; every function returns a new message.
 */

import { cloneJson, isRecord } from "../go/json.js";
import { multiErrorText } from "../go/multierror.js";
import { compareStrings } from "../go/value.js";
import { defaultProxyConfig } from "./defaults.js";
import { type DecodeOptions, decodeMessage } from "./from-json.js";
import { enumValueNumber, inDeclarationOrder, type Msg } from "./message.js";
import { findField, messageDef } from "./schema.js";
import type { MeshConfig, ProxyConfig } from "./types.js";
import { validateMeshConfig } from "./validate.js";
import { readYamlObject } from "./yaml.js";

export type ApplyOptions = DecodeOptions;

/** A mesh or proxy config that cannot be applied; the message says which and why. */
export class MeshConfigError extends Error {
  override name = "MeshConfigError";
}

function wrap<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof MeshConfigError) throw e;
    throw new MeshConfigError(`${prefix}${(e as Error).message}`);
  }
}

/** Sets the decoded fields over a copy of `base` (a oneof member clears its siblings). */
function overlay(type: string, base: Msg, decoded: Msg): Msg {
  const def = messageDef(type);
  const out = cloneJson(base);
  for (const [key, value] of Object.entries(decoded)) {
    const field = findField(def, key);
    if (field?.oneof) for (const other of def.fields) if (other.oneof === field.oneof) delete out[other.json];
    out[key] = cloneJson(value);
  }
  return inDeclarationOrder(type, out);
}

/** jsonpb Unmarshal onto an existing message: each field present in `json` replaces the old value. */
export function applyJSON(type: string, base: Msg, json: unknown, options: ApplyOptions = {}): Msg {
  if (json === null || json === undefined) return cloneJson(base);
  return overlay(type, base, decodeMessage(type, json, options));
}

/** Istio's MergeProxyConfig on a JSON value: apply, then merge proxyMetadata and fix up proxyHeaders. */
export function mergeProxyConfigJSON(json: unknown, base: Msg, options: ApplyOptions = {}): Msg {
  if (json === null || json === undefined) return cloneJson(base);
  const decoded = decodeMessage("ProxyConfig", json, options);
  const out = overlay("ProxyConfig", base, decoded);
  if (decoded.proxyMetadata !== undefined) {
    out.proxyMetadata = {
      ...((base.proxyMetadata as Record<string, string>) ?? {}),
      ...(decoded.proxyMetadata as object),
    };
  }
  const ph = out.proxyHeaders;
  const orig = base.proxyHeaders;
  if (decoded.proxyHeaders !== undefined && isRecord(ph) && isRecord(orig)) {
    const fixed: Msg = { ...ph };
    const fcc = findField(messageDef("ProxyConfig.ProxyHeaders"), "forwardedClientCert");
    if (fcc && (ph.forwardedClientCert === undefined || enumValueNumber(fcc, ph.forwardedClientCert) === 0)) {
      if (orig.forwardedClientCert !== undefined) fixed.forwardedClientCert = orig.forwardedClientCert;
    }
    for (const key of ["requestId", "attemptCount", "server", "envoyDebugHeaders"]) {
      if (ph[key] === undefined && orig[key] !== undefined) fixed[key] = cloneJson(orig[key]);
    }
    out.proxyHeaders = inDeclarationOrder("ProxyConfig.ProxyHeaders", fixed);
  }
  return out;
}

/**
 * The `proxy.istio.io/config` merge: the proxy config YAML over `base` (present fields replace,
 * proxyMetadata merges key by key). `base` is not modified.
 */
export function applyProxyConfig(yamlText: string, base: ProxyConfig, options: ApplyOptions = {}): ProxyConfig {
  return wrap("could not parse proxy config: ", () =>
    mergeProxyConfigJSON(readYamlObject(yamlText), base as Msg, options),
  ) as ProxyConfig;
}

/** Istio's mesh.ApplyProxyConfig: the proxy config YAML merged into `mesh.defaultConfig`; `mesh` is not modified. */
export function applyProxyConfigToMesh(
  yamlText: string,
  mesh: MeshConfig | undefined,
  options: ApplyOptions = {},
): MeshConfig {
  const mc: Msg = mesh === undefined ? { defaultConfig: defaultProxyConfig() } : cloneJson(mesh as Msg);
  const pc = isRecord(mc.defaultConfig) ? mc.defaultConfig : {};
  mc.defaultConfig = applyProxyConfig(yamlText, pc, options);
  return inDeclarationOrder("MeshConfig", mc) as MeshConfig;
}

/**
 * mesh.ApplyMeshConfig: the mesh config YAML over `base`. Top-level fields replace, except
 * defaultConfig (merged as a proxy config), defaultProviders (its fields replace one by one),
 * extensionProviders (merged by name, new names appended) and trustDomainAliases (sorted union).
 * The result is validated; validation errors throw. `base` is not modified.
 */
export function applyMeshConfig(yamlText: string, meshBase: MeshConfig, options: ApplyOptions = {}): MeshConfig {
  const base = meshBase as Msg;
  const raw = wrap("failed to convert to proto. ", () => readYamlObject(yamlText));
  const decoded = wrap("failed to convert to proto. ", () => decodeMessage("MeshConfig", raw, options));
  const out = overlay("MeshConfig", base, decoded);

  // defaultConfig: only the camelCase key is looked at for the merge, as Istio extracts it by that name.
  out.defaultConfig = cloneJson(base.defaultConfig);
  if (raw.defaultConfig !== null && raw.defaultConfig !== undefined) {
    const prev = isRecord(base.defaultConfig) ? base.defaultConfig : {};
    out.defaultConfig = wrap("could not parse proxy config: ", () => mergeProxyConfigJSON(raw.defaultConfig, prev));
  }

  out.defaultProviders = cloneJson(base.defaultProviders);
  if (raw.defaultProviders !== null && raw.defaultProviders !== undefined) {
    const prev = isRecord(base.defaultProviders) ? base.defaultProviders : {};
    out.defaultProviders = wrap("could not parse default providers: ", () =>
      applyJSON("MeshConfig.DefaultProviders", prev, raw.defaultProviders),
    );
  }

  const merged = cloneJson((base.extensionProviders as Msg[] | undefined) ?? []);
  for (const p of (out.extensionProviders as Msg[] | undefined) ?? []) {
    const existing = merged.find((e) => e.name === p.name);
    if (existing === undefined) {
      merged.push(cloneJson(p));
      continue;
    }
    for (const key of Object.keys(existing)) if (key !== "name") delete existing[key];
    for (const [key, value] of Object.entries(p)) if (key !== "name") existing[key] = cloneJson(value);
  }
  out.extensionProviders = merged.map((e) => inDeclarationOrder("MeshConfig.ExtensionProvider", e));

  const aliases = [
    ...((out.trustDomainAliases as string[] | undefined) ?? []),
    ...((base.trustDomainAliases as string[] | undefined) ?? []),
  ];
  out.trustDomainAliases = [...new Set(aliases)].sort(compareStrings);

  const result = inDeclarationOrder("MeshConfig", out);
  const { errors } = validateMeshConfig(result);
  if (errors.length > 0) throw new MeshConfigError(multiErrorText(errors));
  return result as MeshConfig;
}
