/**
 * The models of the playground's pictures, one per workload of the injected output, with no DOM:
 * the Pod picture's (pod-model.ts) from the injected pod against the input's, with the sidecar's
 * ports from the proxy-config computation (podBootstrap) and the capture (podCapture); the Traffic
 * picture's (traffic-model.ts) from podCapture, the computation `capture-rules` runs, with the
 * workload's rule text (captureSectionLines). A workload whose capture or proxy config cannot be
 * worked out is still drawn; the Traffic and Proxy tabs report the error.
 */

import { podBootstrap } from "../src/agent/bootstrap/pod.js";
import { captureSectionLines } from "../src/agent/capture/capture-section.js";
import { type PodCapture, podCapture } from "../src/agent/capture/pod-capture.js";
import { isRecord } from "../src/go/json.js";
import type { Json } from "../src/inject/pod.js";
import { PROXY_CONTAINER } from "../src/inject/pod.js";
import type { PodParts } from "../src/kube/workloads.js";
import type { MeshConfig } from "../src/mesh/types.js";
import { forEachWorkload, workloadHeader } from "../src/report/injected-pods.js";
import { type PodModel, podModel, type SidecarFacts } from "./pod-model.js";
import { type TrafficModel, trafficModel } from "./traffic-model.js";

export interface WorkloadPictures {
  /** `Deployment default/web`. */
  header: string;
  pod: PodModel;
  traffic: TrafficModel;
  /** The workload's capture rules, as capture-rules prints them. */
  rules: string;
}

export interface PicturesOptions {
  namespace: string;
  meshConfigText: string;
  mesh: MeshConfig;
}

interface Visited {
  obj: Json;
  pod: PodParts;
}

function workloads(text: string): Visited[] {
  const out: Visited[] = [];
  forEachWorkload(text, { source: "workload", error: Error, isDocumentError: () => true }, ({ obj, pod }) =>
    out.push({ obj, pod }),
  );
  return out;
}

const nameOf = (obj: Json) => `${String(obj.kind)}/${isRecord(obj.metadata) ? String(obj.metadata.name) : ""}`;

/** The app containers' declared ports (not istio-proxy's). */
function appPorts(pod: PodParts): string[] {
  const containers = Array.isArray(pod.spec.containers) ? pod.spec.containers.filter(isRecord) : [];
  return containers
    .filter((c) => c.name !== PROXY_CONTAINER)
    .flatMap((c) => (Array.isArray(c.ports) ? c.ports.filter(isRecord) : []))
    .map((p) => String(p.containerPort ?? ""))
    .filter((p) => p !== "");
}

function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** The pictures of every workload of `injected`; `input` is what it was injected from. */
export function workloadPictures(input: string, injected: string, options: PicturesOptions): WorkloadPictures[] {
  const originals = attempt(() => workloads(input)) ?? [];
  return workloads(injected).map(({ obj, pod }, i) => {
    const header = workloadHeader(obj, pod, options.namespace);
    const original = originals[i];
    const before = original !== undefined && nameOf(original.obj) === nameOf(obj) ? original.pod : undefined;
    const noWarnings = () => {};
    const read = attempt(() =>
      podCapture(obj, pod, { namespace: options.namespace, ipv6: false, dnsServers: [] }, noWarnings),
    );
    const capture: PodCapture = read ?? { by: "none", proxy: true };
    const bootstrap = attempt(() => podBootstrap(obj, pod, { ...options }));
    const admin = bootstrap?.proxyConfig.proxyAdminPort;
    const facts: SidecarFacts = {
      statusPort: bootstrap?.statusPort || undefined,
      adminPort: typeof admin === "number" ? admin : undefined,
      capture:
        capture.by === "none"
          ? undefined
          : {
              by: capture.by,
              proxyPort: capture.config.ProxyPort,
              inboundCapturePort: capture.config.InboundCapturePort,
              dns: capture.config.RedirectDNS,
            },
    };
    return {
      header,
      pod: podModel(header, pod, before, facts),
      traffic:
        read === undefined
          ? { ...trafficModel(capture, appPorts(pod)), note: "the capture cannot be read: see the errors" }
          : trafficModel(capture, appPorts(pod)),
      rules: attempt(() => captureSectionLines(capture).join("\n")) ?? "",
    };
  });
}
