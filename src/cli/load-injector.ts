/**
 * The injector a manifest command (kube-inject, uninject) works with: the configuration files given
 * by istioctl's flags; what they leave out comes from the cluster's ConfigMaps when a cluster flag is
 * given (istioctl's default), else from the built-in default (for `--revision`'s control plane), or
 * from an IstioOperator file over it. The load's warnings are printed on stderr.
 */

import type { Command } from "commander";
import { ClusterError, connectCluster } from "../cluster/client.js";
import { type ClusterConfig, readClusterConfig } from "../cluster/istio-config.js";
import { ConfigError, valueAt } from "../inject/config.js";
import { type DefaultConfigFiles, defaultConfigFiles } from "../inject/defaults.js";
import { configMapHasKey, type InjectorSources, type LoadedInjector, loadInjector } from "../inject/injector.js";
import { applyIstioOperator } from "../inject/istio-operator.js";
import { oneLine } from "../kube/one-line.js";
import { type CliIo, stdinOnRead } from "./io.js";
import { InputError, readInputText } from "./read-input.js";
import { requestTimeoutMs } from "./request-timeout.js";

/** The flags that choose the configuration. */
export interface InjectorFlags {
  injectConfigFile?: string;
  meshConfigFile?: string;
  valuesFile?: string;
  /** An IstioOperator install file: its values and mesh config over the built-in default. */
  operatorFileName?: string;
  revision: string;
  /** Read what no file gives from the cluster's ConfigMaps (implied by the three flags below). */
  fromCluster?: boolean;
  istioNamespace?: string;
  injectConfigMapName?: string;
  meshConfigMapName?: string;
  kubeconfig?: string;
  context?: string;
  /** Seconds one request to the API server may take. */
  requestTimeout?: string;
}

/** Whether the flags ask for the cluster's configuration, as istioctl's ConfigMap flags do. */
function wantsCluster(opts: InjectorFlags): boolean {
  return (
    opts.fromCluster === true ||
    opts.istioNamespace !== undefined ||
    opts.injectConfigMapName !== undefined ||
    opts.meshConfigMapName !== undefined
  );
}

/** The cluster's ConfigMap keys for what neither a file nor the IstioOperator file gives. */
async function clusterTexts(opts: InjectorFlags, revision: string): Promise<ClusterConfig> {
  const want = {
    config: opts.injectConfigFile === undefined,
    values: opts.valuesFile === undefined && opts.operatorFileName === undefined,
    mesh: opts.meshConfigFile === undefined && opts.operatorFileName === undefined,
  };
  if (!want.config && !want.values && !want.mesh) return { names: {} };
  try {
    const cluster = await connectCluster({
      kubeconfig: opts.kubeconfig,
      context: opts.context,
      timeoutMs: requestTimeoutMs(opts.requestTimeout),
    });
    return await readClusterConfig(cluster, {
      istioNamespace: opts.istioNamespace ?? "istio-system",
      revision,
      injectConfigMapName: opts.injectConfigMapName,
      meshConfigMapName: opts.meshConfigMapName,
      want,
    });
  } catch (e) {
    if (!(e instanceof ClusterError)) throw e;
    // Reads already say which file flag replaces them; a connection that failed says it here.
    const instead = e.message.includes("save it with")
      ? ""
      : "; or pass --injectConfigFile, --valuesFile and --meshConfigFile with the ConfigMaps saved by kubectl, or leave out the cluster flags for the built-in default";
    throw new InjectorFlagsError(`${e.message}${instead}`);
  }
}

/** The configuration texts, and the revision they are for (--revision, else the IstioOperator's). */
export interface CliInjectorSources extends InjectorSources {
  revision: string;
}

/** An error for the user about the configuration (exit code 1, one line). */
export class InjectorFlagsError extends Error {
  override name = "InjectorFlagsError";
}

/** `path`'s text (`-`: standard input); a file that cannot be read is an error naming it. */
export async function readInput(path: string, what: string, io: CliIo): Promise<string> {
  try {
    return await readInputText(path, stdinOnRead(io), what);
  } catch (e) {
    throw e instanceof InputError ? new InjectorFlagsError(e.message) : e;
  }
}

/**
 * What a values file lacks that the built-in templates read, said with the way out: values replace
 * the built-in ones whole (as Istio's do), so a file holding only the settings to change leaves the
 * templates without the proxy settings, and the failure would otherwise show up only as an error
 * about the input document (a Go unmarshal message). Undefined when `global.proxy` is there.
 */
function missingValues(file: string | undefined, values: Record<string, unknown>): string | undefined {
  if (valueAt(values, "global.proxy") !== undefined) return undefined;
  return `${file ?? "the values"} has no global.proxy, which the templates read: a values file replaces the built-in values whole, as in Istio; start from \`meshinject config dump\`'s values.json and change it`;
}

/**
 * The built-in default for the revision, with an IstioOperator file's values and mesh config over it
 * when one is given (its spec.revision counts unless --revision is given).
 */
