/**
 * The injector configuration from files, as mounted from ConfigMaps, and its hot reload.
 *
 * Sources: `--config-dir DIR` is a ConfigMap volume holding `config` and `values` (ConfigMap
 * istio-sidecar-injector) and optionally `mesh` (ConfigMap istio; without it the built-in mesh
 * config is used); `--injectConfigFile`, `--valuesFile`, `--meshConfigFile` name files one by one
 * (each the key's content or the whole ConfigMap) and win over the folder. What no flag names comes
 * from the built-in default; with no flags at all nothing is watched.
 *
 * The folder's `mesh` may come and go with the ConfigMap's keys: it is watched even while absent,
 * and an absent `mesh` means the built-in mesh config, whether it was missing at start-up or
 * removed later (the same rule both times). `config` and `values` are required: missing at
 * start-up is an error, and missing later is a refused reload until they are back.
 *
 * A new configuration becomes active only after it loads (YAML, values, mesh config, templates
 * compile) AND answers every reference pod (reference-pods.ts) through reviewBody() without a failure.
 * Otherwise the last good configuration stays active and the caller logs and counts the error.
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { defaultConfigFiles } from "../inject/defaults.js";
import type { EnvLookup } from "../inject/funcs.js";
import { configMapHasKey, type InjectorSources, loadInjector } from "../inject/injector.js";
import { reviewBody, type WebhookState } from "./admission.js";
import { type FileWatch, watchFiles } from "./file-watch.js";
import { referencePods } from "./reference-pods.js";

/** Where each of the three texts comes from: a file path, or undefined for the built-in text. */
export interface ConfigFiles {
  config?: string;
  values?: string;
  mesh?: string;
  /** Paths above that may be absent, which then gives the built-in text (the folder's `mesh`). */
  optional?: readonly string[];
  /** Whose built-in texts fill in what no file gives: a named revision's own control plane. */
  revision?: string;
}

export interface ConfigFileOptions {
  configDir?: string;
  injectConfigFile?: string;
  valuesFile?: string;
  meshConfigFile?: string;
  /** The revision served: the built-in default for what no file gives is that revision's. */
  revision?: string;
}

/** The state's settings that do not come from the files. */
export interface StateSettings {
  revision: string;
  nativeSidecars: WebhookState["nativeSidecars"];
  kubeletMinorVersion?: number;
  compliancePolicy?: string;
  platform?: WebhookState["platform"];
  /** What the templates' `env` function reads. */
  env?: EnvLookup;
}

/** A configuration that did not load or did not render the reference pods. */
export class ConfigRejectedError extends Error {
  override name = "ConfigRejectedError";
}

/** Resolves the flags to file paths (a folder's `mesh` is optional: it may appear or go later). */
export function configFiles(options: ConfigFileOptions): ConfigFiles {
  const dir = options.configDir;
  const inDir = (name: string) => (dir === undefined ? undefined : join(dir, name));
  const files: ConfigFiles = {
    config: options.injectConfigFile ?? inDir("config"),
    values: options.valuesFile ?? inDir("values"),
    mesh: options.meshConfigFile ?? inDir("mesh"),
  };
  if (options.revision) files.revision = options.revision;
  const folderMesh = options.meshConfigFile === undefined ? inDir("mesh") : undefined;
  return folderMesh === undefined ? files : { ...files, optional: [folderMesh] };
}

/** Whether `path` is read from a file now (not absent-and-optional, not unset). */
function present(files: ConfigFiles, path: string | undefined, texts: ReadonlyMap<string, string>): path is string {
  return path !== undefined && (texts.has(path) || !files.optional?.includes(path));
}

/** The paths that are read (and watched), without duplicates. */
export function configPaths(files: ConfigFiles): string[] {
  return [...new Set([files.config, files.values, files.mesh].filter((p): p is string => p !== undefined))];
}

/** The three texts for loadInjector, from the files' texts and the built-in default. */
export function injectorSources(files: ConfigFiles, texts: ReadonlyMap<string, string>): InjectorSources {
  const builtin = defaultConfigFiles(files.revision);
  const text = (path: string | undefined, fallback: string) =>
    present(files, path, texts) ? (texts.get(path) ?? "") : fallback;
  const name = (path: string | undefined, fallback: string) => (present(files, path, texts) ? path : fallback);
  const sources: InjectorSources = {
    config: text(files.config, builtin.config),
    values: text(files.values, builtin.values),
    mesh: text(files.mesh, builtin.mesh),
    names: {
      config: name(files.config, "built-in config"),
      values: name(files.values, "built-in values"),
      mesh: name(files.mesh, "built-in mesh config"),
    },
  };
  // A whole istio-sidecar-injector ConfigMap given as the config file also supplies `values` (as istioctl does).
  if (files.config !== undefined && files.values === undefined && configMapHasKey(sources.config, "values")) {
    sources.values = sources.config;
    sources.names = { ...sources.names, values: files.config };
  }
  return sources;
}

