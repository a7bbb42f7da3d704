/**
 * The injector a manifest command (kube-inject, uninject) works with: the configuration files given
 * by istioctl's flags, each falling back to the built-in default (for `--revision`'s control plane),
 * with the load's warnings printed on stderr.
 */

import { ConfigError, valueAt } from "../inject/config.js";
import { type DefaultConfigFiles, defaultConfigFiles } from "../inject/defaults.js";
import { configMapHasKey, type InjectorSources, type LoadedInjector, loadInjector } from "../inject/injector.js";
import { applyIstioOperator } from "../inject/istio-operator.js";
import { oneLine } from "../kube/one-line.js";
import { InputError, readInputText } from "./read-input.js";

/** The flags that choose the configuration. */
export interface InjectorFlags {
  injectConfigFile?: string;
  meshConfigFile?: string;
  valuesFile?: string;
  /** An IstioOperator install file: its values and mesh config over the built-in default. */
  operatorFileName?: string;
  revision: string;
}

/** The configuration texts, and the revision they are for (--revision, else the IstioOperator's). */
export interface CliInjectorSources extends InjectorSources {
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

/**
 * The built-in default for the revision, with an IstioOperator file's values and mesh config over it
 * when one is given (its spec.revision counts unless --revision is given).
 */
async function baseFiles(opts: InjectorFlags): Promise<{ files: DefaultConfigFiles; revision: string; from: string }> {
  if (opts.operatorFileName === undefined) {
    return { files: defaultConfigFiles(opts.revision), revision: opts.revision, from: "built-in" };
  }
  const file = opts.operatorFileName;
  for (const [flag, given] of [
    ["--valuesFile", opts.valuesFile],
    ["--meshConfigFile", opts.meshConfigFile],
  ] as const) {
    if (given !== undefined) {
      throw new InjectorFlagsError(
        `--operatorFileName supplies the values and the mesh config: give it or ${flag}, not both`,
      );
    }
  }
  const text = await readInput(file, "IstioOperator file");
  try {
    const named = applyIstioOperator(text, file, defaultConfigFiles(opts.revision)).revision;
    const revision = opts.revision || named;
    const iop = applyIstioOperator(text, file, defaultConfigFiles(revision));
    return { files: { ...defaultConfigFiles(revision), values: iop.values, mesh: iop.mesh }, revision, from: file };
  } catch (e) {
    if (e instanceof ConfigError) throw new InjectorFlagsError(oneLine(e.message));
    throw e;
  }
}

/** The configuration texts the flags name, the built-in default (or the IstioOperator's) for each one left out. */
export async function injectorSources(opts: InjectorFlags): Promise<CliInjectorSources> {
  // With --revision and no files, the built-in default is that revision's control plane (istiod-REV).
  const { files: defaults, revision, from } = await baseFiles(opts);
  const sources: CliInjectorSources = {
    revision,
    config: opts.injectConfigFile ? await readInput(opts.injectConfigFile, "inject config file") : defaults.config,
    values: opts.valuesFile ? await readInput(opts.valuesFile, "values file") : defaults.values,
    mesh: opts.meshConfigFile ? await readInput(opts.meshConfigFile, "mesh config file") : defaults.mesh,
    names: {
      config: opts.injectConfigFile ?? "built-in config",
      values: opts.valuesFile ?? `${from} values`,
      mesh: opts.meshConfigFile ?? `${from} mesh config`,
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
