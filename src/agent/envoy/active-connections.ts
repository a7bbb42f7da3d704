/**
 * Counting Envoy's active downstream connections from its admin `/stats` text, as pilot-agent's
 * Agent.activeProxyConnections does to end the drain when EXIT_ON_ZERO_ACTIVE_CONNECTIONS is set:
 * the listeners' `downstream_cx_active` summed, leaving out the per-worker counters, Envoy's
 * internal listeners and the agent's own listeners (status, Prometheus, admin, secure metrics).
 */

export interface AgentPorts {
  statusPort: number;
  prometheusPort: number;
  secureMetricsPort?: number;
  secureMergedMetricsPort?: number;
}

/** The admin query whose body `activeConnections` reads. */
export const ACTIVE_CONNECTIONS_QUERY = "/stats?usedonly&filter=downstream_cx_active$";

/** The sum; -1 for an empty body (Envoy gave nothing to count). */
export function activeConnections(stats: string, ports: AgentPorts): number {
  if (stats === "") return -1;
  const skip = new Set([
    `listener.0.0.0.0_${ports.statusPort}.downstream_cx_active`,
    `listener.0.0.0.0_${ports.prometheusPort}.downstream_cx_active`,
    "listener.admin.downstream_cx_active",
    "listener.admin.main_thread.downstream_cx_active",
  ]);
  for (const port of [ports.secureMetricsPort, ports.secureMergedMetricsPort]) {
    if (port) skip.add(`listener.0.0.0.0_${port}.downstream_cx_active`);
  }
  let total = 0;
  for (const line of stats.split("\n")) {
    const parts = line.split(":");
    if (parts.length !== 2) continue;
    const name = (parts[0] as string).trim();
    if (!name.startsWith("listener.") || name.includes("worker_")) continue;
    if (name.startsWith("listener.envoy_internal_") || skip.has(name)) continue;
    const value = (parts[1] as string).trim();
    if (!/^[0-9]+$/.test(value)) continue;
    total += Number(value);
  }
  return total;
}
