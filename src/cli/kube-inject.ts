/**
 * `meshinject kube-inject`: the I/O around src/inject/kube-inject.ts (reading the input and the
 * configuration files, writing the output atomically, printing warnings on stderr).
 */

import { ConfigError, valueAt } from "../inject/config.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import { configMapHasKey, type InjectorSources, loadInjector } from "../inject/injector.js";
import { DocumentError, kubeInject } from "../inject/kube-inject.js";
import { oneLine } from "../kube/one-line.js";
import { WriteError, writeFileAtomic } from "./output.js";
import { InputError, readInputText } from "./read-input.js";

export interface KubeInjectCliOptions {
  filename: string;
  injectConfigFile?: string;
  meshConfigFile?: string;
  valuesFile?: string;
  revision: string;
  output?: string;
  nativeSidecars: string;
  /** istioctl's flags naming cluster ConfigMaps: accepted, warned about, ignored. */
  injectConfigMapName?: string;
  meshConfigMapName?: string;
}

/** An error for the user (exit code 1, one line). */
export class KubeInjectError extends Error {
  override name = "KubeInjectError";
}

/** `path`'s text; a file that cannot be read is a KubeInjectError naming it. */
async function readInput(path: string, what: string): Promise<string> {
  try {
    return await readInputText(path, what);
  } catch (e) {
    throw e instanceof InputError ? new KubeInjectError(e.message) : e;
  }
}

/**
 * Warnings for istioctl's --injectConfigMapName and --meshConfigMapName, which name ConfigMaps in the
 * cluster: meshinject reads files only, so they are accepted (scripts keep working) and ignored.
 */
export function ignoredFlagWarnings(opts: KubeInjectCliOptions): string[] {
  const warnings: string[] = [];
  const why = "meshinject reads files, not cluster ConfigMaps, so the option is ignored";
  if (opts.injectConfigMapName !== undefined) {
    warnings.push(
      `meshinject: warning: --injectConfigMapName ${opts.injectConfigMapName}: ${why}; save the ConfigMap (kubectl -n istio-system get cm ${opts.injectConfigMapName} -o yaml > inject.yaml) and pass --injectConfigFile inject.yaml (it supplies --valuesFile too)\n`,
    );
  }
  if (opts.meshConfigMapName !== undefined) {
    warnings.push(
      `meshinject: warning: --meshConfigMapName ${opts.meshConfigMapName}: ${why}; save the ConfigMap (kubectl -n istio-system get cm ${opts.meshConfigMapName} -o yaml > mesh.yaml) and pass --meshConfigFile mesh.yaml\n`,
    );
  }
  return warnings;
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

export function nativeSidecarSetting(value: string): boolean {
  switch (value) {
    case "on":
    case "true":
      return true;
    case "off":
    case "false":
      return false;
    case "auto":
      // Without a cluster to ask, kube-inject cannot tell whether every node runs Kubernetes 1.29+.
      return false;
    default:
      throw new KubeInjectError(`--native-sidecars must be on, off or auto, got ${JSON.stringify(value)}`);
  }
}

export async function runKubeInject(opts: KubeInjectCliOptions): Promise<void> {
  for (const warning of ignoredFlagWarnings(opts)) process.stderr.write(warning);
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
  const nativeSidecar = nativeSidecarSetting(opts.nativeSidecars);
  const input = await readInput(opts.filename, "input");
  const inputName = opts.filename === "-" ? "stdin" : opts.filename;
  // As istioctl: its skip lines are collected and printed after the output, after one blank line;
  // the other warnings (what Istio logs as it goes) are printed at once, naming the document.
  const skipped: string[] = [];
  let output: string;
  try {
    const loaded = loadInjector(sources, {
      env: (name) => process.env[name],
      compliancePolicy: process.env.COMPLIANCE_POLICY ?? "",
    });
    for (const warning of loaded.warnings) process.stderr.write(`meshinject: warning: ${warning}\n`);
    const partial = partialValuesWarning(sources.names?.values, loaded.settings.values.json);
    if (opts.valuesFile && partial !== undefined) process.stderr.write(partial);
    output = kubeInject(input, {
      settings: loaded.settings,
      config: loaded.config,
      meshConfig: loaded.meshConfig,
      revision: opts.revision,
      nativeSidecar,
      warn: (message) => {
        if (message.startsWith(SKIP_LINE)) skipped.push(message);
        else process.stderr.write(`meshinject: warning: ${inputName}: ${message}\n`);
      },
    });
  } catch (e) {
    // Nothing has been written yet: report the one document (or configuration file) at fault.
    if (e instanceof DocumentError) {
      if (process.env.MESHINJECT_DEBUG && e.cause instanceof Error) process.stderr.write(`${e.cause.stack}\n`);
      throw new KubeInjectError(`${inputName}: ${e.message}`);
    }
    if (e instanceof ConfigError) throw new KubeInjectError(oneLine(e.message));
    throw e;
  }
  await writeOutput(opts.output, output);
  if (skipped.length > 0) process.stderr.write(`\n${skipped.map((line) => `${line}\n`).join("")}`);
}

/** How istioctl's skip lines start (`===> Skipping injection because ...`). */
const SKIP_LINE = "===> ";

/** The result on stdout, or atomically into `-o FILE`. */
async function writeOutput(path: string | undefined, output: string): Promise<void> {
  if (path === undefined) {
    process.stdout.write(output);
    return;
  }
  try {
    await writeFileAtomic(path, output);
  } catch (e) {
    if (!(e instanceof WriteError)) throw e;
    throw new KubeInjectError(`-o ${path}: ${e.message}`);
  }
}
