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

import { checkOptions, nonPlainPath } from "./api-options.js";
import { ConfigError } from "./inject/config.js";
import { defaultConfigFiles } from "./inject/defaults.js";
import type { EnvLookup } from "./inject/funcs.js";
import { InjectionError } from "./inject/inject.js";
import { configMapHasKey, type LoadedInjector, loadInjector } from "./inject/injector.js";
import { DocumentError, injectTopLevel, kubeInject } from "./inject/kube-inject.js";
import { kubeUninject, uninjectObject } from "./inject/uninject.js";
import { oneLine } from "./kube/one-line.js";
import { marshalTyped } from "./kube/typed.js";
import { describeObject, workloadKind } from "./kube/workloads.js";
import { DriftChecker, type DriftOptions, type DriftSide, revisionKey } from "./report/drift.js";
import { DriftInputError, driftOfManifest } from "./report/drift-documents.js";
import { type DriftReport, DriftReportBuilder } from "./report/drift-report.js";

export { ConfigError } from "./inject/config.js";
export { defaultConfigFiles } from "./inject/defaults.js";
export type { EnvLookup } from "./inject/funcs.js";
export { InjectionError } from "./inject/inject.js";
export { DocumentError } from "./inject/kube-inject.js";
export { UninjectError } from "./inject/uninject.js";

/**
 * A loaded and checked injector configuration, from {@link loadInjectorConfig}: what {@link inject}
 * and {@link injectYaml} inject with. Treat it as read-only; load a new one to change it.
 */
export interface Injector extends LoadedInjector {
  /** The control-plane revision it was loaded for ("" = the default one); `inject` uses it unless told otherwise. */
  readonly revision: string;
}

/** Where an injector's configuration comes from; anything left out is the built-in default. */
export interface InjectorConfigSources {
  /**
   * The `config` key of ConfigMap istio-sidecar-injector (YAML), or the whole ConfigMap, whose
   * `values` key is then used too unless `values` is given (as `istioctl kube-inject` reads it).
   */
  config?: string;
  /** The `values` key of ConfigMap istio-sidecar-injector (JSON), or the whole ConfigMap. */
  values?: string;
  /** The `mesh` key of ConfigMap istio (YAML), or the whole ConfigMap. */
  mesh?: string;
  /**
   * The control-plane revision (`istioctl install --revision canary`): the built-in default for what
   * is left out is that revision's (its istiod is `istiod-canary`), and `inject` injects for it.
   */
  revision?: string;
  /** What the templates' `env` function reads (default: nothing is set). */
  env?: EnvLookup;
  /** Istio's `COMPLIANCE_POLICY`, e.g. `fips-140-3`. */
  compliancePolicy?: string;
  /**
   * Extension, not Istio's (docs/istio-parity.md, "Extensions"): write a `global.tag` that is a
   * sha256 digest as a digest reference (`hub/proxyv2@sha256:…`) instead of Istio's
   * `hub/proxyv2:sha256:…`. Default false.
   */
  digestImageReferences?: boolean;
}

const SOURCE_TYPES = {
  config: "string",
  values: "string",
  mesh: "string",
  revision: "string",
  env: "function",
  compliancePolicy: "string",
  digestImageReferences: "boolean",
} as const;

/**
 * Loads and checks an injector configuration: Istio's ConfigMap contents as they are. Throws a
 * ConfigError naming the document and field when something is malformed or a template does not
 * parse, and a TypeError for an option that is unknown or of the wrong type.
 */
export function loadInjectorConfig(sources: InjectorConfigSources = {}): Injector {
  checkOptions("loadInjectorConfig", sources, SOURCE_TYPES);
  const revision = sources.revision ?? "";
  const defaults = defaultConfigFiles(revision);
  const config = sources.config ?? defaults.config;
  const values =
    sources.values ?? (sources.config !== undefined && configMapHasKey(config, "values") ? config : defaults.values);
  const loaded = loadInjector(
    { config, values, mesh: sources.mesh ?? defaults.mesh },
    {
      env: sources.env,
      compliancePolicy: sources.compliancePolicy,
      ...(sources.digestImageReferences ? { extensions: { digestReferences: true } } : {}),
    },
  );
  return { ...loaded, revision };
}

export interface InjectOptions {
  /** The control-plane revision the workload is injected for; default: the injector's (see loadInjectorConfig). */
  revision?: string;
  /** Inject the proxy as a native sidecar (an init container with restartPolicy Always). Default false. */
  nativeSidecars?: boolean;
  /** Receives warnings, e.g. that a workload was skipped because it uses host networking. */
  onWarning?: (message: string) => void;
}

const OPTION_TYPES = { revision: "string", nativeSidecars: "boolean", onWarning: "function" } as const;

