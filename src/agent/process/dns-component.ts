/**
 * The DNS proxy as one of the agent's components: started when pilot-agent would start it
 * (`ISTIO_META_DNS_CAPTURE=true` for a sidecar, or `ISTIO_META_ENABLE_DNS_SERVER`), its metrics in
 * the agent's registry, ready once a name table has arrived (from istiod, over the XDS proxy).
 */

import { dnsProxyOptionsFromEnv } from "../dns/options-from-env.js";
import { DNS_NOT_READY, type DnsProxy, startDnsProxy } from "../dns/server.js";
import { type Component, ComponentStartError } from "./component.js";
import type { AgentRuntime } from "./runtime.js";

/** A component serving `proxy` once started. */
export interface DnsComponent extends Component {
  /** The running proxy (for the name table and /debug/ndsz); undefined before start. */
  proxy(): DnsProxy | undefined;
}

/** The DNS proxy component for this agent, or undefined when the agent runs none. */
export function dnsComponent(
  runtime: AgentRuntime,
  env: Readonly<Record<string, string | undefined>>,
  root: string,
): DnsComponent | undefined {
  const proxyType = runtime.plan.proxyType === "router" ? "router" : "sidecar";
  const options = dnsProxyOptionsFromEnv(env, { root, proxyType, dnsDomain: runtime.plan.domain });
  if (options === undefined) return undefined;
  const log = runtime.log.withScope("dns");
  let proxy: DnsProxy | undefined;
  runtime.ndsz = () => proxy?.ndsz();
  return {
    name: "dns proxy",
    proxy: () => proxy,
    async start() {
      try {
        proxy = await startDnsProxy({
          ...options,
          metrics: runtime.metrics.registry,
          log: (level, message) => (level === "warn" ? log.warn(message) : log.debug(message)),
        });
      } catch (e) {
        throw new ComponentStartError(`dns proxy: ${(e as Error).message}`);
      }
      log.info(`DNS proxy listening on ${options.address}`);
    },
    async stop() {
      await proxy?.close();
    },
    async ready() {
      return proxy?.isReady() ? undefined : DNS_NOT_READY;
    },
  };
}
