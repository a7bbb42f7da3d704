/**
 * `meshinject kube-inject`: the I/O around src/inject/kube-inject.ts (reading the input and the
 * configuration files, writing the output atomically, printing warnings on stderr).
 */

import { ConfigError } from "../inject/config.js";
import { DocumentError, kubeInject } from "../inject/kube-inject.js";
import { oneLine } from "../kube/one-line.js";
import { injectorSources, loadCliInjector, readInput } from "./load-injector.js";
import { writeManifestResult } from "./manifest-result.js";

export interface KubeInjectCliOptions {
  filename: string;
  injectConfigFile?: string;
  meshConfigFile?: string;
  valuesFile?: string;
  operatorFileName?: string;
  revision: string;
  output?: string;
  /** Print a unified diff per changed document instead of the whole output. */
  diff?: boolean;
  nativeSidecars: string;
  /** istioctl's flags naming cluster ConfigMaps: accepted, warned about, ignored. */
  injectConfigMapName?: string;
  meshConfigMapName?: string;
}

/** An error for the user (exit code 1, one line). */
export class KubeInjectError extends Error {
  override name = "KubeInjectError";
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
 * The error to show for a failure while reading the documents or the configuration: nothing has
 * been written yet, so it names the one document (or configuration file) at fault.
 */
export function documentFailure(e: unknown, filename: string): unknown {
  if (e instanceof DocumentError) {
    if (process.env.MESHINJECT_DEBUG && e.cause instanceof Error) process.stderr.write(`${e.cause.stack}\n`);
    return new KubeInjectError(`${filename === "-" ? "stdin" : filename}: ${e.message}`);
  }
  if (e instanceof ConfigError) return new KubeInjectError(oneLine(e.message));
  return e;
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
  const sources = await injectorSources(opts);
  const nativeSidecar = nativeSidecarSetting(opts.nativeSidecars);
  const input = await readInput(opts.filename, "input");
  let output: string;
  try {
    const loaded = loadCliInjector(sources, opts.valuesFile);
    output = kubeInject(input, {
      settings: loaded.settings,
      config: loaded.config,
      meshConfig: loaded.meshConfig,
      revision: sources.revision,
      nativeSidecar,
      warn: (message) => process.stderr.write(message),
    });
  } catch (e) {
    throw documentFailure(e, opts.filename);
  }
  await writeManifestResult(opts, input, output, (message) => new KubeInjectError(message));
}
