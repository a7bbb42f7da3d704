/**
 * The agent's own metrics, with pilot-agent's names: `istio_agent_startup_duration_seconds` (from
 * the process start to the first time the agent reported ready) and the process metrics under the
 * `istio_agent_` prefix (`istio_agent_process_cpu_seconds_total`, resident memory, open files...),
 * in a registry of their own that the status server merges into `/stats/prometheus`.
 */
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";

export interface AgentMetrics {
  registry: Registry;
  /** Records the first readiness (later calls do nothing). */
  markReady(): void;
}

export function agentMetrics(startedAt: number = performance.timeOrigin): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "istio_agent_" });
  const startup = new Gauge({
    name: "istio_agent_startup_duration_seconds",
    help: "The time from the process starting to being marked ready.",
    registers: [registry],
  });
  let marked = false;
  return {
    registry,
    markReady() {
      if (marked) return;
      marked = true;
      startup.set((Date.now() - startedAt) / 1000);
    },
  };
}
