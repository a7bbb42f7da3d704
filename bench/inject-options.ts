/** kube-inject's options for the benchmarks: the built-in default configuration; a warning is a failure. */
import { defaultConfigFiles } from "../src/inject/defaults.js";
import { loadInjector } from "../src/inject/injector.js";
import type { KubeInjectOptions } from "../src/inject/kube-inject.js";

export function defaultInjectOptions(): KubeInjectOptions {
  const loaded = loadInjector(defaultConfigFiles());
  return {
    settings: loaded.settings,
    config: loaded.config,
    meshConfig: loaded.meshConfig,
    revision: "",
    nativeSidecar: false,
    warn: (message) => {
      throw new Error(`unexpected warning: ${message}`);
    },
  };
}