/** Reads the files' current texts (an absent optional file is left out, as the watcher does). */
export async function readConfigTexts(files: ConfigFiles): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const path of configPaths(files)) {
    try {
      texts.set(path, await readFile(path, "utf8"));
    } catch (e) {
      if (files.optional?.includes(path) && (e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new ConfigRejectedError(`cannot read ${path}: ${(e as Error).message}`);
    }
  }
  return texts;
}

/**
 * Where the reference pods' templates look host names up (`getHostByName`): every name "resolves" to
 * a loopback address, never asked of DNS. The check proves that templates, values and mesh config
 * work together; a DNS server that is slow or down at reload time must not refuse a configuration
 * (the reviews themselves resolve names for real: inject-handler.ts).
 */
const referenceLookup = (): readonly string[] => ["127.0.0.1"];

/** Checks a candidate state by answering every reference pod; throws ConfigRejectedError naming the first failure. */
export function checkWithReferencePods(state: WebhookState): void {
  for (const pod of referencePods()) {
    let result: ReturnType<typeof reviewBody>;
    try {
      result = reviewBody(pod.review, "/inject", { ...state, lookupHost: referenceLookup });
    } catch (e) {
      throw new ConfigRejectedError(`reference pod ${pod.name}: ${(e as Error).message}`);
    }
    const { outcome } = result;
    if (outcome.kind === "failed" || outcome.kind === "invalid") {
      throw new ConfigRejectedError(`reference pod ${pod.name} was not injected: ${outcome.reason}`);
    }
  }
}

/** Builds the state for a set of texts: load, then render the reference pods. Throws ConfigRejectedError. */
export function buildState(sources: InjectorSources, settings: StateSettings): WebhookState {
  let injector: WebhookState["injector"];
  try {
    injector = loadInjector(sources, { env: settings.env, compliancePolicy: settings.compliancePolicy ?? "" });
  } catch (e) {
    throw new ConfigRejectedError((e as Error).message);
  }
  const state: WebhookState = {
    injector,
    revision: settings.revision,
    nativeSidecars: settings.nativeSidecars,
    ...(settings.kubeletMinorVersion === undefined ? {} : { kubeletMinorVersion: settings.kubeletMinorVersion }),
    ...(settings.compliancePolicy === undefined ? {} : { compliancePolicy: settings.compliancePolicy }),
    ...(settings.platform === undefined ? {} : { platform: settings.platform }),
  };
  checkWithReferencePods(state);
  return state;
}

export interface LoadedConfig {
  state: WebhookState;
  /** The texts it was built from (by path): the watcher's starting point. */
  texts: Map<string, string>;
}

/** Reads and builds the first configuration; throws ConfigRejectedError. */
export async function loadConfig(files: ConfigFiles, settings: StateSettings): Promise<LoadedConfig> {
  const texts = await readConfigTexts(files);
  return { state: buildState(injectorSources(files, texts), settings), texts };
}

export interface ConfigWatchEvents {
  /** A new configuration is active. */
  onReload(state: WebhookState): void;
  /** A new configuration was refused (the last good one stays), or a file could not be read. */
  onError(error: Error): void;
}

/** A served revision that the loaded values do not name: what the warning reports. */
export interface RevisionMismatch {
  /** `--revision` ("" for the default revision). */
  revision: string;
  /** The values' `revision` ("" when unset). */
  valuesRevision: string;
  /** Where the configuration's proxies connect (the mesh config's defaultConfig.discoveryAddress). */
  discoveryAddress?: string;
}

const sameRevision = (a: string, b: string) => (a === "default" ? "" : a) === (b === "default" ? "" : b);

/**
 * Whether the configuration was made for another control plane than the one served: the values'
 * `revision` differs from `revision` ("" and "default" are the same). Pods are then labelled for
 * `revision` while the templates point their proxies at the values' control plane. Istio's own
 * templates allow it, so this is a warning, not a refusal.
 */
export function revisionMismatch(state: WebhookState, revision: string): RevisionMismatch | undefined {
  const raw = state.injector.settings.values.json.revision;
  const valuesRevision = typeof raw === "string" ? raw : raw === undefined || raw === null ? "" : String(raw);
  if (sameRevision(valuesRevision, revision)) return undefined;
  const discoveryAddress = state.injector.meshConfig.defaultConfig?.discoveryAddress;
  return { revision, valuesRevision, ...(discoveryAddress ? { discoveryAddress } : {}) };
}

/** The warning's text for a mismatch. */
export function revisionMismatchMessage(m: RevisionMismatch): string {
  const served = m.revision === "" ? "the default revision" : `revision ${JSON.stringify(m.revision)}`;
  const values = m.valuesRevision === "" ? "the default revision" : JSON.stringify(m.valuesRevision);
  const proxies = m.discoveryAddress === undefined ? "" : ` (proxies connect to ${m.discoveryAddress})`;
  return `the configuration's values.revision is ${values} but --revision is ${JSON.stringify(m.revision)}: pods are injected for ${served} with another control plane's configuration${proxies}`;
}

/** Watches the files and hands each new good configuration to `onReload`. */
export function watchConfig(
  files: ConfigFiles,
  loaded: LoadedConfig,
  settings: StateSettings,
  events: ConfigWatchEvents,
  intervalMs: number,
): FileWatch {
  return watchFiles(loaded.texts, {
    intervalMs,
    optional: files.optional ?? [],
    onChange: (texts) => {
      let state: WebhookState;
      try {
        state = buildState(injectorSources(files, texts), settings);
      } catch (e) {
        events.onError(e as Error);
        return;
      }
      events.onReload(state);
    },
    onError: (error, path) =>
      events.onError(path ? new ConfigRejectedError(`cannot read ${path}: ${error.message}`) : error),
  });
}
