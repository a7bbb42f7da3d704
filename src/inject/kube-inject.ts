/**
 * Manual injection over a YAML stream (what `istioctl kube-inject` does): each document of an
 * injectable kind has its pod template injected and is written back as Kubernetes writes typed
 * objects; every other document is copied through verbatim. Pure: text in, text and warnings out.
 */

import { splitYamlStream } from "../kube/stream.js";
import { marshalTyped } from "../kube/typed.js";
import { workloadOf } from "../kube/workloads.js";
import { readYaml, writeYaml } from "../kube/yaml.js";
import { applyProxyConfig, type MeshConfig } from "../mesh/index.js";
import type { InjectorConfig } from "./config.js";
import { InjectionError, type InjectorSettings, injectPod } from "./inject.js";
import { clone, isRecord, type Pod } from "./pod.js";
import { kubeInjectDecision } from "./policy.js";

export interface KubeInjectOptions {
  settings: InjectorSettings;
  config: InjectorConfig;
  meshConfig: MeshConfig;
  /** The control-plane revision (`--revision`); "" for the default. */
  revision: string;
  /** Whether proxies are injected as native sidecars (Kubernetes 1.29+ with the feature on). */
  nativeSidecar: boolean;
  /** Called with each warning, e.g. a workload skipped because of host networking. */
  warn: (message: string) => void;
}

/** A document could not be injected; names the document. */
export class DocumentError extends Error {
  override name = "DocumentError";
}

const PROXY_CONFIG_ANNOTATION = "proxy.istio.io/config";

/** Injects one decoded object (recursing into Lists); returns it changed, or as it was when skipped. */
function injectObject(obj: Record<string, unknown>, options: KubeInjectOptions): Record<string, unknown> {
  if (obj.kind === "List") {
    // Items of the injectable kinds are injected and written as typed objects; other items stay as they are.
    const items = Array.isArray(obj.items) ? obj.items : [];
    return {
      ...obj,
      items: items.map((item) => {
        if (!isRecord(item) || workloadOf(item) === undefined) return item;
        return marshalTyped(injectObject(item, options), String(item.kind)) as Record<string, unknown>;
      }),
    };
  }
  const ref = workloadOf(obj);
  if (ref === undefined) return obj;
  const pod: Pod = { metadata: clone(ref.pod.metadata ?? {}), spec: clone(ref.pod.spec ?? {}) } as Pod;
  // Like istioctl: host networking first, then policy "enabled" with no selectors.
  const decision = kubeInjectDecision(pod, { kind: ref.typeMeta.kind, fullName: ref.fullName });
  if (!decision.inject) {
    if (decision.warning !== undefined) options.warn(decision.warning);
    return obj;
  }
  // Without ProxyConfig resources here, the pod's proxy.istio.io/config annotation is applied to the whole mesh.
  let meshConfig = options.meshConfig;
  const pca = pod.metadata.annotations?.[PROXY_CONFIG_ANNOTATION];
  if (pca !== undefined) {
    meshConfig = { ...meshConfig, defaultConfig: applyProxyConfig(pca, meshConfig.defaultConfig ?? {}) };
  }
  const injected = injectPod(options.settings, {
    pod,
    typeMeta: ref.typeMeta,
    deployMeta: ref.deployMeta,
    meshConfig,
    proxyConfig: meshConfig.defaultConfig ?? {},
    revision: options.revision,
    defaultTemplates: ["sidecar"],
    aliases: {},
    injectedAnnotations: {},
    proxyEnvs: {},
    nativeSidecar: options.nativeSidecar,
    proxyUID: 1337n,
    proxyGID: 1337n,
  });
  const typed = marshalTyped(injected, "Pod") as Pod;
  return ref.withPod({ metadata: typed.metadata, spec: typed.spec });
}

/** Injects every injectable document of a YAML stream; returns the output stream. */
export function kubeInject(text: string, options: KubeInjectOptions): string {
  let out = "";
  for (const [index, raw] of splitYamlStream(text).entries()) {
    let doc: unknown;
    try {
      doc = readYaml(raw);
    } catch (e) {
      throw new DocumentError(`document ${index + 1}: invalid YAML: ${(e as Error).message}`);
    }
    if (!isRecord(doc) || workloadOf(doc, { listsToo: true }) === undefined) {
      out += `${raw}---\n`;
      continue;
    }
    let injected: Record<string, unknown>;
    try {
      injected = injectObject(doc, options);
    } catch (e) {
      const meta = isRecord(doc.metadata) ? doc.metadata : {};
      const name = `${String(doc.kind)} ${JSON.stringify(String(meta.name ?? ""))}`;
      if (e instanceof Error && process.env.MESHINJECT_DEBUG) console.error(e.stack);
      if (e instanceof InjectionError || e instanceof Error) {
        throw new DocumentError(`document ${index + 1} (${name}): ${e.message}`);
      }
      throw e;
    }
    out += `${writeYaml(marshalTyped(injected, String(doc.kind)))}---\n`;
  }
  return out;
}
