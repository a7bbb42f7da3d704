/**
 * Building an injector from its three configuration texts (`config`, `values`, `mesh`), each given
 * either as the ConfigMap key's content or as the whole ConfigMap (as `kubectl get cm -o yaml`
 * prints it). Templates are compiled once here; a template that does not parse is an error naming it.
 * The built-in templates, which are known to parse, are parsed when first used instead (see
 * {@link compileTemplates}).
 */

import { isRecord } from "../go/json.js";
import { readYaml } from "../go/yaml/read.js";
import {
  applyMeshConfig,
  defaultMeshConfig,
  type MeshConfig,
  proxyConfigJSON,
  viewedProxyConfig,
} from "../mesh/index.js";
import { type GoValue, sprigFuncs, Template, TemplateError, templateHost } from "../template/index.js";
import { builtInConfigDocument } from "./built-in-config.js";
import { ConfigError, type InjectorConfig, parseInjectorConfig, parseValues } from "./config.js";
import { isBuiltInTemplate } from "./defaults.js";
import { type EnvLookup, injectionFuncs } from "./funcs.js";
import type { InjectorExtensions, InjectorSettings } from "./inject.js";

/** The last text {@link lookedAtYaml} read, and its document or the error reading it. */
let lastLook: { text: string; doc: unknown; failed: boolean } | undefined;

/**
 * `readYaml(text)` for the checks here that only look at the document (a ConfigMap? has the key?
 * empty?): a load asks several of them about the same text, and reading the config (the templates'
 * text included) again for each was a good part of a one-shot command's time. The document is
 * shared, so callers must not change it.
 */
function lookedAtYaml(text: string): unknown {
  if (lastLook?.text !== text) {
    try {
      lastLook = { text, doc: builtInConfigDocument(text) ?? readYaml(text), failed: false };
    } catch (e) {
      lastLook = { text, doc: e, failed: true };
    }
  }
  if (lastLook.failed) throw lastLook.doc;
  return lastLook.doc;
}

/** The text of one ConfigMap key, whether `text` is that content or the whole ConfigMap. */
export function configMapKey(text: string, key: string, source: string): string {
  let doc: unknown;
  try {
    doc = lookedAtYaml(text);
  } catch {
    return text; // not YAML at all: let the key's own parser report it
  }
  if (isRecord(doc) && doc.kind === "ConfigMap") {
    const data = isRecord(doc.data) ? doc.data : {};
    const value = data[key];
    if (typeof value !== "string") throw new ConfigError(`${source}: ConfigMap has no data.${key}`);
    return value;
  }
  return text;
}

/**
 * Whether `text` is a whole ConfigMap holding `data.<key>`: an istio-sidecar-injector ConfigMap
 * given as the config file then supplies `values` too, as istioctl reads it.
 */
export function configMapHasKey(text: string, key: string): boolean {
  let doc: unknown;
  try {
    doc = lookedAtYaml(text);
  } catch {
    return false;
  }
  return isRecord(doc) && doc.kind === "ConfigMap" && isRecord(doc.data) && typeof doc.data[key] === "string";
}

export interface InjectorSources {
  /** The `config` key of the istio-sidecar-injector ConfigMap (or the ConfigMap). */
  config: string;
  /** The `values` key (or the ConfigMap). */
  values: string;
  /** The `mesh` key of the istio ConfigMap (or the ConfigMap); applied over Istio's defaults. */
  mesh: string;
  /** Names for error messages (file paths). */
  names?: { config?: string; values?: string; mesh?: string };
}

export interface LoadedInjector {
  config: InjectorConfig;
  settings: InjectorSettings;
  meshConfig: MeshConfig;
  /**
   * What was accepted but is likely a mistake, one line each: fields of the mesh config that
   * MeshConfig does not have (a typo such as `concurency`), ignored as Istio ignores them. Always a
   * list (empty when there is nothing to say).
   */
  warnings: string[];
}

export interface InjectorEnvironment {
  /** What the templates' `env` function reads. */
  env?: EnvLookup;
  /** `COMPLIANCE_POLICY`, e.g. `fips-140-3`. */
  compliancePolicy?: string;
  /** meshinject's extensions over Istio (off unless set; docs/istio-parity.md "Extensions"). */
  extensions?: InjectorExtensions;
}

/**
 * Templates by name, in the config's order. A template known to parse is held as its text until it
 * is first asked for: a one-shot command (kube-inject of one pod) uses one of the four built-in
 * templates, and parsing all four was a large part of its start-up.
 */
class TemplateTable implements ReadonlyMap<string, Template> {
  readonly #entries = new Map<string, Template | (() => Template)>();

