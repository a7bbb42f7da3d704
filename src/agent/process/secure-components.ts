/**
 * The agent's SDS server (workload certificates from the CA, for Envoy) and XDS proxy (Envoy ↔
 * istiod) as components. As in pilot-agent, their health shows in readiness through Envoy (which
 * is not ready without configuration and certificates), not as checks of their own; the agent's own
 * readiness check is the DNS proxy's. The name tables istiod sends go to the DNS proxy, if any.
 */

import type { NameTable } from "../dns/name-table.js";
import { securityOptionsFromEnv } from "../sds/options-from-env.js";
import { type SdsServer, startSdsServer } from "../sds/server.js";
import { xdsProxyOptionsFromEnv } from "../xds/options-from-env.js";
import { startXdsProxy, type XdsProxy } from "../xds/proxy.js";
import { type Component, ComponentStartError } from "./component.js";
import type { AgentRuntime } from "./runtime.js";

type Env = Readonly<Record<string, string | undefined>>;

function logTo(runtime: AgentRuntime, scope: string) {
  const log = runtime.log.withScope(scope);
  return (level: "debug" | "info" | "warn", message: string) => log[level](message);
}

/** The SDS server component: `<root>/var/run/secrets/workload-spiffe-uds/socket`. */
export function sdsComponent(runtime: AgentRuntime, env: Env, root: string): Component {
  const discoveryAddress = runtime.plan.proxyConfig.discoveryAddress ?? "";
  let server: SdsServer | undefined;
  return {
    name: "sds server",
    async start() {
      try {
        server = await startSdsServer({
          security: securityOptionsFromEnv(env, { root, discoveryAddress }),
          proxyless: runtime.plan.disableEnvoy,
          log: logTo(runtime, "sds"),
        });
      } catch (e) {
        throw new ComponentStartError(`sds server: ${(e as Error).message}`);
      }
    },
    async stop() {
      await server?.close();
    },
  };
}

/** The XDS proxy component: `<root>/etc/istio/proxy/XDS`, one connection to istiod. */
export function xdsComponent(
  runtime: AgentRuntime,
  env: Env,
  root: string,
  onNameTable?: (table: NameTable) => void,
): Component {
  const discoveryAddress = runtime.plan.proxyConfig.discoveryAddress ?? "";
  let proxy: XdsProxy | undefined;
  return {
    name: "xds proxy",
    async start() {
      try {
        proxy = await startXdsProxy({
          ...xdsProxyOptionsFromEnv(env, {
            root,
            discoveryAddress,
            onNameTable,
            controlPlaneAuthPolicy: runtime.plan.proxyConfig.controlPlaneAuthPolicy as string | number | undefined,
            proxyMetadata: runtime.plan.proxyConfig.proxyMetadata as Record<string, string> | undefined,
          }),
          log: logTo(runtime, "xdsproxy"),
        });
      } catch (e) {
        throw new ComponentStartError(`xds proxy: ${(e as Error).message}`);
      }
    },
    async stop() {
      await proxy?.close();
    },
  };
}
