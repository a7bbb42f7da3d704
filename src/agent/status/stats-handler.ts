/**
 * `/stats/prometheus` (and `/metrics`): scrapes Envoy and the application targets concurrently, counts the
 * failures, then answers the agent's metrics, Envoy's page copied through as it arrives, and the
 * application's page(s) merged (stats-merge.ts). A failed scrape is skipped, never an error.
 */
import type * as http from "node:http";
import type { Registry } from "prom-client";
import type { StatusLogger } from "./logger.js";
import type { ScrapeMetrics } from "./metrics.js";
import { APP_ACCEPTED, ENVOY_ACCEPTED, filterAccept } from "./metrics-format.js";
import type { BodyPart, Reply } from "./reply.js";
import { openScrape, scrapeBody, scrapeHeaders, scrapeTimeoutMs } from "./scrape.js";
import type { ScrapeConfig } from "./scrape-config.js";
import { agentPageText, mergeMetricsPage, type TargetScrape } from "./stats-merge.js";

export interface StatsHandlerOptions {
  registry: Registry;
  metrics: ScrapeMetrics;
  /** Envoy's Prometheus port; undefined = no Envoy. */
  envoyPort?: number;
  scrapeConfig?: ScrapeConfig;
  maxAppBodyBytes: number;
  log: StatusLogger;
}

export function statsHandler(o: StatsHandlerOptions): (req: http.IncomingMessage, query: string) => Promise<Reply> {
  return async (req, query) => {
    o.metrics.scrapes.inc();
    const timeoutMs = scrapeTimeoutMs(req);
    const accept = req.headers.accept;
    const envoyScrape =
      o.envoyPort === undefined
        ? undefined
        : openScrape(
            o.envoyPort,
            `/stats/prometheus${query ? `?${query}` : ""}`,
            scrapeHeaders(req, filterAccept(accept, ENVOY_ACCEPTED)),
            timeoutMs,
          );
    const appHeaders = scrapeHeaders(req, filterAccept(accept, APP_ACCEPTED));
    // One target is scraped by the legacy fields (which a targets list does not override), as Istio's handleStats.
    const cfg = o.scrapeConfig;
    const scraped = cfg && cfg.targets.length <= 1 ? [{ port: cfg.port, path: cfg.path }] : cfg?.targets;
    const targetScrapes = scraped?.map((t) => scrapeBody(t.port, t.path, appHeaders, timeoutMs, o.maxAppBodyBytes));
    const envoy = envoyScrape ? await envoyScrape : undefined;
    const envoyFailed = (error: string) => {
      o.log.error(`failed scraping envoy metrics: ${error}`);
      o.metrics.failures.inc({ type: "envoy" });
    };
    if (envoy && !envoy.ok) envoyFailed(envoy.error);
    let targets: TargetScrape[] | undefined;
    if (targetScrapes) {
      targets = [];
      for (const r of await Promise.all(targetScrapes)) {
        if (r.ok) {
          targets.push(r);
        } else {
          o.log.error(`failed scraping application metrics: ${r.error}`);
          o.metrics.failures.inc({ type: "application" });
          targets.push({ ok: false });
        }
      }
    }
    let agent: Buffer;
    try {
      agent = Buffer.from(agentPageText(await o.registry.metrics()));
    } catch (e) {
      o.log.error(`failed scraping and writing agent metrics: ${(e as Error).message}`);
      o.metrics.failures.inc({ type: "agent" });
      agent = Buffer.alloc(0);
    }
    const page = mergeMetricsPage({ agent, targets });
    // The merged chunks start with the agent's part; Envoy's page goes right after it.
    const body: BodyPart[] = [...page.chunks];
    if (envoy?.ok) {
      body.splice(1, 0, { stream: envoy.stream, onError: (e) => envoyFailed(`copying the page: ${e.message}`) });
    }
    return { status: 200, headers: { "Content-Type": page.contentType }, body };
  };
}
