/**
 * `prometheus.istio.io/scrape-targets`: several app metrics endpoints for one pod, merged by the
 * agent with Envoy's and its own (`"8080:/metrics,9100:/stats"`). Each entry is `port:path` or a
 * bare `port`; a missing path is `/metrics`, as with `prometheus.io/path`. Targets are checked at
 * injection: a port the agent serves or one Istio reserves for the proxy cannot be an app endpoint.
 */

export interface ScrapeTarget {
  port: string;
  path: string;
}

/** Ports the sidecar itself listens on, with what for (the agent refuses to scrape them). */
const RESERVED_PORTS: ReadonlyMap<number, string> = new Map([
  [15000, "Envoy admin"],
  [15001, "Envoy outbound"],
  [15004, "debug"],
  [15006, "Envoy inbound"],
  [15008, "HBONE tunnel"],
  [15020, "merged Prometheus telemetry"],
  [15021, "health checks"],
  [15053, "DNS proxy"],
  [15090, "Envoy Prometheus telemetry"],
]);

/** Why a port is reserved for Istio, or undefined when it is free for the app. */
export function istioReservedPortReason(port: number): string | undefined {
  return RESERVED_PORTS.get(port);
}

export class ScrapeTargetError extends Error {}

/** The port as a number in 1..65535 (decimal digits only), else undefined. */
function portNumber(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/** Parses the annotation; empty entries (doubled or trailing commas, blanks) are skipped. */
export function parseScrapeTargets(value: string): ScrapeTarget[] {
  const targets: ScrapeTarget[] = [];
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    const port = (colon === -1 ? entry : entry.slice(0, colon)).trim();
    const path = colon === -1 ? "" : entry.slice(colon + 1).trim();
    if (portNumber(port) === undefined) {
      throw new ScrapeTargetError(
        `invalid annotation prometheus.istio.io/scrape-targets: ${JSON.stringify(entry)}: want port:path with a port in 1-65535`,
      );
    }
    targets.push({ port, path: path === "" ? "/metrics" : path });
  }
  return targets;
}

/** Refuses an app metrics port that is the agent's own (a scrape loop) or reserved for the proxy. */
export function checkScrapePort(port: string, statusPort: number, source: string): void {
  const n = portNumber(port);
  if (n === undefined) return;
  if (n === statusPort) {
    throw new ScrapeTargetError(
      `invalid prometheus scrape configuration: ${source} port ${port} is the agent's status port, which would scrape itself`,
    );
  }
  const reason = istioReservedPortReason(n);
  if (reason !== undefined) {
    throw new ScrapeTargetError(
      `invalid prometheus scrape configuration: ${source} port ${port} is reserved for Istio (${reason}) and cannot be scraped`,
    );
  }
}
