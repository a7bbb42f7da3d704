/**
 * The status server (src/agent/status) as one of the agent's components: listens on the proxy
 * config's statusPort; `/healthz/ready` is Envoy's readiness (its admin stats) and then the agent's
 * own checks — Envoy still running, every other component ready — and the last check marks the
 * first readiness for `istio_agent_startup_duration_seconds`. `/quitquitquit` ends the agent
 * without draining; readiness fails from the moment the agent starts to shut down.
 */

import { KUBE_APP_PROBERS_ENV } from "../status/probers.js";
import { PROMETHEUS_ANNOTATIONS_ENV } from "../status/scrape-config.js";
import { type StatusServer, startStatusServer } from "../status/server.js";
import { type Component, ComponentStartError } from "./component.js";
import type { AgentRuntime } from "./runtime.js";

export interface StatusComponentOptions {
  /** The listen address; pilot-agent listens on every interface (`::`). */
  host?: string;
  /** ENVOY_READINESS_CHECK_TIMEOUT (ms). */
  envoyReadinessTimeoutMs?: number;
}

export class StatusComponent implements Component {
  readonly name = "status server";
  private server: StatusServer | undefined;
  private readonly aborted = new AbortController();

  constructor(
    private readonly runtime: AgentRuntime,
    private readonly options: StatusComponentOptions = {},
  ) {}

  /** The port listened on (after start). */
  get port(): number | undefined {
    return this.server?.port;
  }

  /** Every other component's readiness, in order. */
  private async othersReady(): Promise<string | undefined> {
    for (const c of this.runtime.components) {
      if (c === this || c.ready === undefined) continue;
      const why = await c.ready();
      if (why !== undefined) return `${c.name}: ${why}`;
    }
    return undefined;
  }

  async start(): Promise<void> {
    const runtime = this.runtime;
    const plan = runtime.plan;
    const pc = plan.proxyConfig;
    const env = plan.metadataOptions.envs;
    const envValue = (name: string) => env.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
    runtime.shutdownRequested.then(() => this.aborted.abort()).catch(() => {});
    const log = runtime.log.withScope("healthcheck");
    const port = pc.statusPort ?? 15020;
    this.server = await startStatusServer({
      host: this.options.host,
      port,
      adminPort: pc.proxyAdminPort ?? 15000,
      envoyPrometheusPort: plan.metadataOptions.envoyPrometheusPort,
      podIP: plan.instanceIPs[0],
      nodeType: plan.proxyType,
      kubeAppProbers: envValue(KUBE_APP_PROBERS_ENV),
      prometheusAnnotations: envValue(PROMETHEUS_ANNOTATIONS_ENV),
      noEnvoy: plan.disableEnvoy,
      agentReady: () => (runtime.envoy !== undefined && !runtime.envoy.isRunning ? "Envoy is not running" : undefined),
      probes: [
        () => this.othersReady(),
        () => {
          runtime.metrics.markReady();
          return undefined;
        },
      ],
      disableDrain: () => runtime.envoy?.skipDrain(),
      onQuit: (reason) => runtime.shutdown(reason),
      registry: runtime.metrics.registry,
      fetchDNS: () => runtime.ndsz?.(),
      signal: this.aborted.signal,
      log,
      envoyReadinessTimeoutMs: this.options.envoyReadinessTimeoutMs,
    }).catch((e: Error) => {
      throw new ComponentStartError(`status server on port ${port}: ${e.message}`);
    });
  }

  async stop(): Promise<void> {
    this.aborted.abort();
    await this.server?.close();
  }
}
