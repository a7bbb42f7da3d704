/**
 * The injector a manifest command (kube-inject, uninject) works with: the configuration files given
 * by istioctl's flags, each falling back to the built-in default (for `--revision`'s control plane),
 * with the load's warnings printed on stderr.
 */

import { valueAt } from "../inject/config.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import { configMapHasKey, type InjectorSources, type LoadedInjector, loadInjector } from "../inject/injector.js";
import { InputError, readInputText } from "./read-input.js";

/** The flags that choose the configuration. */
export interface InjectorFlags {
  injectConfigFile?: string;
  meshConfigFile?: string;
  valuesFile?: string;
  revision: string;
}

/** An error for the user about the configuration (exit code 1, one line). */
export class InjectorFlagsError extends Error {
  override name = "InjectorFlagsError";
}

/** `path`'s text; a file that cannot be read is an error naming it. */
export async function readInput(path: string, what: string): Promise<string> {
  try {
    return await readInputText(path, what);
  } catch (e) {
    throw e instanceof InputError ? new InjectorFlagsError(e.message) : e;
  }
}

/**
 * A warning for a values file without `global.proxy`: values replace the built-in ones whole (as
 * Istio's do), so a file holding only the settings to change leaves the templates without the proxy
 * settings, and the failure would otherwise show up as an error about the input document.
 */
export function partialValuesWarning(file: string | undefined, values: Record<string, unknown>): string | undefined {
  if (valueAt(values, "global.proxy") !== undefined) return undefined;
  return `meshinject: warning: ${file ?? "the values"} has no global.proxy: a values file replaces the built-in values whole, as in Istio; start from \`meshinject config dump\`'s values.json and change it\n`;
}

/** The configuration texts the flags name, the built-in default for each one left out. */
export async function injectorSources(opts: InjectorFlags): Promise<InjectorSources> {
  // With --revision and no files, the built-in default is that revision's control plane (istiod-REV).
  const defaults = defaultConfigFiles(opts.revision);
  const sources: InjectorSources = {
    config: opts.injectConfigFile ? await readInput(opts.injectConfigFile, "inject config file") : defaults.config,
    values: opts.valuesFile ? await readInput(opts.valuesFile, "values file") : defaults.values,
    mesh: opts.meshConfigFile ? await readInput(opts.meshConfigFile, "mesh config file") : defaults.mesh,
    names: {
      config: opts.injectConfigFile ?? "built-in config",
      values: opts.valuesFile ?? "built-in values",
      mesh: opts.meshConfigFile ?? "built-in mesh config",
    },
  };
  // With only --injectConfigFile given as a whole ConfigMap, its `values` key is used too (as istioctl does).
  if (opts.injectConfigFile && !opts.valuesFile && configMapHasKey(sources.config, "values")) {
    sources.values = sources.config;
    sources.names = { ...sources.names, values: opts.injectConfigFile };
  }
  return sources;
}

/**
 * Loads the injector from `sources` with the process environment (the templates' `env`, Istio's
 * COMPLIANCE_POLICY), printing its warnings. Throws ConfigError for a malformed configuration.
 */
export function loadCliInjector(sources: InjectorSources, valuesFlag: string | undefined): LoadedInjector {
  const loaded = loadInjector(sources, {
    env: (name) => process.env[name],
    compliancePolicy: process.env.COMPLIANCE_POLICY ?? "",
  });
  for (const warning of loaded.warnings ?? []) process.stderr.write(`meshinject: warning: ${warning}\n`);
  const partial = partialValuesWarning(sources.names?.values, loaded.settings.values.json);
  if (valuesFlag && partial !== undefined) process.stderr.write(partial);
  return loaded;
}
