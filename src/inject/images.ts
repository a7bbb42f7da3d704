/**
 * Which proxy image a pod gets: `hub/name:tag`, with the image type (distroless, debug) taken from
 * the ProxyConfig (the sidecar only), the values' `global.variant`, or the
 * `sidecar.istio.io/proxyImageType` annotation. A digest tag is written as Istio writes it
 * (`hub/name:sha256:D`) unless the digest-reference extension is on.
 */

import { formatValue } from "../go/fmt.js";
import { valueAt } from "./config.js";

/** Image types Istio publishes; a tag already ending in one has it replaced rather than doubled. */
const KNOWN_IMAGE_TYPES = ["distroless", "debug"];

/** The tag with the image type applied (`1.20` + `distroless` → `1.20-distroless`; `default` means none). */
export function tagWithImageType(tag: string, imageType: string): string {
  if (imageType === "") return tag;
  let base = tag;
  for (const t of KNOWN_IMAGE_TYPES) {
    if (base.endsWith(`-${t}`)) {
      base = base.slice(0, -(t.length + 1));
      break;
    }
  }
  return imageType === "default" ? base : `${base}-${imageType}`;
}

/** Go's %v of a JSON scalar: a tag may be given as a number in values (`tag: 1.20`). */
function scalarText(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "number" ? formatValue(v) : String(v);
}

/** Extensions to how images are named (all off by default: Istio's naming). */
export interface ImageExtensions {
  /**
   * Extension (docs/istio-parity.md, "Extensions"): a tag that is (or ends in) a sha256 digest
   * makes a digest reference, `hub/name@sha256:D` (`hub/name:T@sha256:D` for `T@sha256:D`), with no
   * image type applied. Off: Istio's `hub/name:sha256:D`.
   */
  digestReferences?: boolean;
}

/**
 * `hub/NAME:tag` with the image type applied: the given type, else `global.variant`, the annotation
 * `sidecar.istio.io/proxyImageType` over both. Istio: pkg/kube/inject/inject.go proxyImageURL, imageURL.
 */
function proxyImageURL(
  values: Record<string, unknown>,
  name: string,
  givenImageType: string,
  annotations: Record<string, string>,
  extensions: ImageExtensions,
): string {
  const hub = scalarText(valueAt(values, "global.hub"));
  const tag = scalarText(valueAt(values, "global.tag"));
  let imageType = givenImageType === "" ? scalarText(valueAt(values, "global.variant")) : givenImageType;
  const annotated = annotations["sidecar.istio.io/proxyImageType"];
  if (annotated !== undefined) imageType = annotated;
  const pinned = extensions.digestReferences ? digestReference(hub, name, tag) : undefined;
  if (pinned !== undefined) return pinned;
  return `${hub}/${name}:${tagWithImageType(tag, imageType)}`;
}

/** The configured image name of `global.<component>.image`, `proxyv2` when unset or empty. */
function imageName(values: Record<string, unknown>, component: "proxy" | "proxy_init"): string {
  const configured = scalarText(valueAt(values, `global.${component}.image`));
  return configured !== "" ? configured : "proxyv2";
}

/**
 * The sidecar's image (`.ProxyImage`): the image type from the effective ProxyConfig's
 * `image.imageType` when set. Istio: pkg/kube/inject/inject.go ProxyImage.
 */
export function proxyImage(
  values: Record<string, unknown>,
  proxyImageType: string | undefined,
  annotations: Record<string, string>,
  extensions: ImageExtensions = {},
): string {
  return proxyImageURL(values, imageName(values, "proxy"), proxyImageType ?? "", annotations, extensions);
}

/**
 * The traffic-setup init container's image (`.ProxyInitImage`): no ProxyConfig image type, only
 * `global.variant` and the annotation. Istio: pkg/kube/inject/inject.go ProxyInitImage.
 */
export function proxyInitImage(
  values: Record<string, unknown>,
  annotations: Record<string, string>,
  extensions: ImageExtensions = {},
): string {
  return proxyImageURL(values, imageName(values, "proxy_init"), "", annotations, extensions);
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * The {@link ImageExtensions.digestReferences} extension: a tag that is (or ends in) a digest gives
 * `hub/name@sha256:D` or `hub/name:T@sha256:D` (Istio writes `hub/name:sha256:D`, which no registry
 * accepts); a digest names one image, so no image type is applied: pin the variant wanted.
 * Undefined for a plain tag.
 */
function digestReference(hub: string, name: string, tag: string): string | undefined {
  const at = tag.lastIndexOf("@");
  const digest = at === -1 ? tag : tag.slice(at + 1);
  if (!DIGEST.test(digest)) return undefined;
  const plain = at === -1 ? "" : tag.slice(0, at);
  return `${hub}/${name}${plain === "" ? "" : `:${plain}`}@${digest}`;
}
