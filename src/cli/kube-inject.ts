/**
 * `meshinject kube-inject`: the I/O around src/inject/kube-inject.ts (reading the configuration
 * files, streaming the input's documents through the injector one at a time into the output, which
 * an -o file gets atomically, printing warnings on stderr).
 */

import { ConfigError } from "../inject/config.js";
import { DocumentError, DocumentInjector, streamError } from "../inject/kube-inject.js";
import { oneLine } from "../kube/one-line.js";
import type { RawDocument } from "../kube/stream.js";
import { processTemplateHost } from "../node/template-host.js";
import { type CliIo, stdinOnRead } from "./io.js";
import { type InjectorFlags, InjectorFlagsError, injectorSources, loadCliInjector } from "./load-injector.js";
import { inputName } from "./manifest-command.js";
import { openInput, streamManifestResult } from "./manifest-result.js";
import { InputError } from "./read-input.js";

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
 * The error to show for a failure while reading the documents or the configuration: it names the
 * one document (or configuration file) at fault.
 */
export function documentFailure(e: unknown, filename: string, io: CliIo, hint?: string): unknown {
  if (e instanceof DocumentError) {
    if (io.env.MESHINJECT_DEBUG && e.cause instanceof Error) io.stderr.write(`${e.cause.stack}\n`);
    // A document the injector failed on (it has a cause; unreadable YAML has none) may fail for the hint's reason.
    const why = hint !== undefined && e.cause !== undefined ? `; ${hint}` : "";
    return new KubeInjectError(`${inputName(filename)}: ${e.message}${why}`);
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

/**
 * The input, read piece by piece (a file that cannot be read is reported before the configuration
 * is loaded, as when the whole input was read first).
 */
export async function openCliInput(filename: string, io: CliIo): Promise<AsyncIterable<string>> {
  try {
    return await openInput(filename, stdinOnRead(io));
  } catch (e) {
    throw e instanceof InputError ? new InjectorFlagsError(e.message) : e;
  }
}

/** Streams a manifest command's documents through `each` into its output; errors as the user sees them. */
export async function streamCliResult(
  opts: KubeInjectCliOptions,
  input: AsyncIterable<string>,
  each: (raw: RawDocument, index: number) => string | Promise<string>,
  io: CliIo,
  hint?: string,
): Promise<void> {
  try {
    await streamManifestResult(opts, input, each, (message) => new KubeInjectError(message), io);
  } catch (e) {
    if (e instanceof InputError) throw new InjectorFlagsError(e.message);
    throw documentFailure(streamError(e), opts.filename, io, hint);
  }
}

export async function runKubeInject(opts: KubeInjectCliOptions, io: CliIo): Promise<void> {
  const sources = await injectorSources(opts, io);
  const nativeSidecar = nativeSidecarSetting(opts.nativeSidecars);
  const input = await openCliInput(opts.filename, io);
  const source = inputName(opts.filename);
  // As istioctl: its skip lines are collected and printed after the output, after one blank line;
  // the other warnings (what Istio logs as it goes) are printed at once, naming the document.
  const skipped: string[] = [];
  let injector: DocumentInjector;
  let hint: string | undefined;
  try {
    const loaded = loadCliInjector(sources, opts.valuesFile, io);
    hint = loaded.missingValues;
    injector = new DocumentInjector({
      settings: loaded.settings,
      config: loaded.config,
      meshConfig: loaded.meshConfig,
      revision: sources.revision,
      nativeSidecar,
      warn: (message) => {
        if (message.startsWith(SKIP_LINE)) skipped.push(message);
        else io.stderr.write(`meshinject: warning: ${source}: ${message}\n`);
      },
    });
  } catch (e) {
    throw documentFailure(e, opts.filename, io);
  }
  // Templates calling getHostByName: each document's names are resolved and it is injected again.
  const host = processTemplateHost(io.env);
  await streamCliResult(opts, input, (raw) => injector.documentResolving(raw, host), io, hint);
  injector.end();
  if (skipped.length > 0) io.stderr.write(`\n${skipped.map((line) => `${line}\n`).join("")}`);
}

/** How istioctl's skip lines start (`===> Skipping injection because ...`). */
const SKIP_LINE = "===> ";
