/**
 * Which proxy image a pod gets: `hub/name:tag`, with the image type (distroless, debug) taken from
 * the ProxyConfig, the values' `global.variant`, or the `sidecar.istio.io/proxyImageType` annotation;
 * `hub/name@sha256:D` when the tag is a digest.
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

/**
 * The image for an injected container: `hub/NAME:tag`, NAME from `global.<component>.image`
 * (default `proxyv2`), the tag with the image type applied.
 * @param values the injector's values (plain JSON)
 * @param component `proxy` for the sidecar, `proxy_init` for the traffic-setup init container
 * @param proxyImageType the effective ProxyConfig's `image.imageType`, when set
 * @param annotations the pod's annotations
 */
export function injectedImage(
  values: Record<string, unknown>,
  component: "proxy" | "proxy_init",
  proxyImageType: string | undefined,
  annotations: Record<string, string>,
): string {
  const hub = scalarText(valueAt(values, "global.hub"));
  const tag = scalarText(valueAt(values, "global.tag"));
  let imageType = scalarText(valueAt(values, "global.variant"));
  if (proxyImageType !== undefined) imageType = proxyImageType;
  const configured = scalarText(valueAt(values, `global.${component}.image`));
  const name = configured !== "" ? configured : "proxyv2";
  const annotated = annotations["sidecar.istio.io/proxyImageType"];
  if (annotated !== undefined) imageType = annotated;
  const pinned = pinnedImage(hub, name, tag);
  if (pinned !== undefined) return pinned;
  return `${hub}/${name}:${tagWithImageType(tag, imageType)}`;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * A tag that is (or ends in) a digest pins the image: `sha256:D` gives `hub/name@sha256:D`, and
 * `1.28.0@sha256:D` gives `hub/name:1.28.0@sha256:D`. Istio would write `hub/name:sha256:D`, which
 * no registry accepts; a digest names one image, so the image type (distroless, debug) is not
 * applied: pin the digest of the variant wanted. Undefined for a plain tag.
 */
function pinnedImage(hub: string, name: string, tag: string): string | undefined {
  const at = tag.lastIndexOf("@");
  const digest = at === -1 ? tag : tag.slice(at + 1);
  if (!DIGEST.test(digest)) return undefined;
  const plain = at === -1 ? "" : tag.slice(0, at);
  return `${hub}/${name}${plain === "" ? "" : `:${plain}`}@${digest}`;
}