function kubeInjectOptions(caller: string, injector: Injector, options: InjectOptions) {
  checkOptions(caller, options, OPTION_TYPES);
  if (typeof injector !== "object" || injector === null || !("settings" in injector) || !("meshConfig" in injector)) {
    throw new TypeError(`${caller}: the first argument must be an injector from loadInjectorConfig()`);
  }
  return {
    settings: injector.settings,
    config: injector.config,
    meshConfig: injector.meshConfig,
    revision: options.revision ?? injector.revision ?? "",
    nativeSidecar: options.nativeSidecars ?? false,
    warn: options.onWarning ?? (() => {}),
  };
}

/** A deep copy of the caller's manifest, which must be plain (JSON-like) data. */
function copyOf(manifest: unknown, caller = "inject"): Record<string, unknown> {
  if (typeof manifest === "string") {
    throw new TypeError(`${caller}: the manifest is a string; for YAML or JSON text use ${caller}Yaml()`);
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) {
    throw new TypeError(
      `${caller}: the manifest must be one Kubernetes object, got ${Array.isArray(manifest) ? `an array (${caller} each, or use a List)` : String(manifest)}`,
    );
  }
  const bad = nonPlainPath(manifest);
  if (bad !== undefined) {
    throw new TypeError(
      `${caller}: the manifest must be plain data (objects, arrays, strings, numbers, booleans, null); ${bad} is not`,
    );
  }
  return structuredClone(manifest as Record<string, unknown>);
}

/**
 * Injects one Kubernetes object: a Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet,
 * ReplicationController, Job, CronJob, DeploymentConfig or List, under any version of its API group
 * (`extensions/v1beta1` Deployments and `batch/v1beta1` CronJobs too, as istioctl decides by kind).
 * Other kinds, and workloads that opt out or use host networking, come back as given; so do an
 * object without `kind` and a custom resource named like a workload (`example.com/v1` `Deployment`),
 * with a warning. It decides and warns exactly as {@link injectYaml} does for the same document. The result is a new object in the shape
 * Kubernetes itself writes (typed: empty fields dropped, `resources: {}` and the like present).
 * Label and annotation values are read as Kubernetes decodes them (`sidecar.istio.io/inject: true`
 * given as a boolean is "true"). Throws InjectionError with the reason (for example an invalid
 * `sidecar.istio.io/*` annotation, or `Deployment "web": spec.template is missing`).
 */
export function inject<T extends object>(injector: Injector, manifest: T, options: InjectOptions = {}): T {
  const settings = kubeInjectOptions("inject", injector, options);
  const copy = copyOf(manifest);
  try {
    // The same decisions and warnings as injectYaml's for a document (src/inject/kube-inject.ts).
    const { object, copied } = injectTopLevel(copy, settings);
    // Skipped (not a workload, opted out, host network): the copy comes back as it was given.
    if (copied || object === copy) return object as unknown as T;
    return marshalTyped(object, String(copy.kind)) as T;
  } catch (e) {
    if (e instanceof ConfigError || !(e instanceof Error)) throw e;
    // One error type for "this object cannot be injected", one line, naming the object.
    const prefix = `${describeObject(copy)}: `;
    const message = oneLine(e.message);
    throw new InjectionError(message.startsWith(prefix) ? message : prefix + message, { cause: e });
  }
}

/** Injects every workload of a YAML stream, as `meshinject kube-inject` does; other documents pass through verbatim. */
export function injectYaml(injector: Injector, yaml: string, options: InjectOptions = {}): string {
  const settings = kubeInjectOptions("injectYaml", injector, options);
  if (typeof yaml !== "string") throw new TypeError(`injectYaml: the YAML must be a string, got ${typeof yaml}`);
  return kubeInject(yaml, settings);
}

/**
 * Undoes the injection of one Kubernetes object (the inverse of {@link inject}): the injected
 * containers, init containers, volumes and image pull secrets go (as the pod's
 * `sidecar.istio.io/status` annotation names them), the app's probes and Prometheus annotations are
 * restored from the proxy's record, the user's own `istio-proxy` settings come back as written, and
 * the labels, annotations and pod fields the templates derived are dropped where injecting without
 * them writes them again (so `inject(injector, uninject(injector, x))` gives `x` back). The injector
 * should be the one the object was injected with; with another, less is dropped, never more.
 * Objects that were not injected come back as given. Throws {@link UninjectError}, naming the object,
 * where the record is unreadable or incomplete (e.g. a probe pointed at the agent with no record).
 */
export function uninject<T extends object>(injector: Injector, manifest: T, options: InjectOptions = {}): T {
  const settings = kubeInjectOptions("uninject", injector, options);
  const copy = copyOf(manifest, "uninject");
  return uninjectObject(copy, settings) as unknown as T;
}

