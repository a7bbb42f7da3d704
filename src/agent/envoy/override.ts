/**
 * readBootstrapToJSON (pkg/envoy/proxy.go), pure: the custom bootstrap override (the
 * `sidecar.istio.io/bootstrapOverride` ConfigMap the injector mounts, named by
 * ISTIO_BOOTSTRAP_OVERRIDE) with `$(HOST_IP)` substituted, as the compact JSON (keys sorted) Envoy
 * receives through `--config-yaml` and merges over the bootstrap.
 */
import { parse as parseYaml } from "yaml";
import { encodeJSON } from "../../go/encoding/json.js";

/** An override file that is not YAML/JSON; names the file. */
export class BootstrapOverrideError extends Error {
  override name = "BootstrapOverrideError";
}

export function bootstrapOverrideJSON(text: string, hostIP: string | undefined, source: string): string {
  let t = text;
  if (hostIP !== undefined && hostIP !== "") {
    // An IPv6 HOST_IP is bracketed; a template that brackets it already keeps one pair.
    const host = hostIP.includes(":") ? `[${hostIP}]` : hostIP;
    if (hostIP.includes(":")) t = t.replaceAll("[$(HOST_IP)]", host);
    t = t.replaceAll("$(HOST_IP)", host);
  }
  let value: unknown;
  try {
    value = parseYaml(t, { intAsBigInt: true });
  } catch (e) {
    throw new BootstrapOverrideError(`bootstrap override ${source}: ${(e as Error).message.split("\n")[0]}`);
  }
  return encodeJSON(value ?? null, { escapeHTML: true });
}
