/**
 * The agent's own servers, each started from its slice of the options (../options) with its log
 * scope: the DNS proxy (its metrics in the agent's registry), the SDS server (workload certificates
 * from the CA, for Envoy) and the XDS proxy (Envoy ↔ istiod). A server that cannot start is a
 * one-line ServerStartError naming it. As in pilot-agent, the SDS server's and the XDS proxy's health
 * shows in readiness through Envoy (not ready without configuration and certificates); the DNS
 * proxy's is a check of its own (istio-agent's Agent.Check).
 */

import type { Registry } from "prom-client";
import { type DnsProxy, type DnsProxyOptions, startDnsProxy } from "../dns/server.js";
import { type SdsServer, type SdsServerOptions, startSdsServer } from "../sds/server.js";
import { startXdsProxy, type XdsProxy, type XdsProxyOptions } from "../xds/proxy.js";
import type { AgentLog } from "./log.js";

/** A server that could not start (a port or socket in use, a bad address); one line, naming it. */
export class ServerStartError extends Error {
  override name = "ServerStartError";
}

async function named<T>(name: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    throw new ServerStartError(`${name}: ${(e as Error).message}`);
  }
}

export async function startAgentDnsProxy(
  options: DnsProxyOptions,
  registry: Registry,
  log: AgentLog,
): Promise<DnsProxy> {
  const proxy = await named("dns proxy", () => startDnsProxy({ ...options, metrics: registry, log }));
  log.info(`DNS proxy listening on ${options.address}`);
  return proxy;
}

/** The SDS server: `<root>/var/run/secrets/workload-spiffe-uds/socket`. */
export function startAgentSdsServer(options: SdsServerOptions, log: AgentLog): Promise<SdsServer> {
  return named("sds server", () => startSdsServer({ ...options, log }));
}

/** The XDS proxy: `<root>/etc/istio/proxy/XDS`, one connection to istiod. */
export function startAgentXdsProxy(options: XdsProxyOptions, log: AgentLog): Promise<XdsProxy> {
  return named("xds proxy", () => startXdsProxy({ ...options, log }));
}