async function baseFiles(
  opts: InjectorFlags,
  io: CliIo,
): Promise<{ files: DefaultConfigFiles; revision: string; from: string }> {
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
  const text = await readInput(file, "IstioOperator file", io);
  try {
    const base = defaultConfigFiles(opts.revision);
    const first = applyIstioOperator(text, file, base);
    const revision = opts.revision || first.revision;
    // A revision the file names and the flags did not: applied again over that revision's defaults.
    const files = revision === opts.revision ? base : defaultConfigFiles(revision);
    const iop = files === base ? first : applyIstioOperator(text, file, files);
    return { files: { ...files, values: iop.values, mesh: iop.mesh }, revision, from: file };
  } catch (e) {
    if (e instanceof ConfigError) throw new InjectorFlagsError(oneLine(e.message));
    throw e;
  }
}

/** The configuration texts the flags name, the built-in default (or the IstioOperator's) for each one left out. */
export async function injectorSources(opts: InjectorFlags, io: CliIo): Promise<CliInjectorSources> {
  // With --revision and no files, the built-in default is that revision's control plane (istiod-REV).
  const { files: defaults, revision, from } = await baseFiles(opts, io);
  const cluster: ClusterConfig = wantsCluster(opts) ? await clusterTexts(opts, revision) : { names: {} };
  const sources: CliInjectorSources = {
    revision,
    config: opts.injectConfigFile
      ? await readInput(opts.injectConfigFile, "inject config file", io)
      : (cluster.config ?? defaults.config),
    values: opts.valuesFile ? await readInput(opts.valuesFile, "values file", io) : (cluster.values ?? defaults.values),
    mesh: opts.meshConfigFile
      ? await readInput(opts.meshConfigFile, "mesh config file", io)
      : (cluster.mesh ?? defaults.mesh),
    names: {
      config: opts.injectConfigFile ?? cluster.names.config ?? "built-in config",
      values: opts.valuesFile ?? cluster.names.values ?? `${from} values`,
      mesh: opts.meshConfigFile ?? cluster.names.mesh ?? `${from} mesh config`,
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
 * Loads the injector from `sources` with the run's environment (the templates' `env`, Istio's
 * COMPLIANCE_POLICY), printing its warnings. Throws ConfigError for a malformed configuration.
 */
export function loadCliInjector(
  sources: InjectorSources,
  valuesFlag: string | undefined,
  io: CliIo,
): LoadedInjector & { missingValues?: string } {
  const loaded = loadInjector(sources, {
    env: (name) => io.env[name],
    compliancePolicy: io.env.COMPLIANCE_POLICY ?? "",
  });
  for (const warning of loaded.warnings ?? []) io.stderr.write(`meshinject: warning: ${warning}\n`);
  const missing = valuesFlag ? missingValues(sources.names?.values, loaded.settings.values.json) : undefined;
  if (missing === undefined) return loaded;
  io.stderr.write(`meshinject: warning: ${missing}\n`);
  return { ...loaded, missingValues: missing };
}

/**
 * Adds the options that choose the configuration (istioctl kube-inject's, plus --from-cluster and
 * the kube context's) to a manifest command. `what` completes "the configuration ...".
 */
export function addInjectorOptions(command: Command, what: string): Command {
  return command
    .option(
      "--injectConfigFile <file>",
      `injector config ${what}: the \`config\` key of istio-sidecar-injector, or the ConfigMap`,
    )
    .option("--meshConfigFile <file>", `mesh config ${what}: the \`mesh\` key of the istio ConfigMap, or the ConfigMap`)
    .option(
      "--valuesFile <file>",
      `injector values ${what}: the \`values\` key of istio-sidecar-injector, or the ConfigMap`,
    )
    .option(
      "--operatorFileName <file>",
      "an IstioOperator install file: its profile, values, meshConfig, hub, tag and revision over the built-in default",
    )
    .option("--from-cluster", "read what no file gives from the cluster's ConfigMaps (kube context, as istioctl does)")
    .option("-i, --istioNamespace <ns>", "the cluster's Istio namespace (implies --from-cluster; default istio-system)")
    .option("--injectConfigMapName <name>", "ConfigMap of the injector config and values (implies --from-cluster)")
    .option("--meshConfigMapName <name>", "ConfigMap of the mesh config (implies --from-cluster)")
    .option(
      "--webhookConfig <name>",
      "istioctl's MutatingWebhookConfiguration name, accepted for its scripts: meshinject reads the ConfigMaps instead (istioctl's fallback), so it is not used",
      "istio-sidecar-injector",
    )
    .option("--kubeconfig <file>", "kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
    .option("--context <name>", "kubeconfig context to use (default: the current one)")
    .option("--request-timeout <seconds>", "how long one request to the API server may take (default 15)")
    .option("-r, --revision <name>", `control plane revision ${what}`, "");
}
