/**
 * One case folder of the istio-inject corpus (see its FORMAT.md): its case.json and the injector
 * its files load to. Shared by the kube-inject and webhook runners and the re-injection test.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readYaml } from "../../src/go/yaml/read.js";
import { type InjectorConfig, parseValues } from "../../src/inject/config.js";
import { compileTemplates, type LoadedInjector } from "../../src/inject/injector.js";
import type { KubeInjectOptions } from "../../src/inject/kube-inject.js";
import type { MeshConfig } from "../../src/mesh/index.js";

/** The fields of case.json the runners read. */
export interface IstioInjectCase {
  nativeSidecars: boolean;
  compliancePolicy: string;
  platform: string;
  revision: string;
  kubeInjectRevision: string;
  expectedError: string | null;
  expectedLog: string | null;
  kubeInject: boolean;
  webhook: boolean;
  webhookParts: number;
  environment: Record<string, string>;
  nodes: Array<{ name: string; kubeletVersion: string }>;
}

export function readCase(caseDir: string): IstioInjectCase {
  return JSON.parse(readFileSync(join(caseDir, "case.json"), "utf8")) as IstioInjectCase;
}

/** Why re-injecting a pod with a user-written istio-proxy does not give Istio's golden back. */
const USER_PROXY_REINJECTED =
  "user-written istio-proxy: on re-injection the template's proxy wins (Istio's reapplyOverwrittenContainers " +
  "skips containers the status lists), so the user's settings the template also sets are replaced; settles";

/**
 * Cases whose golden Istio itself would not give back unchanged on re-injection, and why; every
 * other case must be a fixed point. Istio's reapplyOverwrittenContainers (pkg/kube/inject/webhook.go)
 * skips every container the previous injection's status lists, so on re-injection the template's
 * value wins over the user's; the recorded `proxy.istio.io/overrides` containers reach only the
 * templates' input (reinsertOverrides), not the output. A golden whose pod customises istio-proxy
 * (an image, args, a uid) therefore changes once (twice where the uid feeds istio-init's `-u`) and
 * then stays: only the injected containers change.
 */
export const ISTIO_NOT_FIXED_POINTS: Readonly<Record<string, string>> = {
  // The input was injected before, without native sidecars: its status annotation lists istio-proxy
  // under containers while the template now puts it under initContainers, so Istio does not strip the
  // old proxy and merges it over the new one (old args, old ISTIO_META_APP_CONTAINERS). The golden
  // records istio-proxy as an init container, so the next injection replaces it cleanly: it settles
  // on the second re-injection, in Istio as here.
  "merge-probers.yaml.injected": "pre-native-sidecar golden: settles on the 2nd re-injection, as Istio's does",
  // The user's `image: foo/bar` (the custom template) and `fake/custom-image` give way to .ProxyImage.
  "multiple-templates.yaml.injected": USER_PROXY_REINJECTED,
  "proxy-override.yaml.injected": USER_PROXY_REINJECTED,
  // The user's args give way to the template's.
  "proxy-override-args.yaml.injected": USER_PROXY_REINJECTED,
  "proxy-override-args-native.yaml.injected": USER_PROXY_REINJECTED,
  // The user's runAsUser 1234 gives way to 1337, and istio-init's `-u` follows it one pass later.
  "proxy-override-runas.yaml.injected": USER_PROXY_REINJECTED,
  "proxy-override-runas.yaml.tproxy.injected": USER_PROXY_REINJECTED,
  // (webhook only) The user's readOnlyRootFilesystem: false gives way to the template's true.
  "hello-openshift-custom-injection.yaml.injected": USER_PROXY_REINJECTED,
};

/** What `env` sees for a case: its `environment`, nothing else (the runner's own environment stays out). */
export function caseEnv(meta: Pick<IstioInjectCase, "environment">): (name: string) => string | undefined {
  const environment = meta.environment ?? {};
  return (name) => (Object.hasOwn(environment, name) ? environment[name] : undefined);
}

/**
 * The injector a case runs with: the parsed config of injector-config.json (the form FORMAT.md asks
 * harnesses to load), values.json, and mesh.yaml, which is the effective MeshConfig already.
 */
export function caseInjector(caseDir: string, meta: IstioInjectCase): LoadedInjector {
  const read = (name: string) => readFileSync(join(caseDir, name), "utf8");
  const parsed = JSON.parse(read("injector-config.json")) as Partial<InjectorConfig> & {
    templates: Record<string, string>;
  };
  const config: InjectorConfig = {
    policy: parsed.policy ?? "enabled",
    defaultTemplates: parsed.defaultTemplates ?? ["sidecar"],
    templates: parsed.templates,
    aliases: parsed.aliases ?? {},
    neverInjectSelector: parsed.neverInjectSelector ?? [],
    alwaysInjectSelector: parsed.alwaysInjectSelector ?? [],
    injectedAnnotations: parsed.injectedAnnotations ?? {},
  };
  return {
    config,
    meshConfig: (readYaml(read("mesh.yaml")) ?? {}) as MeshConfig,
    warnings: [],
    settings: {
      // The templates' `env` reads istiod's process environment; the case's `environment` is that
      // environment (FORMAT.md section 4). An empty value counts as unset, as Go's env helper treats it.
      templates: compileTemplates(config, caseEnv(meta)),
      values: parseValues(read("values.json")),
      compliancePolicy: meta.compliancePolicy,
    },
  };
}

/** kube-inject's options for a case: its injector, its kube-inject revision and native-sidecar setting. */
export function caseKubeInjectOptions(caseDir: string, meta: IstioInjectCase): KubeInjectOptions {
  const injector = caseInjector(caseDir, meta);
  return {
    settings: injector.settings,
    config: injector.config,
    meshConfig: injector.meshConfig,
    revision: meta.kubeInjectRevision,
    nativeSidecar: meta.nativeSidecars,
    warn: () => {},
  };
}
