/**
 * `otelResourceAttributes MESH ANNOTATIONS LABELS NAMESPACE CONTAINERS`: the OpenTelemetry service
 * resource attributes the sidecar's OTEL_RESOURCE_ATTRIBUTES env carries, when the mesh asks for
 * them: an `opentelemetry` extension provider with `serviceAttributeEnrichment:
 * OTEL_SEMANTIC_CONVENTIONS`. Each attribute follows the OpenTelemetry Kubernetes conventions
 * (semconv non-normative k8s-attributes, "service attributes"), first value found wins:
 *
 * - `service.namespace`: annotation `resource.opentelemetry.io/service.namespace`, else the namespace
 *   (left out when the namespace is empty);
 * - `service.version`: annotation `resource.opentelemetry.io/service.version`, else label
 *   `app.kubernetes.io/version`, else (a pod with a single container) that container's image
 *   `<tag>@<digest>`, `<digest>` or `<tag>`;
 * - `service.instance.id`: annotation `resource.opentelemetry.io/service.instance.id`, else (a pod
 *   with containers) `<namespace>.<pod name>.<first container's name>`. The pod's name is not known
 *   when the pod is injected (a Deployment's pods get theirs from the API server), so it is the
 *   `$(POD_NAME)` reference, which Kubernetes expands from the POD_NAME env the proxy declares
 *   before this one. The namespace is written as given, even when empty.
 *
 * `service.name` is not here: Istio computes it when it pushes the tracing config, not at injection.
 * Without such a provider the result is empty and the template adds no env.
 * Istio: pkg/kube/inject/template.go otelResourceAttributes, parseImageTagDigest.
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
 * The version an image reference names: `<tag>@<digest>` when both are there, else the digest, else
 * the tag; "" for a bare name. The digest is what follows the first `@`; the tag what follows the
 * last `:` when that comes after the last `/` (a registry's `host:port/` has one before a slash).
 */
export function imageVersion(image: string): string {
  const at = image.indexOf("@");
  const digest = at === -1 ? "" : image.slice(at + 1);
  const name = at === -1 ? image : image.slice(0, at);
  const lastSlash = name.lastIndexOf("/");
  const lastColon = name.lastIndexOf(":");
  const tag = lastColon > lastSlash ? name.slice(lastColon + 1) : "";
  if (tag !== "" && digest !== "") return `${tag}@${digest}`;
  return digest !== "" ? digest : tag;
}

export interface ServiceAttributeInputs {
  annotations: Record<string, string>;
  labels: Record<string, string>;
  namespace: string;
  /** The pod's containers (name and image), in order. */
  containers: Array<{ name: string; image: string }>;
}

/** The `key=value,...` text for OTEL_RESOURCE_ATTRIBUTES (attributes with no value are left out). */
export function serviceAttributes(inputs: ServiceAttributeInputs): string {
  const { annotations, labels, namespace, containers } = inputs;
  const annotation = (attr: string) => annotations[ANNOTATION_PREFIX + attr] ?? "";
  const attrs: string[] = [];
  const ns = annotation("service.namespace") || namespace;
  if (ns !== "") attrs.push(`service.namespace=${ns}`);
  const single = containers.length === 1 ? imageVersion(containers[0]?.image ?? "") : "";
  const version = annotation("service.version") || labels[VERSION_LABEL] || single;
  if (version !== "") attrs.push(`service.version=${version}`);
  const first = containers[0];
  const instance = annotation("service.instance.id");
  if (instance !== "") attrs.push(`service.instance.id=${instance}`);
  else if (first !== undefined) attrs.push(`service.instance.id=${namespace}.$(POD_NAME).${first.name}`);
  return attrs.join(",");
}

function stringMap(v: GoValue): Record<string, string> {
  return v === null || v === undefined || v instanceof TypedNil || typeof v !== "object"
    ? {}
    : (v as Record<string, string>);
}

function field(c: GoValue, goName: string, jsonName: string): string {
  if (isGoObject(c)) return String(c.goField(goName) ?? "");
  if (isRecord(c)) return String(c[goName] ?? c[jsonName] ?? "");
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
    containers: Array.isArray(containers)
      ? containers.map((c) => ({ name: field(c, "Name", "name"), image: field(c, "Image", "image") }))
      : [],
  });
}
