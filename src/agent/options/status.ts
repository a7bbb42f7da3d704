/**
 * The status server's slice of the agent's options (pilot-agent's NewStatusServerOptions and the
 * variables the status server reads): the status and admin ports from the proxy config, the pod's
 * IP (INSTANCE_IP, first address), the proxy type, ISTIO_KUBE_APP_PROBERS and
 * ISTIO_PROMETHEUS_ANNOTATIONS (undefined when unset), `--profiling` (default true),
 * METRICS_LOCALHOST_ACCESS_ONLY, REWRITE_PROBE_LEGACY_LOCALHOST_DESTINATION and
 * ISTIO_ENABLE_HTTP2_PROBING (default true), ENABLE_PROBE_KEEPALIVE_CONNECTIONS (default false),
 * PILOT_AGENT_MERGE_ENVOY_STATS (default true), and whether Envoy runs at all.
 */
import { AddressError, is4, parseAddr } from "../netip.js";
import type { AgentPlan } from "../plan.js";
import { KUBE_APP_PROBERS_ENV } from "../status/probers.js";
import { PROMETHEUS_ANNOTATIONS_ENV } from "../status/scrape-config.js";
import type { StatusServerOptions } from "../status/server.js";
import type { EnvReader } from "./env.js";

/** What the status server is configured with; the agent adds its narrow port (../process/status-port.ts). */
export type StatusSlice = Pick<
  StatusServerOptions,
  | "host"
  | "port"
  | "adminPort"
  | "envoyPrometheusPort"
  | "podIP"
  | "ipv6"
  | "nodeType"
  | "kubeAppProbers"
  | "prometheusAnnotations"
  | "noEnvoy"
  | "enableProfiling"
  | "metricsLocalhostOnly"
  | "legacyLocalhostProbeDestination"
  | "http2Probing"
  | "probeKeepalive"
  | "mergeEnvoyStats"
> & { port: number };

export function statusSlice(plan: AgentPlan, read: EnvReader, host?: string): StatusSlice {
  const pc = plan.proxyConfig;
  return {
    host,
    port: pc.statusPort ?? 15020,
    adminPort: pc.proxyAdminPort ?? 15000,
    envoyPrometheusPort: plan.metadataOptions.envoyPrometheusPort,
    // NewStatusServerOptions: INSTANCE_IP as set ("" = the probes dial localhost), not the node's first address.
    podIP: read.string("INSTANCE_IP"),
    // proxyArgs.IsIPv6: every address of the proxy is IPv6 (DiscoverIPMode; AllIPv4 is asked first).
    ipv6: !allIPv4(plan.instanceIPs) && allIPv6(plan.instanceIPs),
    nodeType: plan.proxyType,
    kubeAppProbers: read.lookup(KUBE_APP_PROBERS_ENV),
    prometheusAnnotations: read.lookup(PROMETHEUS_ANNOTATIONS_ENV),
    noEnvoy: plan.disableEnvoy,
    enableProfiling: plan.profiling,
    metricsLocalhostOnly: read.bool("METRICS_LOCALHOST_ACCESS_ONLY", false),
    legacyLocalhostProbeDestination: read.bool("REWRITE_PROBE_LEGACY_LOCALHOST_DESTINATION", false),
    http2Probing: read.bool("ISTIO_ENABLE_HTTP2_PROBING", true),
    probeKeepalive: read.bool("ENABLE_PROBE_KEEPALIVE_CONNECTIONS", false),
    mergeEnvoyStats: read.bool("PILOT_AGENT_MERGE_ENVOY_STATS", true),
  };
}

/** networkutil.AllIPv4 / AllIPv6: addresses that do not parse are skipped. */
function everyParsed(addrs: readonly string[], test: (four: boolean) => boolean): boolean {
  for (const text of addrs) {
    try {
      if (!test(is4(parseAddr(text)))) return false;
    } catch (e) {
      if (!(e instanceof AddressError)) throw e;
    }
  }
  return true;
}
const allIPv4 = (addrs: readonly string[]) => everyParsed(addrs, (four) => four);
const allIPv6 = (addrs: readonly string[]) => everyParsed(addrs, (four) => !four);
