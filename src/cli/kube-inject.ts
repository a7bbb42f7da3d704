/**
 * `meshinject kube-inject`: the I/O around src/inject/kube-inject.ts (reading the input and the
 * configuration files, writing the output atomically, printing warnings on stderr).
 */

import { ConfigError } from "../inject/config.js";
import { withResolvedNames } from "../inject/host-names.js";
import { DocumentError, kubeInject } from "../inject/kube-inject.js";
import { oneLine } from "../kube/one-line.js";
import { processTemplateHost } from "../webhook/template-host.js";
import type { CliIo } from "./io.js";
import { type InjectorFlags, injectorSources, loadCliInjector, readInput } from "./load-injector.js";
import { writeManifestResult } from "./manifest-result.js";

export interface KubeInjectCliOptions extends InjectorFlags {
  filename: string;
  output?: string;
  /** Print a unified diff per changed document instead of the whole output. */
  diff?: boolean;
  nativeSidecars: string;
}

/** An error for the user (exit code 1, one line). */
export class KubeInjectError extends Error {
  override name = "KubeInjectError";
}

/**
 * The error to show for a failure while reading the documents or the configuration: nothing has
 * been written yet, so it names the one document (or configuration file) at fault.
 */
export function documentFailure(e: unknown, filename: string, io: CliIo): unknown {
  if (e instanceof DocumentError) {
    if (io.env.MESHINJECT_DEBUG && e.cause instanceof Error) io.stderr.write(`${e.cause.stack}\n`);
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

export async function runKubeInject(opts: KubeInjectCliOptions, io: CliIo): Promise<void> {
  const sources = await injectorSources(opts, io);
  const nativeSidecar = nativeSidecarSetting(opts.nativeSidecars);
  const input = await readInput(opts.filename, "input", io);
  const inputName = opts.filename === "-" ? "stdin" : opts.filename;
  // As istioctl: its skip lines are collected and printed after the output, after one blank line;
  // the other warnings (what Istio logs as it goes) are printed before the output, naming the document.
  let skipped: string[] = [];
  let warnings: string[] = [];
  let output: string;
  try {
    const loaded = loadCliInjector(sources, opts.valuesFile, io);
    // Templates calling getHostByName: the names they ask for are resolved, then the input is
    // injected again (src/inject/host-names.ts); only the last run's warnings are printed.
    output = await withResolvedNames(processTemplateHost(io.env), (lookupHost) => {
      skipped = [];
      warnings = [];
      return kubeInject(input, {
        settings: { ...loaded.settings, lookupHost },
        config: loaded.config,
        meshConfig: loaded.meshConfig,
        revision: sources.revision,
        nativeSidecar,
        warn: (message) => (message.startsWith(SKIP_LINE) ? skipped : warnings).push(message),
      });
    });
  } catch (e) {
    throw documentFailure(e, opts.filename, io);
  } finally {
    for (const message of warnings) io.stderr.write(`meshinject: warning: ${inputName}: ${message}\n`);
  }
  await writeManifestResult(opts, input, output, (message) => new KubeInjectError(message), io);
  if (skipped.length > 0) io.stderr.write(`\n${skipped.map((line) => `${line}\n`).join("")}`);
}

/** How istioctl's skip lines start (`===> Skipping injection because ...`). */
const SKIP_LINE = "===> ";
