/**
 * Istio's own template functions (its "injection func map"), which injection templates use on top
 * of Sprig. Where a name exists in Sprig too (`contains`, `indent`, `toYaml`, `omit`), Istio's
 * version wins, as it is registered after Sprig's.
 *
 * Each is declared with the Go signature Istio gives it, so templates get Go's argument checks.
 */

import { encodeJSON } from "../go/encoding/json.js";
import { writeYaml } from "../go/yaml/write.js";
import { goViewJSON } from "../kube/go-view.js";
import {
  formatValue,
  GoError,
  type GoFunc,
  type GoValue,
  goFunc,
  isGoObject,
  isMap,
  newMap,
  TypedNil,
  typeName,
  withGoType,
} from "../template/index.js";
import { checkResultSize } from "../template/sprig/limits.js";
import { goToLower } from "../template/sprig/strcase.js";
import { otelResourceAttributes } from "./otel-attributes.js";
import { goJSON } from "./pod.js";

/** What the environment-reading `env` function sees; injected so that the core stays pure. */
export type EnvLookup = (name: string) => string | undefined;

type StringMap = Record<string, string>;

function stringMap(v: GoValue): StringMap {
  return v instanceof TypedNil || v === null || v === undefined ? {} : (v as StringMap);
}

/** `excludeInboundPort PORT LIST`: adds the port (e.g. the status port) to a comma-separated list unless present. */
export function excludeInboundPort(port: GoValue, excluded: string): string {
  const portStr = formatValue(port === undefined ? null : port).trim();
  if (portStr === "" || portStr === "0") return excluded;
  const kept: string[] = [];
  for (const p of excluded.split(",")) {
    if (p === portStr) return excluded;
    const t = p.trim();
    if (t !== "") kept.push(t);
  }
  kept.push(portStr);
  return kept.join(",");
}

/** The TCP ports of the given containers (UDP and SCTP ports are not intercepted), comma-separated. */
function containerPorts(containers: GoValue, include: (name: string) => boolean): string {
  const parts: string[] = [];
  for (const c of listOf(containers)) {
    if (!include(String(fieldOf(c, "Name") ?? ""))) continue;
    for (const p of listOf(fieldOf(c, "Ports"))) {
      const protocol = String(fieldOf(p, "Protocol") ?? "");
      if (protocol === "UDP" || protocol === "SCTP") continue;
      parts.push(formatValue(fieldOf(p, "ContainerPort")));
    }
  }
  return parts.join(",");
}

function listOf(v: GoValue): GoValue[] {
  return Array.isArray(v) ? v : [];
}

function fieldOf(v: GoValue, name: string): GoValue {
  if (isGoObject(v)) return v.goField(name);
  if (v !== null && typeof v === "object") return (v as Record<string, GoValue>)[name];
  return undefined;
}

/** `annotation META NAME DEFAULT`: the pod annotation, or the default printed with Go's %v. */
function annotation(meta: GoValue, name: string, defaultValue: GoValue): string {
  const annotations = stringMap(fieldOf(meta, "Annotations"));
  if (Object.hasOwn(annotations, name)) return annotations[name] as string;
  return formatValue(defaultValue === undefined ? null : defaultValue);
}

/** Istio's `indent`: indents every line but the first (unlike Sprig's, which indents all). */
function indent(spaces: bigint, source: string): string {
  if (spaces > 0n) checkResultSize("indent", spaces * BigInt(source.split("\n").length) + BigInt(source.length));
  const pad = " ".repeat(Math.max(0, Number(spaces)));
  return source
    .split("\n")
    .map((line, i) => (i === 0 ? line : pad + line))
    .join("\n");
}

/** `appendMultusNetwork EXISTING NETWORK`: adds Istio's CNI network to a Multus networks annotation (list or JSON). */
export function appendMultusNetwork(existing: string, network: string): string {
  if (existing === "") return network;
  const close = existing.lastIndexOf("]");
  if (close !== -1) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(existing);
    } catch {
      return existing; // not valid JSON: leave it alone, as Istio does
    }
    if (!Array.isArray(parsed)) return existing;
    // In the JSON form a `namespace/name` reference is written as separate name and namespace fields.
    const slash = network.indexOf("/");
    const name = slash === -1 ? network : network.slice(slash + 1);
    const namespace = slash === -1 ? undefined : network.slice(0, slash);
    const present = parsed.some((n) => {
      if (n === null || typeof n !== "object") return false;
      const entry = n as { name?: unknown; namespace?: unknown };
      return (
        entry.name === name &&
        (namespace === undefined || entry.namespace === undefined || entry.namespace === namespace)
      );
    });
    if (present) return existing;
    const entry = namespace === undefined ? `{"name": "${name}"}` : `{"name": "${name}", "namespace": "${namespace}"}`;
    return `${existing.slice(0, close)}, ${entry}${existing.slice(close)}`;
  }
  if (existing.split(",").some((n) => n.trim() === network)) return existing;
  return `${existing}, ${network}`;
}

