/**
 * The DNS proxy's Prometheus metrics, under pilot-agent's names (`pkg/dns/client/monitoring.go`):
 * requests, forwarded requests, forwarded requests no upstream answered, and the upstream time; plus
 * our count of malformed messages by what was done with them. Registered on the registry the agent
 * exposes; without one, nothing is recorded (the proxy's `stats()` still counts).
 */
import { Counter, Histogram, type Registry } from "prom-client";

export interface DnsMetrics {
  request(): void;
  upstreamRequest(): void;
  upstreamFailure(): void;
  upstreamSeconds(seconds: number): void;
  malformed(action: "dropped" | "rejected"): void;
}

const NONE: DnsMetrics = {
  request() {},
  upstreamRequest() {},
  upstreamFailure() {},
  upstreamSeconds() {},
  malformed() {},
};

export function dnsMetrics(registry: Registry | undefined): DnsMetrics {
  if (!registry) return NONE;
  const registers = [registry];
  const requests = new Counter({ name: "dns_requests_total", help: "Total number of DNS requests.", registers });
  const upstream = new Counter({
    name: "dns_upstream_requests_total",
    help: "Total number of DNS requests forwarded to upstream.",
    registers,
  });
  const failures = new Counter({
    name: "dns_upstream_failures_total",
    help: "Total number of DNS requests forwarded to upstream that no upstream answered.",
    registers,
  });
  const duration = new Histogram({
    name: "dns_upstream_request_duration_seconds",
    help: "Total time in seconds Istio takes to get DNS response from upstream.",
    buckets: [0.001, 0.005, 0.01, 0.1, 1, 5],
    registers,
  });
  const malformed = new Counter({
    name: "dns_malformed_messages_total",
    help: "DNS messages the proxy could not handle, by action: dropped, or rejected with FORMERR/NOTIMP.",
    labelNames: ["action"],
    registers,
  });
  return {
    request: () => requests.inc(),
    upstreamRequest: () => upstream.inc(),
    upstreamFailure: () => failures.inc(),
    upstreamSeconds: (s) => duration.observe(s),
    malformed: (action) => malformed.inc({ action }),
  };
}
