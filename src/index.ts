/**
 * meshinject's library API: Istio-compatible sidecar injection for manifests built in code (cdk8s,
 * Pulumi, plain objects) and for YAML text. It is the same pipeline `meshinject kube-inject` runs.
 *
 * ```ts
 * import { inject, loadInjectorConfig } from "meshinject";
 * const injector = loadInjectorConfig();                // the built-in default (an Istio default install)
 * const deployment = inject(injector, myDeployment);    // a Deployment with the istio-proxy sidecar
 * ```
 */

import { defaultConfigFiles } from "./inject/defaults.js";
import { type InjectorEnvironment, type LoadedInjector, loadInjector } from "./inject/injector.js";
import { injectObject, kubeInject } from "./inject/kube-inject.js";
import { marshalTyped } from "./kube/typed.js";

export { ConfigError } from "./inject/config.js";
export { defaultConfigFiles } from "./inject/defaults.js";
export { InjectionError } from "./inject/inject.js";
export type { LoadedInjector as Injector } from "./inject/injector.js";
export { DocumentError } from "./inject/kube-inject.js";

/** Where an injector's configuration comes from; anything left out is the built-in default. */
export interface InjectorConfigSources extends InjectorEnvironment {
  /** The `config` key of ConfigMap istio-sidecar-injector (YAML), or the whole ConfigMap. */
  config?: string;
  /** The `values` key of ConfigMap istio-sidecar-injector (JSON), or the whole ConfigMap. */
  values?: string;
  /** The `mesh` key of ConfigMap istio (YAML), or the whole ConfigMap. */
  mesh?: string;
}

/**
 * Loads and checks an injector configuration: Istio's ConfigMap contents as they are. Throws a
 * ConfigError naming the document and field when something is malformed or a template does not parse.
 */
export function loadInjectorConfig(sources: InjectorConfigSources = {}): LoadedInjector {
  const defaults = defaultConfigFiles();
  return loadInjector(
    {
      config: sources.config ?? defaults.config,
      values: sources.values ?? defaults.values,
      mesh: sources.mesh ?? defaults.mesh,
    },
    { env: sources.env, compliancePolicy: sources.compliancePolicy },
  );
}

export interface InjectOptions {
  /** The control-plane revision the workload is injected for; "" (default) for the default revision. */
  revision?: string;
  /** Inject the proxy as a native sidecar (an init container with restartPolicy Always). Default false. */
  nativeSidecars?: boolean;
  /** Receives warnings, e.g. that a workload was skipped because it uses host networking. */
  onWarning?: (message: string) => void;
}

function kubeInjectOptions(injector: LoadedInjector, options: InjectOptions) {
  return {
    settings: injector.settings,
    config: injector.config,
    meshConfig: injector.meshConfig,
    revision: options.revision ?? "",
    nativeSidecar: options.nativeSidecars ?? false,
    warn: options.onWarning ?? (() => {}),
  };
}

/**
 * Injects one Kubernetes object: a Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet,
 * ReplicationController, Job, CronJob, DeploymentConfig or List. Other kinds, and workloads that
 * opt out or use host networking, come back as given. The result is a new object in the shape
 * Kubernetes itself writes (typed: empty fields dropped, `resources: {}` and the like present).
 * Throws InjectionError with the reason (for example an invalid `sidecar.istio.io/*` annotation).
 */
export function inject<T extends object>(injector: LoadedInjector, manifest: T, options: InjectOptions = {}): T {
  const copy = structuredClone(manifest as unknown as Record<string, unknown>);
  const injected = injectObject(copy, kubeInjectOptions(injector, options));
  // Skipped (not a workload, opted out, host network): the copy comes back as it was given.
  if (injected === copy || typeof copy.kind !== "string") return injected as unknown as T;
  return marshalTyped(injected, copy.kind) as T;
}

/** Injects every workload of a YAML stream, as `meshinject kube-inject` does; other documents pass through verbatim. */
export function injectYaml(injector: LoadedInjector, yaml: string, options: InjectOptions = {}): string {
  return kubeInject(yaml, kubeInjectOptions(injector, options));
}