/**
 * `omitNil V`: V without nil values, recursively through maps (`map[string]interface {}`) and lists
 * (`[]interface {}`), which drops `cpu: null` left by a values merge. A map or list is copied only
 * when something under it was dropped, and is nil itself when that left it empty; one that was empty
 * to begin with stays as it is. Anything else (typed maps and slices included) is returned as is.
 * Istio: pkg/kube/inject/template.go omitNil, omitNilInternal.
 */
export function omitNil(data: GoValue): GoValue {
  return omitNilInternal(data)[0];
}

function isNil(v: GoValue): boolean {
  return v === null || v === undefined || v instanceof TypedNil;
}

/** Whether `v` is a `map[string]interface {}` (not a typed map, a Go struct or a typed scalar). */
function isAnyMap(v: GoValue): v is Record<string, GoValue> {
  return !Array.isArray(v) && isMap(v) && typeName(v) === "map[string]interface {}";
}

/** `[value, changed]`, as Go's two passes: nothing is copied unless a nil was found under `v`. */
function omitNilInternal(v: GoValue): [GoValue, boolean] {
  if (isNil(v)) return [null, true];
  if (Array.isArray(v) && typeName(v) === "[]interface {}") {
    const i = v.findIndex((e) => omitNilInternal(e)[1]);
    if (i === -1) return [v, false];
    const out = v.slice(0, i);
    for (const e of v.slice(i)) {
      const f = omitNil(e);
      if (!isNil(f)) out.push(f);
    }
    return [out.length === 0 ? null : out, true];
  }
  if (isAnyMap(v)) {
    if (!Object.values(v).some((e) => omitNilInternal(e)[1])) return [v, false];
    const out = newMap();
    for (const [k, e] of Object.entries(v)) {
      const f = omitNil(e);
      if (!isNil(f)) out[k] = f;
    }
    return [Object.keys(out).length === 0 ? null : out, true];
  }
  return [v, false];
}

function omit(dict: GoValue, ...keys: string[]): GoValue {
  const drop = new Set(keys);
  const out: Record<string, GoValue> = {};
  for (const [k, v] of Object.entries(stringMap(dict))) if (!drop.has(k)) out[k] = v;
  return withGoType(out, "map[string]string");
}

/** `strdict k1 v1 k2 v2 ...`: like Sprig's dict, but a map[string]string fit for labels and annotations. */
function strdict(...kv: string[]): GoValue {
  const out: Record<string, string> = {};
  for (let i = 0; i < kv.length; i += 2) out[kv[i] as string] = kv[i + 1] ?? "";
  return withGoType(out, "map[string]string");
}

function mergeMaps(...maps: GoValue[]): GoValue {
  const out: Record<string, string> = {};
  for (const m of maps) Object.assign(out, stringMap(m));
  return withGoType(out, "map[string]string");
}

function toJSONMap(...maps: GoValue[]): string {
  return encodeJSON(mergeMaps(...maps), { escapeHTML: true });
}

/** `toJSON MAP`: a map[string]string as JSON; `{}` for a nil map. */
function toJSON(m: GoValue): string {
  if (m === null || m === undefined || m instanceof TypedNil) return "{}";
  return encodeJSON(m, { escapeHTML: true });
}

/** `fromJSON TEXT`: decoded JSON; on bad input Istio returns the string "{}". */
function fromJSON(text: string): GoValue {
  try {
    return JSON.parse(text) as GoValue;
  } catch {
    return "{}";
  }
}

/** `structToJSON V`: Go's json.Marshal of a value; "{}" for nil. */
function structToJSON(v: GoValue): string {
  if (v === null || v === undefined) return "{}";
  // A Kubernetes struct marshals with its json names, in declaration order, omitting empty fields.
  const typed = goViewJSON(v);
  if (typed !== undefined) return goJSON(typed);
  try {
    return encodeJSON(v, { escapeHTML: true });
  } catch {
    return "{}";
  }
}

