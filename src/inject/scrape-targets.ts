/**
 * `prometheus.istio.io/scrape-targets`: several app metrics endpoints for one pod, merged by the
 * agent with Envoy's and its own (`"8080:/metrics,9100:/stats"`), and the ports the sidecar owns,
 * which no target may name. Shared by the injector and the agent, as Istio's
 * pilot/cmd/pilot-agent/status (server.go) serves both.
 */

export interface ScrapeTarget {
  port: string;
  path: string;
}

/** Ports the sidecar itself listens on, by their text, with why (Istio: status.istioReservedPorts). */
const RESERVED_PORTS: Readonly<Record<string, string>> = {
  "15000": "Envoy admin",
  "15001": "outbound traffic capture",
  "15004": "pilot debug",
  "15006": "inbound traffic capture",
  "15008": "HBONE tunnel",
  "15020": "pilot-agent status / merged Prometheus",
  "15021": "Envoy health",
  "15053": "DNS proxy",
  "15090": "Envoy Prometheus (already merged)",
};

/** Why a port (its text, compared as is) is Istio's own; "" when it is free for the app. Istio: status.IstioReservedPortReason. */
export function istioReservedPortReason(port: string): string {
  return Object.hasOwn(RESERVED_PORTS, port) ? (RESERVED_PORTS[port] as string) : "";
}

/**
 * A comma list of `port[:path]`: entries trimmed, empty entries skipped, an empty path is
 * `/metrics`; the port is not checked here. An entry with an empty port is an error.
 * Istio: status.ParseScrapeTargets.
 */
export function parseScrapeTargets(raw: string): ScrapeTarget[] {
  const targets: ScrapeTarget[] = [];
  for (const part of raw.split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    const port = (colon === -1 ? entry : entry.slice(0, colon)).trim();
    if (port === "") throw new Error(`empty port in scrape target ${JSON.stringify(entry)}`);
    const path = colon === -1 ? "" : entry.slice(colon + 1).trim();
    targets.push({ port, path: path === "" ? "/metrics" : path });
  }
  return targets;
}
