/**
 * `otelResourceAttributes MESH ANNOTATIONS LABELS NAMESPACE CONTAINERS`: the OpenTelemetry service
 * resource attributes the sidecar's OTEL_RESOURCE_ATTRIBUTES env carries, when the mesh asks for
 * them: an `opentelemetry` extension provider with `serviceAttributeEnrichment:
 * OTEL_SEMANTIC_CONVENTIONS`. Each attribute follows the OpenTelemetry Kubernetes conventions
 * (semconv non-normative k8s-attributes, "service attributes"), first value found wins:
 *
 * - `service.namespace`: annotation `resource.opentelemetry.io/service.namespace`, else the namespace;
 * - `service.version`: annotation `resource.opentelemetry.io/service.version`, else label
 *   `app.kubernetes.io/version`, else (a pod with a single container) that container's image
 *   `<tag>@<digest>`, `<digest>` or `<tag>`;
 * - `service.instance.id`: annotation `resource.opentelemetry.io/service.instance.id`, else
 *   `<namespace>.<pod name>.istio-proxy`. The pod's name is not known when the pod is injected (a
 *   Deployment's pods get theirs from the API server), so it is the `$(POD_NAME)` reference, which
 *   Kubernetes expands from the POD_NAME env the proxy declares before this one. A manifest given to
 *   kube-inject without a namespace likewise gets `$(POD_NAMESPACE)` for the namespace.
 *
 * `service.name` is not here: Istio computes it when it pushes the tracing config, not at injection.
 * Without such a provider the result is empty and the template adds no env.
 */

import { viewedMessage } from "../mesh/view.js";
import type { GoValue } from "../template/index.js";
import { isGoObject, TypedNil } from "../template/index.js";

const ANNOTATION_PREFIX = "resource.opentelemetry.io/";
const VERSION_LABEL = "app.kubernetes.io/version";
const ENRICHMENT = "OTEL_SEMANTIC_CONVENTIONS";
/** The enum's number for OTEL_SEMANTIC_CONVENTIONS (0 is the unset default), for configs written with numbers. */
const ENRICHMENT_NUMBER = 1;

type Record_ = Record<string, unknown>;

function isRecord(v: unknown): v is Record_ {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether any OpenTelemetry tracing provider of the mesh asks for semantic-convention service attributes. */
export function wantsServiceAttributes(meshConfig: unknown): boolean {
  const providers = isRecord(meshConfig) ? meshConfig.extensionProviders : undefined;
  if (!Array.isArray(providers)) return false;
  return providers.some((p) => {
    const otel = isRecord(p) ? p.opentelemetry : undefined;
    if (!isRecord(otel)) return false;
    // The provider body is kept as written: protobuf JSON accepts the field's JSON and proto names.
    const v = otel.serviceAttributeEnrichment ?? otel.service_attribute_enrichment;
    return v === ENRICHMENT || v === ENRICHMENT_NUMBER;
  });
}

/**
 * The version an image reference names (distribution's reference grammar): `<tag>@<digest>` when
 * both are there, else the digest, else the tag; "" for a bare name.
 */
export function imageVersion(image: string): string {
  const at = image.indexOf("@");
  const digest = at === -1 ? "" : image.slice(at + 1);
  const name = at === -1 ? image : image.slice(0, at);
  // A tag follows the last colon of the last path component (a registry's `host:port/` has one before a slash).
  const lastSlash = name.lastIndexOf("/");
  const colon = name.indexOf(":", lastSlash + 1);
  const tag = colon === -1 ? "" : name.slice(colon + 1);
  if (tag !== "" && digest !== "") return `${tag}@${digest}`;
  return digest !== "" ? digest : tag;
}

export interface ServiceAttributeInputs {
  annotations: Record<string, string>;
  labels: Record<string, string>;
  namespace: string;
  /** The images of the pod's containers, in order. */
  containerImages: string[];
}

/** The `key=value,...` text for OTEL_RESOURCE_ATTRIBUTES (attributes with no value are left out). */
export function serviceAttributes(inputs: ServiceAttributeInputs): string {
  const { annotations, labels, containerImages } = inputs;
  // kube-inject of a manifest without a namespace: the pod's own namespace, expanded by Kubernetes.
  const namespace = inputs.namespace || "$(POD_NAMESPACE)";
  const annotation = (attr: string) => annotations[ANNOTATION_PREFIX + attr] ?? "";
  const single = containerImages.length === 1 ? imageVersion(containerImages[0] ?? "") : "";
  const attrs: Array<[string, string]> = [
    ["service.namespace", annotation("service.namespace") || namespace],
    ["service.version", annotation("service.version") || labels[VERSION_LABEL] || single],
    ["service.instance.id", annotation("service.instance.id") || `${namespace}.$(POD_NAME).istio-proxy`],
  ];
  return attrs
    .filter(([, v]) => v !== "")
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

function stringMap(v: GoValue): Record<string, string> {
  return v === null || v === undefined || v instanceof TypedNil || typeof v !== "object"
    ? {}
    : (v as Record<string, string>);
}

function imageOf(c: GoValue): string {
  if (isGoObject(c)) return String(c.goField("Image") ?? "");
  if (isRecord(c)) return String(c.Image ?? c.image ?? "");
  return "";
}

/** The template function over its Go arguments (a `.MeshConfig` view, maps, a string, `[]v1.Container`). */
export function otelResourceAttributes(
  meshConfig: GoValue,
  annotations: GoValue,
  labels: GoValue,
  namespace: GoValue,
  containers: GoValue,
): string {
  const mesh = viewedMessage(meshConfig);
  if (mesh === undefined || mesh.type !== "MeshConfig" || !wantsServiceAttributes(mesh.msg)) return "";
  return serviceAttributes({
    annotations: stringMap(annotations),
    labels: stringMap(labels),
    namespace: typeof namespace === "string" ? namespace : "",
    containerImages: Array.isArray(containers) ? containers.map(imageOf) : [],
  });
}
