/**
 * The injector's configuration, as Istio keeps it in the `istio-sidecar-injector` ConfigMap:
 * the `config` key (policy, templates, selectors, ...) and the `values` key (Helm values as JSON).
 * Parsing is strict about shapes and names the file and field at fault; unknown keys are ignored,
 * as Istio ignores them, and reported.
 */

import { isRecord } from "../go/json.js";
import { readYaml } from "../go/yaml/read.js";
import { fromJSON, type GoValue } from "../template/index.js";
import { builtInConfigDocument } from "./built-in-config.js";

/** A Kubernetes label selector (matchLabels and matchExpressions). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * `enabled` or `disabled`; Istio accepts any text here (and an absent policy is ""), then injects
 * no pod through the webhook when it is neither (kube-inject does not read the policy).
 */
export type InjectionPolicy = "enabled" | "disabled" | (string & {});

/** The `config` key of the injector ConfigMap. */
export interface InjectorConfig {
  policy: InjectionPolicy;
  /** Templates applied when a pod names none (`inject.istio.io/templates`). */
  defaultTemplates: string[];
  /** Go template text by name. */
  templates: Record<string, string>;
  /** A name that expands to several templates. */
  aliases: Record<string, string[]>;
  neverInjectSelector: LabelSelector[];
  alwaysInjectSelector: LabelSelector[];
  /** Annotations added to every injected pod (deprecated in Istio; templates should set them). */
  injectedAnnotations: Record<string, string>;
}

/** The `values` key: the same document seen two ways, as Istio does. */
export interface InjectionValues {
  /** Plain JSON, for the settings the injector reads itself (image hub/tag, hold, probe rewrite...). */
  readonly json: Record<string, unknown>;
  /** The Go value model (numbers float64), for `.Values` in templates. */
  readonly go: GoValue;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

function fail(source: string, field: string, message: string): never {
  throw new ConfigError(`${source}: ${field}: ${message}`);
}

function stringList(v: unknown, source: string, field: string): string[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) fail(source, field, "must be a list of strings");
  return v as string[];
}

function stringMap(v: unknown, source: string, field: string): Record<string, string> {
  if (v === null || v === undefined) return {};
  if (!isRecord(v)) fail(source, field, "must be a map of strings");
  const out: Record<string, string> = {};
  for (const [k, s] of Object.entries(v)) {
    if (typeof s !== "string") fail(source, `${field}.${k}`, `must be a string, got ${JSON.stringify(s)}`);
    out[k] = s;
  }
  return out;
}

function selectors(v: unknown, source: string, field: string): LabelSelector[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) fail(source, field, "must be a list of label selectors");
  return v.map((s, i) => {
    if (!isRecord(s)) fail(source, `${field}[${i}]`, "must be a label selector");
    const sel: LabelSelector = {};
    if (s.matchLabels !== undefined) sel.matchLabels = stringMap(s.matchLabels, source, `${field}[${i}].matchLabels`);
    if (s.matchExpressions !== undefined) {
      if (!Array.isArray(s.matchExpressions)) fail(source, `${field}[${i}].matchExpressions`, "must be a list");
      sel.matchExpressions = s.matchExpressions.map((e, j) => {
        const at = `${field}[${i}].matchExpressions[${j}]`;
        if (!isRecord(e) || typeof e.key !== "string" || typeof e.operator !== "string") {
          fail(source, at, "must have a key and an operator");
        }
        return { key: e.key, operator: e.operator, values: stringList(e.values, source, `${at}.values`) };
      });
    }
    return sel;
  });
}

const KNOWN_FIELDS = new Set([
  "policy",
  "defaultTemplates",
  "templates",
  "aliases",
  "neverInjectSelector",
  "alwaysInjectSelector",
  "injectedAnnotations",
  // Older ConfigMaps carry a single `template`; Istio no longer reads it.
  "template",
]);

/**
 * The document's fields under their Go names. Istio decodes the config with encoding/json, which
 * matches a key to a field exactly, else ignoring case, and ignores keys that match no field: those
 * are pushed to `unknownFields` (a typo, or a field of another release) instead of failing.
 */
function knownFields(doc: Record<string, unknown>, unknownFields: string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // sigs.k8s.io/yaml hands encoding/json the keys in sorted order; a later key for the same field wins.
  for (const key of Object.keys(doc).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))) {
    const field = KNOWN_FIELDS.has(key) ? key : [...KNOWN_FIELDS].find((f) => f.toLowerCase() === key.toLowerCase());
    if (field === undefined) unknownFields?.push(key);
    else out[field] = doc[key];
  }
  return out;
}

/**
 * Parses the `config` key (YAML). `source` names the file or ConfigMap key in errors; keys Istio
 * would ignore are listed in `unknownFields`.
 */
export function parseInjectorConfig(text: string, source = "config", unknownFields?: string[]): InjectorConfig {
  let doc: unknown;
  try {
    doc = builtInConfigDocument(text) ?? readYaml(text);
  } catch (e) {
    fail(source, "(document)", `invalid YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isRecord(doc)) fail(source, "(document)", "must be a map");
  doc = knownFields(doc, unknownFields);
  if (!isRecord(doc)) fail(source, "(document)", "must be a map");
  const policy = doc.policy ?? "";
  if (typeof policy !== "string") fail(source, "policy", `must be a string, got ${JSON.stringify(policy)}`);
  const templates = stringMap(doc.templates, source, "templates");
  const aliases: Record<string, string[]> = {};
  if (doc.aliases !== null && doc.aliases !== undefined) {
    if (!isRecord(doc.aliases)) fail(source, "aliases", "must be a map of template lists");
    for (const [k, v] of Object.entries(doc.aliases)) aliases[k] = stringList(v, source, `aliases.${k}`);
  }
  const defaultTemplates = stringList(doc.defaultTemplates, source, "defaultTemplates");
  return {
    policy,
    defaultTemplates: defaultTemplates.length > 0 ? defaultTemplates : ["sidecar"],
    templates,
    aliases,
    neverInjectSelector: selectors(doc.neverInjectSelector, source, "neverInjectSelector"),
    alwaysInjectSelector: selectors(doc.alwaysInjectSelector, source, "alwaysInjectSelector"),
    injectedAnnotations: stringMap(doc.injectedAnnotations, source, "injectedAnnotations"),
  };
}

/** Parses the `values` key (JSON; YAML is accepted too, as it is a superset). */
export function parseValues(text: string, source = "values"): InjectionValues {
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    try {
      json = readYaml(text);
    } catch (e) {
      fail(source, "(document)", `invalid JSON or YAML: ${(e as Error).message}`);
    }
  }
  if (json === null || json === undefined) json = {};
  if (!isRecord(json)) fail(source, "(document)", "must be a map");
  return { json, go: fromJSON(JSON.stringify(json), "float") };
}

/** Reads a dotted path (`global.proxy.image`) from plain JSON values. */
export function valueAt(values: Record<string, unknown>, path: string): unknown {
  let cur: unknown = values;
  for (const key of path.split(".")) {
    if (!isRecord(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}