  add(name: string, template: Template | (() => Template)): void {
    this.#entries.set(name, template);
  }

  get(name: string): Template | undefined {
    const entry = this.#entries.get(name);
    if (typeof entry !== "function") return entry;
    const template = entry();
    this.#entries.set(name, template);
    return template;
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  get size(): number {
    return this.#entries.size;
  }

  keys(): MapIterator<string> {
    return this.#entries.keys();
  }

  *entries(): MapIterator<[string, Template]> {
    for (const name of this.#entries.keys()) yield [name, this.get(name) as Template];
  }

  *values(): MapIterator<Template> {
    for (const [, template] of this.entries()) yield template;
  }

  [Symbol.iterator](): MapIterator<[string, Template]> {
    return this.entries();
  }

  forEach(visit: (template: Template, name: string, map: ReadonlyMap<string, Template>) => void): void {
    for (const [name, template] of this.entries()) visit(template, name, this);
  }
}

/**
 * Compiles the templates of a config with Sprig and Istio's functions; errors name the template.
 * A built-in template (the text meshinject ships, which its tests parse) is parsed when first used;
 * any other is parsed now, so that a config with a broken template fails to load, as in Istio.
 */
export function compileTemplates(
  config: InjectorConfig,
  env: EnvLookup,
  source = "config",
): ReadonlyMap<string, Template> {
  const funcs = {
    ...sprigFuncs,
    ...injectionFuncs({
      env,
      protoToJSON: (v: GoValue) => {
        const pc = viewedProxyConfig(v);
        return pc === undefined ? "{}" : proxyConfigJSON(pc);
      },
    }),
  };
  const templates = new TemplateTable();
  for (const [name, text] of Object.entries(config.templates)) {
    const parse = () => {
      try {
        // Istio names every injection template "inject", which is what its error messages show.
        return new Template("inject", { funcs, host: templateHost({ env }) }).parse(text);
      } catch (e) {
        if (e instanceof TemplateError) throw new ConfigError(`${source}: templates.${name}: ${e.message}`);
        throw e;
      }
    };
    templates.add(name, isBuiltInTemplate(name, text) ? parse : parse());
  }
  return templates;
}

/**
 * Refuses an empty `config` or `values` (nothing, or only comments): an injector without templates
 * or values fails on every workload with an error that does not say why.
 */
function checkNotEmpty(text: string, name: string): void {
  let doc: unknown;
  try {
    doc = lookedAtYaml(text);
  } catch {
    return; // not YAML at all: the parser of the key reports it
  }
  if (doc === null) throw new ConfigError(`${name} is empty`);
}

/** Loads and checks an injector's configuration. */
export function loadInjector(sources: InjectorSources, environment: InjectorEnvironment = {}): LoadedInjector {
  const names = { config: "config", values: "values", mesh: "mesh", ...sources.names };
  const unknownConfigFields: string[] = [];
  const configText = configMapKey(sources.config, "config", names.config);
  checkNotEmpty(configText, names.config);
  const valuesText = configMapKey(sources.values, "values", names.values);
  checkNotEmpty(valuesText, names.values);
  const config = parseInjectorConfig(configText, names.config, unknownConfigFields);
  const values = parseValues(valuesText, names.values);
  const meshText = configMapKey(sources.mesh, "mesh", names.mesh); // its errors name the source already
  let meshConfig: MeshConfig;
  const unknownFields: string[] = [];
  try {
    meshConfig = applyMeshConfig(meshText, defaultMeshConfig(), { unknownFields });
  } catch (e) {
    throw new ConfigError(`${names.mesh}: ${(e as Error).message}`);
  }
  const env = environment.env ?? (() => undefined);
  const policyWarning =
    config.policy === "enabled" || config.policy === "disabled"
      ? []
      : [
          `${names.config}: policy ${JSON.stringify(config.policy)} is neither "enabled" nor "disabled": ` +
            "the webhook injects no pod (as Istio does; kube-inject does not read the policy)",
        ];
  const warnings = [
    ...policyWarning,
    ...unknownConfigFields.map(
      (field) => `${names.config}: unknown field ${field} (ignored, as Istio ignores it: a typo?)`,
    ),
    ...[...new Set(unknownFields)].map(
      (field) => `${names.mesh}: unknown field ${field} (ignored, as Istio ignores it: a typo?)`,
    ),
  ];
  return {
    config,
    meshConfig,
    warnings,
    settings: {
      templates: compileTemplates(config, env, names.config),
      values,
      compliancePolicy: environment.compliancePolicy ?? "",
      ...(environment.extensions !== undefined ? { extensions: environment.extensions } : {}),
    },
  };
}
