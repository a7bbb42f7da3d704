/**
 * `meshinject uninject`: the I/O around src/inject/uninject.ts. The configuration flags are
 * kube-inject's: the injector the workloads were injected with works out which labels and
 * annotations the templates derived (with another one, fewer are removed, never more).
 */

import { Command } from "commander";
import { type UninjectOptions, uninjectDocument } from "../inject/uninject.js";
import type { CliIo } from "./io.js";
import {
  documentFailure,
  type KubeInjectCliOptions,
  nativeSidecarSetting,
  openCliInput,
  streamCliResult,
} from "./kube-inject.js";
import { addInjectorOptions, injectorSources, loadCliInjector } from "./load-injector.js";
import { OUTPUT_FLAG_HELP } from "./output-help.js";

async function runUninject(opts: KubeInjectCliOptions, io: CliIo): Promise<void> {
  const sources = await injectorSources(opts, io);
  const nativeSidecar = nativeSidecarSetting(opts.nativeSidecars);
  const input = await openCliInput(opts.filename, io);
  let options: UninjectOptions;
  try {
    const loaded = loadCliInjector(sources, opts.valuesFile, io);
    options = {
      settings: loaded.settings,
      config: loaded.config,
      meshConfig: loaded.meshConfig,
      revision: sources.revision,
      nativeSidecar,
      warn: (message) => io.stderr.write(message),
    };
  } catch (e) {
    throw documentFailure(e, opts.filename, io);
  }
  await streamCliResult(opts, input, (raw, index) => uninjectDocument(raw.text, index, options), io);
}

const HELP = `
Works from what the injection recorded in each pod: the sidecar.istio.io/status annotation names the
containers, init containers, volumes and image pull secrets it added; the proxy's
ISTIO_KUBE_APP_PROBERS and ISTIO_PROMETHEUS_ANNOTATIONS hold the app's probes and scrape annotations
as they were (a probe's port as the injection recorded it: a number, also where the app named the
port); proxy.istio.io/overrides holds the user's own istio-proxy settings. Labels, annotations
and pod fields the templates derived (security.istio.io/tlsMode, istio.io/rev, ...) are removed where
injecting without them writes them again, so kube-inject of the result gives the input back; the
empty fields a typed write adds (status: {}, strategy: {}, resources: {}) are left out. A
workload whose record is unreadable or incomplete is refused with the reason; workloads that were not
injected and other documents are copied through.

Examples:
  meshinject uninject -f injected.yaml -o app.yaml
  kubectl get deploy web -o yaml | meshinject uninject -f - --diff
`;

export function uninjectCommand(io: CliIo): Command {
  return addInjectorOptions(
    new Command("uninject")
      .description("remove the Istio sidecar from injected workloads: the inverse of kube-inject")
      .requiredOption("-f, --filename <file>", "input YAML; - reads standard input (required)"),
    "the workloads were injected with",
  )
    .option("--native-sidecars <on|off|auto>", "whether they were injected as native sidecars", "auto")
    .option("--diff", "print a unified diff per changed document instead of the whole output")
    .option("-o, --output <file>", OUTPUT_FLAG_HELP)
    .addHelpText("after", HELP)
    .action((opts: KubeInjectCliOptions) => runUninject(opts, io));
}
