/** The agent's own metrics on the merged page, with pilot-agent's names (istio_agent_*). */
import { Counter, collectDefaultMetrics, Registry } from "prom-client";

export const AGENT_METRIC_PREFIX = "istio_agent_";

export type ScrapeFailureType = "envoy" | "application" | "agent";

export interface ScrapeMetrics {
  scrapes: Counter<string>;
  failures: Counter<"type">;
}

/** A registry with the process metrics under the agent's prefix, as pilot-agent exports its Go runtime's. */
export function newAgentRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: AGENT_METRIC_PREFIX });
  return registry;
}

function existing<T>(registry: Registry, name: string): T | undefined {
  return registry.getSingleMetric(name) as T | undefined;
}

/** The scrape counters, registered once per registry. */
export function scrapeMetrics(registry: Registry): ScrapeMetrics {
  const scrapesName = `${AGENT_METRIC_PREFIX}scrapes_total`;
  const failuresName = `${AGENT_METRIC_PREFIX}scrape_failures_total`;
  const scrapes =
    existing<Counter<string>>(registry, scrapesName) ??
    new Counter({ name: scrapesName, help: "The total number of scrapes.", registers: [registry] });
  const failures =
    existing<Counter<"type">>(registry, failuresName) ??
    new Counter({
      name: failuresName,
      help: "The total number of failed scrapes.",
      labelNames: ["type"],
      registers: [registry],
    });
  return { scrapes, failures };
}