/** Uninjects every injected workload of a YAML stream, as `meshinject uninject` does; other documents pass through verbatim. */
export function uninjectYaml(injector: Injector, yaml: string, options: InjectOptions = {}): string {
  const settings = kubeInjectOptions("uninjectYaml", injector, options);
  if (typeof yaml !== "string") throw new TypeError(`uninjectYaml: the YAML must be a string, got ${typeof yaml}`);
  return kubeUninject(yaml, settings);
}

export type { DriftOwner, DriftStatus, PodDrift } from "./report/drift.js";
export type { DriftReport, DriftTotals, OwnerDrift } from "./report/drift-report.js";

export interface DriftApiOptions {
  /**
   * The injector in force: pods of its revision (`istio.io/rev`, else their `sidecar.istio.io/status`
   * revision) are compared with it; several for several revisions. A pod of a revision none of them
   * serves is reported as `unknown-revision`.
   */
  injector: Injector | readonly Injector[];
  /** A planned configuration: each pod as `injector` injects it is compared with the pod as `planned` would. */
  planned?: Injector | readonly Injector[];
  /** How pods are injected again: as `kube-inject` does (manifests; the default) or as the admission webhook does (live pods). */
  injection?: "kube-inject" | "webhook";
  /** The namespace of objects that name none (default `default`). */
  namespace?: string;
  /** Whether proxies run as native sidecars; default: as each pod runs its proxy. */
  nativeSidecars?: boolean;
  /** Keep the unified diff of each stale pod. */
  diff?: boolean;
  /** Receives what the injector only logs. */
  onWarning?: (message: string) => void;
}

const DRIFT_OPTION_TYPES = {
  injection: "string",
  namespace: "string",
  nativeSidecars: "boolean",
  diff: "boolean",
  onWarning: "function",
} as const;

function driftSide(caller: string, injectors: Injector | readonly Injector[]): DriftSide {
  const list = Array.isArray(injectors) ? injectors : [injectors as Injector];
  const byRevision = new Map<string, Injector>();
  for (const injector of list) {
    if (typeof injector !== "object" || injector === null || !("settings" in injector)) {
      throw new TypeError(`${caller}: injectors must come from loadInjectorConfig()`);
    }
    byRevision.set(revisionKey(injector.revision ?? ""), injector);
  }
  return {
    injectorFor: (revision) => {
      const injector = byRevision.get(revision);
      return injector === undefined ? undefined : { revision, injector };
    },
  };
}

/**
 * Which pods (or workloads' pod templates) run a sidecar the injector would no longer give them, as
 * `meshinject drift` reports it: each is uninjected, injected again with its revision's injector and
 * compared (`up-to-date`, `stale` with what changes, `missing`, `unexpected`, `unknown-revision`,
 * `not-injected`, `error`), grouped by owner, with totals and the `kubectl rollout restart` commands
 * that would fix them. `manifests`: a YAML stream, or objects (Pods as the API server returns them,
 * Deployments...). Throws DocumentError for YAML that cannot be read; TypeError for bad options.
 */
export function drift(manifests: string | readonly object[], options: DriftApiOptions): DriftReport {
  if (typeof options !== "object" || options === null) throw new TypeError("drift: options must be an object");
  const { injector: _injector, planned: _planned, ...rest } = options;
  checkOptions("drift", rest, DRIFT_OPTION_TYPES);
  const injection = options.injection ?? "kube-inject";
  if (injection !== "kube-inject" && injection !== "webhook") {
    throw new TypeError(`drift: injection must be "kube-inject" or "webhook", got ${JSON.stringify(injection)}`);
  }
  const current = driftSide("drift", options.injector);
  const first = (Array.isArray(options.injector) ? options.injector[0] : options.injector) as Injector | undefined;
  const driftOptions: DriftOptions = {
    style: injection,
    namespace: options.namespace ?? "default",
    defaultRevision: revisionKey(first?.revision ?? ""),
    diff: options.diff ?? false,
    current,
    ...(options.nativeSidecars !== undefined ? { nativeSidecars: options.nativeSidecars } : {}),
    ...(options.planned !== undefined ? { planned: driftSide("drift", options.planned) } : {}),
    ...(options.onWarning !== undefined ? { warn: options.onWarning } : {}),
  };
  if (typeof manifests === "string") {
    try {
      return driftOfManifest(manifests, "manifest", driftOptions);
    } catch (e) {
      if (e instanceof DriftInputError) throw new DocumentError(e.message, { cause: e });
      throw e;
    }
  }
  if (!Array.isArray(manifests)) throw new TypeError("drift: give a YAML string or an array of Kubernetes objects");
  const checker = new DriftChecker(driftOptions);
  const builder = new DriftReportBuilder(options.planned === undefined ? "running" : "planned");
  for (const manifest of manifests) {
    const copy = copyOf(manifest, "drift");
    if (workloadKind(copy) === undefined || copy.kind === "List") continue;
    builder.add(checker.check(copy));
  }
  return builder.report();
}
