/**
 * One case folder of the istio-inject corpus (see its FORMAT.md): its case.json and the injector
 * its files load to. Shared by the kube-inject and webhook runners and the re-injection test.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type InjectorConfig, parseValues } from "../../src/inject/config.js";
import { compileTemplates, type LoadedInjector } from "../../src/inject/injector.js";
import { readYaml } from "../../src/kube/yaml.js";
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
      templates: compileTemplates(config, () => undefined),
      values: parseValues(read("values.json")),
      compliancePolicy: meta.compliancePolicy,
    },
  };
}