/** `toYaml V`: sigs.k8s.io/yaml's Marshal (trailing newline kept, unlike Helm's toYaml). */
function toYaml(v: GoValue): string {
  try {
    return writeYaml(JSON.parse(encodeJSON(v, { escapeHTML: false })));
  } catch {
    return "";
  }
}

/** `formatDuration D`: a protobuf Duration printed as Go's time.Duration prints (`1m30s`). */
function formatDuration(d: GoValue): string {
  if (isGoObject(d)) {
    const method = d.goMethod?.("String") ?? d.goMethod?.("AsDurationString");
    if (method) return String(method.fn());
  }
  throw new GoError(`formatDuration: expected a duration, got ${formatValue(d)}`);
}

/** The functions, given how `env` reads the environment and how `protoToJSON` prints a ProxyConfig. */
export function injectionFuncs(options: {
  env: EnvLookup;
  protoToJSON: (message: GoValue) => string;
}): Record<string, GoFunc> {
  const { env, protoToJSON } = options;
  return {
    formatDuration: goFunc("formatDuration", ["any"], formatDuration, "string"),
    isset: goFunc(
      "isset",
      ["map[string]string", "string"],
      (m: GoValue, key: string) => Object.hasOwn(stringMap(m), key),
      "bool",
    ),
    excludeInboundPort: goFunc("excludeInboundPort", ["any", "string"], excludeInboundPort, "string"),
    includeInboundPorts: goFunc("includeInboundPorts", ["[]v1.Container"], (c: GoValue) =>
      containerPorts(c, () => true),
    ),
    applicationPorts: goFunc("applicationPorts", ["[]v1.Container"], (c: GoValue) =>
      containerPorts(c, (name) => name !== "istio-proxy"),
    ),
    kubevirtInterfaces: goFunc("kubevirtInterfaces", ["string"], (s: string) => s, "string"),
    excludeInterfaces: goFunc("excludeInterfaces", ["string"], (s: string) => s, "string"),
    annotation: goFunc("annotation", ["v1.ObjectMeta", "string", "any"], annotation, "string"),
    valueOrDefault: goFunc(
      "valueOrDefault",
      ["any", "any"],
      (v: GoValue, d: GoValue) => (v === "" || v === null || v === undefined ? d : v),
      "interface {}",
    ),
    toJSON: goFunc("toJSON", ["map[string]string"], toJSON, "string"),
    toJson: goFunc("toJson", ["map[string]string"], toJSON, "string"),
    fromJSON: goFunc("fromJSON", ["string"], fromJSON, "interface {}"),
    structToJSON: goFunc("structToJSON", ["any"], structToJSON, "string"),
    protoToJSON: goFunc("protoToJSON", ["any"], protoToJSON, "string"),
    toYaml: goFunc("toYaml", ["any"], toYaml, "string"),
    indent: goFunc("indent", ["int", "string"], indent, "string"),
    directory: goFunc("directory", ["string"], (p: string) => p.slice(0, p.lastIndexOf("/") + 1), "string"),
    contains: goFunc("contains", ["string", "string"], (needle: string, hay: string) => hay.includes(needle), "bool"),
    toLower: goFunc("toLower", ["string"], goToLower, "string"),
    appendMultusNetwork: goFunc("appendMultusNetwork", ["string", "string"], appendMultusNetwork, "string"),
    env: goFunc("env", ["string", "string"], (key: string, def: string) => env(key) || def, "string"),
    omit: goFunc("omit", ["any", "...string"], omit, "map[string]string"),
    strdict: goFunc("strdict", ["...string"], strdict, "map[string]string"),
    toJsonMap: goFunc("toJsonMap", ["...map[string]string"], toJSONMap, "string"),
    mergeMaps: goFunc("mergeMaps", ["...map[string]string"], mergeMaps, "map[string]string"),
    omitNil: goFunc("omitNil", ["any"], omitNil, "interface {}"),
    otelResourceAttributes: goFunc(
      "otelResourceAttributes",
      ["any", "map[string]string", "map[string]string", "string", "[]v1.Container"],
      otelResourceAttributes,
      "string",
    ),
  };
}
