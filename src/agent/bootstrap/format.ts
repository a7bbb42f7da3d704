/**
 * The text `meshinject proxy-config` prints for one pod: a `# Kind namespace/name` line, then a
 * YAML document, its keys in reading order (summary first, the proxy config last, as pilot-agent's
 * "Effective config" log shows it: protobuf-JSON names, keys sorted); for a pod not injected, the
 * line and a note, comments only.
 */
import { writeYaml } from "../../go/yaml/write.js";
import { toProtoJSONValue } from "../../mesh/index.js";
import type { PodBootstrap } from "./pod.js";

/** One top-level key and its value, as sigs.k8s.io/yaml writes a one-key map. */
function entry(key: string, value: unknown): string {
  return writeYaml({ [key]: value });
}

export function formatBootstrap(header: string, b: PodBootstrap): string {
  const parts = [
    `# ${header}\n`,
    entry("proxyType", b.proxyType),
    entry("identity", b.identity.spiffeId),
    entry("namespace", b.identity.namespace),
    entry("serviceAccount", b.identity.serviceAccount),
    entry("trustDomain", b.identity.trustDomain),
    entry("domain", b.domain),
    entry("discoveryAddress", b.discoveryAddress),
    entry("statusPort", b.statusPort),
    entry("concurrency", b.concurrency === undefined ? "unset" : b.concurrency),
    entry("concurrencySource", b.concurrencySource),
    entry("sources", b.sources),
  ];
  if (b.notes.length > 0) parts.push(entry("notes", b.notes));
  parts.push(entry("proxyConfig", toProtoJSONValue(b.proxyConfig, "ProxyConfig")));
  return parts.join("");
}

/** The section of a pod that is not injected: comment lines only (an empty YAML document). */
export function formatNotInjected(header: string, note: string): string {
  return `# ${header}\n# ${note}\n`;
}
