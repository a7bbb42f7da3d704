/**
 * Istio's pod-annotation table (istio/api `annotation/annotations.gen.go`): each annotation's name,
 * the resource kinds it applies to, and whether it is deprecated or hidden. Tools use it to warn
 * about unknown or deprecated annotations; the injector's validators live in annotations.ts.
 *
 * The entries are those of istio/api's generated table, plus the later pod annotations the injector
 * of this Istio line reads (`sidecar.istio.io/nativeSidecar`, `proxyImageType`,
 * `traffic.sidecar.istio.io/excludeInterfaces`, `istio.io/reroute-virtual-interfaces`, ...).
 */

export type AnnotationResource =
  | "Any"
  | "AuthorizationPolicy"
  | "Ingress"
  | "Pod"
  | "Service"
  | "ServiceEntry"
  | "WorkloadEntry";

export interface AnnotationInfo {
  name: string;
  resources: readonly AnnotationResource[];
  deprecated: boolean;
  /** Left out of generated usage documentation. */
  hidden: boolean;
}

type Row = [name: string, resources: AnnotationResource[], flags?: "deprecated" | "hidden" | "deprecated,hidden"];

const ROWS: Row[] = [
  ["alpha.istio.io/canonical-serviceaccounts", ["Service"], "deprecated,hidden"],
  ["alpha.istio.io/identity", ["Pod"], "deprecated,hidden"],
  ["alpha.istio.io/kubernetes-serviceaccounts", ["Service"], "deprecated,hidden"],
  ["galley.istio.io/analyze-suppress", ["Any"]],
  ["inject.istio.io/templates", ["Pod"]],
  ["install.operator.istio.io/chart-owner", ["Any"]],
  ["install.operator.istio.io/owner-generation", ["Any"]],
  ["install.operator.istio.io/version", ["Any"]],
  ["istio.io/autoRegistrationGroup", ["WorkloadEntry"], "hidden"],
  ["istio.io/connectedAt", ["WorkloadEntry"], "hidden"],
  ["istio.io/disconnectedAt", ["WorkloadEntry"], "hidden"],
  ["istio.io/dry-run", ["AuthorizationPolicy"], "hidden"],
  ["istio.io/reroute-virtual-interfaces", ["Pod"]],
  ["istio.io/workloadController", ["WorkloadEntry"], "hidden"],
  ["kubernetes.io/ingress.class", ["Ingress"]],
  ["networking.alpha.istio.io/endpointsVersion", ["ServiceEntry"], "hidden"],
  ["networking.alpha.istio.io/notReadyEndpoints", ["ServiceEntry"], "hidden"],
  ["networking.alpha.istio.io/serviceVersion", ["ServiceEntry"], "hidden"],
  ["networking.istio.io/exportTo", ["Service"]],
  ["prometheus.istio.io/merge-metrics", ["Pod"]],
  ["proxy.istio.io/config", ["Pod"]],
  ["proxy.istio.io/overrides", ["Pod"], "hidden"],
  ["readiness.status.sidecar.istio.io/applicationPorts", ["Pod"]],
  ["readiness.status.sidecar.istio.io/failureThreshold", ["Pod"]],
  ["readiness.status.sidecar.istio.io/initialDelaySeconds", ["Pod"]],
  ["readiness.status.sidecar.istio.io/periodSeconds", ["Pod"]],
  ["security.istio.io/autoMTLS", ["Pod"], "hidden"],
  ["sidecar.istio.io/agentLogLevel", ["Pod"]],
  ["sidecar.istio.io/bootstrapOverride", ["Pod"]],
  ["sidecar.istio.io/componentLogLevel", ["Pod"]],
  ["sidecar.istio.io/controlPlaneAuthPolicy", ["Pod"], "deprecated"],
  ["sidecar.istio.io/discoveryAddress", ["Pod"], "deprecated"],
  ["sidecar.istio.io/enableCoreDump", ["Pod"]],
  ["sidecar.istio.io/extraStatTags", ["Pod"]],
  ["sidecar.istio.io/inject", ["Pod"]],
  ["sidecar.istio.io/interceptionMode", ["Pod"]],
  ["sidecar.istio.io/logLevel", ["Pod"]],
  ["sidecar.istio.io/nativeSidecar", ["Pod"]],
  ["sidecar.istio.io/proxyCPU", ["Pod"]],
  ["sidecar.istio.io/proxyCPULimit", ["Pod"]],
  ["sidecar.istio.io/proxyImage", ["Pod"]],
  ["sidecar.istio.io/proxyImageType", ["Pod"]],
  ["sidecar.istio.io/proxyMemory", ["Pod"]],
  ["sidecar.istio.io/proxyMemoryLimit", ["Pod"]],
  ["sidecar.istio.io/rewriteAppHTTPProbers", ["Pod"]],
  ["sidecar.istio.io/statsInclusionPrefixes", ["Pod"], "deprecated"],
  ["sidecar.istio.io/statsInclusionRegexps", ["Pod"], "deprecated"],
  ["sidecar.istio.io/statsInclusionSuffixes", ["Pod"], "deprecated"],
  ["sidecar.istio.io/status", ["Pod"]],
  ["sidecar.istio.io/userVolume", ["Pod"]],
  ["sidecar.istio.io/userVolumeMount", ["Pod"]],
  ["status.sidecar.istio.io/port", ["Pod"]],
  ["traffic.sidecar.istio.io/excludeInboundPorts", ["Pod"]],
  ["traffic.sidecar.istio.io/excludeInterfaces", ["Pod"]],
  ["traffic.sidecar.istio.io/excludeOutboundIPRanges", ["Pod"]],
  ["traffic.sidecar.istio.io/excludeOutboundPorts", ["Pod"]],
  ["traffic.sidecar.istio.io/includeInboundPorts", ["Pod"]],
  ["traffic.sidecar.istio.io/includeOutboundIPRanges", ["Pod"]],
  ["traffic.sidecar.istio.io/includeOutboundPorts", ["Pod"]],
  ["traffic.sidecar.istio.io/kubevirtInterfaces", ["Pod"]],
];

/** Every known annotation, by name. */
export const ANNOTATIONS: ReadonlyMap<string, AnnotationInfo> = new Map(
  ROWS.map(([name, resources, flags = ""]) => [
    name,
    { name, resources, deprecated: flags.includes("deprecated"), hidden: flags.includes("hidden") },
  ]),
);

/** The table entry for `name`, or undefined for an annotation Istio does not define. */
export function annotationInfo(name: string): AnnotationInfo | undefined {
  return ANNOTATIONS.get(name);
}

/** Whether `name` is an Istio annotation allowed on `resource` (an `Any` entry fits every kind). */
export function annotationAppliesTo(name: string, resource: AnnotationResource): boolean {
  const info = ANNOTATIONS.get(name);
  return info !== undefined && (info.resources.includes("Any") || info.resources.includes(resource));
}
