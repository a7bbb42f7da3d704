/**
 * The DNS proxy's settings from the agent's environment, as pilot-agent reads them: on for a sidecar
 * with `ISTIO_META_DNS_CAPTURE=true` (or anywhere with `ISTIO_META_ENABLE_DNS_SERVER=true`),
 * `DNS_PROXY_ADDR` (default `localhost:15053`), `DNS_FORWARD_PARALLEL`, `DNS_FORWARD_TIMEOUT` (a Go
 * duration, default 5s), the pod's namespace and DNS domain (`<namespace>.svc.cluster.local` unless
 * the agent's `--domain` says otherwise). Values that do not parse fall back to the default, as Istio's
 * env package does.
 */

import { parseBool } from "../../go/strconv.js";
import { parseDuration } from "../../go/time/duration.js";
import { DEFAULT_DNS_ADDRESS, DEFAULT_FORWARD_TIMEOUT_MS, type DnsProxyOptions } from "./server.js";

function boolEnv(env: Record<string, string | undefined>, name: string): boolean {
  const text = env[name];
  return text === undefined ? false : (parseBool(text) ?? false);
}

/** Options for `startDnsProxy`, or undefined when the agent runs no DNS proxy. */
export function dnsProxyOptionsFromEnv(
  env: Record<string, string | undefined>,
  agent: { root?: string; proxyType?: "sidecar" | "router"; dnsDomain?: string } = {},
): DnsProxyOptions | undefined {
  const sidecar = (agent.proxyType ?? "sidecar") === "sidecar";
  const enabled = (boolEnv(env, "ISTIO_META_DNS_CAPTURE") && sidecar) || boolEnv(env, "ISTIO_META_ENABLE_DNS_SERVER");
  if (!enabled) return undefined;
  const namespace = env.POD_NAMESPACE ?? "";
  let timeoutMs = DEFAULT_FORWARD_TIMEOUT_MS;
  const timeoutText = env.DNS_FORWARD_TIMEOUT;
  if (timeoutText !== undefined && timeoutText !== "") {
    try {
      const ns = parseDuration(timeoutText);
      if (ns > 0n) timeoutMs = Number(ns / 1_000_000n) || 1;
    } catch {
      // not a duration: the default stays
    }
  }
  return {
    root: agent.root,
    address: env.DNS_PROXY_ADDR || DEFAULT_DNS_ADDRESS,
    proxyNamespace: namespace,
    proxyDomain: agent.dnsDomain || `${namespace}.svc.cluster.local`,
    forwardParallel: boolEnv(env, "DNS_FORWARD_PARALLEL"),
    upstreamTimeoutMs: timeoutMs,
  };
}
