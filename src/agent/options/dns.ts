/**
 * The DNS proxy's slice of the agent's options, as pilot-agent reads them (options.go,
 * istio-agent's isDNSServerEnabled): on for a sidecar with `ISTIO_META_DNS_CAPTURE=true` (or
 * anywhere with `ISTIO_META_ENABLE_DNS_SERVER=true`), `DNS_PROXY_ADDR` (default `localhost:15053`),
 * `DNS_FORWARD_PARALLEL`, `DNS_FORWARD_TIMEOUT` (a Go duration, default 5s), the pod's namespace and
 * DNS domain (`<namespace>.svc.cluster.local` unless the agent's `--domain` says otherwise). Values
 * that do not parse are warned about and the default is used (./env.ts, Istio's pkg/env).
 */

import { DEFAULT_DNS_ADDRESS, DEFAULT_FORWARD_TIMEOUT_MS, type DnsProxyOptions } from "../dns/server.js";
import { type EnvVars, envReader } from "./env.js";

/** Options for `startDnsProxy`, or undefined when the agent runs no DNS proxy. */
export function dnsProxyOptionsFromEnv(
  env: EnvVars,
  agent: {
    root?: string;
    proxyType?: "sidecar" | "router";
    dnsDomain?: string;
    /** POD_NAMESPACE, as the agent read it. */
    namespace?: string;
    warn?: (line: string) => void;
  } = {},
): DnsProxyOptions | undefined {
  const read = envReader(env, agent.warn);
  const sidecar = (agent.proxyType ?? "sidecar") === "sidecar";
  const capture = read.bool("ISTIO_META_DNS_CAPTURE", false);
  const atGateway = read.bool("ISTIO_META_ENABLE_DNS_SERVER", false);
  if (!((capture && sidecar) || atGateway)) return undefined;
  const namespace = agent.namespace ?? "";
  const timeoutNs = read.duration("DNS_FORWARD_TIMEOUT", BigInt(DEFAULT_FORWARD_TIMEOUT_MS) * 1_000_000n);
  return {
    root: agent.root,
    address: read.string("DNS_PROXY_ADDR") || DEFAULT_DNS_ADDRESS,
    proxyNamespace: namespace,
    proxyDomain: agent.dnsDomain || `${namespace}.svc.cluster.local`,
    forwardParallel: read.bool("DNS_FORWARD_PARALLEL", false),
    upstreamTimeoutMs: timeoutNs > 0n ? Number(timeoutNs / 1_000_000n) || 1 : DEFAULT_FORWARD_TIMEOUT_MS,
  };
}
