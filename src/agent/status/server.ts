/**
 * The agent's status server (statusPort, 15020), as pilot-agent's: `/healthz/ready` (Envoy readiness plus
 * the agent's own checks), the probe proxy `/app-health/…` and `/app-lifecycle/…`, the merged metrics page
 * `/stats/prometheus` (also `/metrics`), `/quitquitquit` and `/drain` (loopback only), `/debug/pprof/…`
 * (with profiling on) and `/debug/ndsz`. Routing follows Go's ServeMux: unclean paths are redirected,
 * unknown paths are 404.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { isIP } from "node:net";
import { posix } from "node:path";
import type { Registry } from "prom-client";
import { CancelList, type Cancellation } from "../probe/cancel.js";
import { ProbeClient } from "../probe/http-client.js";
import { runAppProbe } from "./app-probe.js";
import { EnvoyReadinessProbe } from "./envoy-probe.js";
import { type StatusLogger, silentLogger } from "./logger.js";
import { newAgentRegistry, scrapeMetrics } from "./metrics.js";
import { handlePprof } from "./pprof.js";
import { type KubeAppProbers, parseKubeAppProbers } from "./probers.js";
import { type Reply, sendReply, textError } from "./reply.js";
import { normalizeScrapeConfig, type ScrapeConfig } from "./scrape-config.js";
import { statsHandler } from "./stats-handler.js";

export type { StatusLogger } from "./logger.js";

export const DEFAULT_STATUS_PORT = 15020;
/** Per-target cap on an application's metrics page. */
export const DEFAULT_MAX_APP_BODY_BYTES = 10 * 1024 * 1024;

/** A readiness check of the agent's own: undefined = ready, else the reason. */
export type ReadinessCheck = () => string | undefined | Promise<string | undefined>;

export interface StatusServerOptions {
  /** Listen address; default "::" (every interface, as pilot-agent's ":port"). */
  host?: string;
  /** statusPort; 0 = an ephemeral port (see StatusServer.port). */
  port: number;
  /** Envoy's admin port (proxyAdminPort, 15000). */
  adminPort: number;
  /** Envoy's Prometheus port (15090). */
  envoyPrometheusPort?: number;
  /** INSTANCE_IP: where the probe proxy connects ("" = this host). */
  podIP?: string;
  /** An IPv6-only pod: Envoy admin on ::1, probes from ::6. */
  ipv6?: boolean;
  /** The proxy type; the application's metrics are merged only for sidecars. */
  nodeType?: string;
  /** ISTIO_KUBE_APP_PROBERS: its text (as in the env) or already parsed. */
  kubeAppProbers?: string | KubeAppProbers;
  /** ISTIO_PROMETHEUS_ANNOTATIONS: its text (undefined = unset) or an already normalised config. */
  prometheusAnnotations?: string | ScrapeConfig;
  /** No Envoy runs (proxyless gRPC): no Envoy readiness, no Envoy metrics. */
  noEnvoy?: boolean;
  /** The agent's own readiness, asked after Envoy's. */
  agentReady?: () => string | undefined;
  /** More readiness checks, asked in order after agentReady. */
  probes?: ReadinessCheck[];
  /** /quitquitquit was called: the agent should exit without draining. */
  onQuit?: (reason: string) => void;
  /** Called by /quitquitquit before onQuit: the exit must skip the graceful drain. */
  disableDrain?: () => void;
  /** POST /drain was called. */
  onDrain?: () => void;
  /** Registry holding the agent's metrics (istio_agent_*); default: a new one with process metrics. */
  registry?: Registry;
  /** Serve /debug/pprof/… (loopback only). */
  enableProfiling?: boolean;
  /** /debug/ndsz: the DNS proxy's name table (undefined = none). */
  fetchDNS?: () => unknown;
  /** Aborted when the agent is terminating: readiness then fails. */
  signal?: AbortSignal;
  log?: StatusLogger;
  /** METRICS_LOCALHOST_ACCESS_ONLY: the metrics page only for loopback clients. */
  metricsLocalhostOnly?: boolean;
  /** REWRITE_PROBE_LEGACY_LOCALHOST_DESTINATION: probe "localhost" instead of the pod IP. */
  legacyLocalhostProbeDestination?: boolean;
  /** ISTIO_ENABLE_HTTP2_PROBING (default true): offer HTTP/2 to HTTPS applications. */
  http2Probing?: boolean;
  /** ENABLE_PROBE_KEEPALIVE_CONNECTIONS (default false): HTTP(S) probes reuse their prober's connection. */
  probeKeepalive?: boolean;
  /** PILOT_AGENT_MERGE_ENVOY_STATS (default true): Envoy's metrics are part of the merged page. */
  mergeEnvoyStats?: boolean;
  /**
   * Test hooks that are not configuration in pilot-agent either: the source address of probe
   * connections (default 127.0.0.6, or ::6 for IPv6 pods), the per-target cap on application metrics,
   * and the client address every request is judged by (Istio's tests forge RemoteAddr; "" = none).
   */
  upstreamLocalAddress?: string;
  maxAppBodyBytes?: number;
  remoteAddressOverride?: string;
}

export interface StatusServer {
  /** The port listened on (the ephemeral one when options.port was 0). */
  port: number;
  /** The Envoy readiness probe (undefined with noEnvoy). */
  envoyProbe?: EnvoyReadinessProbe;
  /** The first readiness problem, or undefined when ready (what /healthz/ready answers). */
  isReady(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Whether an address (as Node reports it) is a loopback address. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(a) === 4) return a.startsWith("127.");
  return a === "::1";
}

/** A header's first value, from the raw list (as Node keeps the first Host), without building req.headers. */
function firstHeader(rawHeaders: readonly string[], lowerName: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === lowerName.length && rawHeaders[i].toLowerCase() === lowerName)
      return rawHeaders[i + 1];
  }
  return undefined;
}

const NOT_FOUND = textError(404, "404 page not found");
const LOCALHOST_ONLY = textError(403, "Only requests from localhost are allowed");

/** A path with an empty, "." or ".." element, which cleaning would change. */
const UNCLEAN = /\/\/|\/\.\.?(?:\/|$)/;

/** Go's ServeMux path cleaning: the cleaned path, keeping a trailing slash. */
function cleanPath(p: string): string {
  if (p.startsWith("/") && !UNCLEAN.test(p)) return p;
  if (p === "") return "/";
  const abs = p.startsWith("/") ? p : `/${p}`;
  let out = posix.normalize(abs);
  if (out.length > 1 && out.endsWith("/") && !abs.endsWith("/")) out = out.slice(0, -1);
  if (abs.endsWith("/") && !out.endsWith("/")) out += "/";
  return out;
}

function splitUrl(raw: string): { path: string; query: string } {
  const q = raw.indexOf("?");
  const rawPath = q < 0 ? raw : raw.slice(0, q);
  let path = rawPath;
  if (rawPath.includes("%")) {
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      // keep the raw text
    }
  }
  return { path, query: q < 0 ? "" : raw.slice(q + 1) };
}

export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const log = options.log ?? silentLogger;
  const probers =
    typeof options.kubeAppProbers === "string" || options.kubeAppProbers === undefined
      ? parseKubeAppProbers(options.kubeAppProbers ?? "")
      : options.kubeAppProbers;
  let statusPort = options.port;
  const scrapeConfig =
    options.nodeType === "sidecar"
      ? typeof options.prometheusAnnotations === "object"
        ? options.prometheusAnnotations
        : normalizeScrapeConfig(options.prometheusAnnotations, options.port)
      : undefined;

  // An IPv6 pod IP (not link-local) makes the agent use IPv6 loopback, as in a dual-stack pod.
  const podIP = options.podIP ?? "";
  const v6 = options.ipv6 === true || (isIP(podIP) === 6 && !/^fe[89ab]/i.test(podIP));
  const localhost = v6 ? "::1" : "127.0.0.1";
  const upstreamLocalAddress = options.upstreamLocalAddress ?? (v6 ? "::6" : "127.0.0.6");
  const registry = options.registry ?? newAgentRegistry();
  const envoyProbe = options.noEnvoy
    ? undefined
    : new EnvoyReadinessProbe({
        host: localhost,
        adminPort: options.adminPort,
        signal: options.signal,
      });
  let lastReady = false;

  async function isReady(): Promise<string | undefined> {
    if (envoyProbe) {
      const problem = await envoyProbe.check();
      if (problem !== undefined) return problem;
    }
    const own = options.agentReady?.();
    if (own !== undefined) return own;
    for (const probe of options.probes ?? []) {
      const problem = await probe();
      if (problem !== undefined) return problem;
    }
    return undefined;
  }

  async function handleReady(): Promise<Reply> {
    const problem = await isReady();
    if (problem !== undefined) {
      log.warn(`Envoy proxy is NOT ready: ${problem}`);
      lastReady = false;
      return { status: 503 };
    }
    if (!lastReady) log.info("Envoy proxy is ready");
    lastReady = true;
    return { status: 200 };
  }

  const handleStats = statsHandler({
    registry,
    metrics: scrapeMetrics(registry),
    envoyPort:
      options.noEnvoy || options.mergeEnvoyStats === false ? undefined : (options.envoyPrometheusPort ?? 15090),
    scrapeConfig,
    maxAppBodyBytes: options.maxAppBodyBytes ?? DEFAULT_MAX_APP_BODY_BYTES,
    log,
  });

  // Istio's appProbeClient: one client per HTTP prober, made at start, its connections kept when asked.
  const probeClients = new Map<string, ProbeClient>();
  for (const [path, prober] of probers) {
    if (!prober.httpGet) continue;
    probeClients.set(
      path,
      new ProbeClient({
        localAddress: upstreamLocalAddress,
        keepAlive: options.probeKeepalive === true,
        http2: options.http2Probing !== false,
      }),
    );
  }

  async function handleAppProbe(req: http.IncomingMessage, path: string, cancel: Cancellation): Promise<Reply> {
    const prober = probers.get(path);
    if (!prober) {
      log.error(`Prober does not exists url ${path}`);
      return { status: 400, body: `app prober config does not exists for ${path}` };
    }
    const answer = await runAppProbe(
      prober,
      { host: firstHeader(req.rawHeaders, "host") ?? "", rawHeaders: req.rawHeaders, cancel },
      {
        destination: options.legacyLocalhostProbeDestination ? "localhost" : podIP,
        localAddress: upstreamLocalAddress,
        statusPort,
        http2: options.http2Probing !== false,
        client: probeClients.get(path),
      },
    );
    if (answer.error) log.error(`${answer.error}, original URL path = ${path}`);
    return { status: answer.status, body: answer.body };
  }

  function adminPost(req: http.IncomingMessage, remote: string | undefined, then: () => void): Reply {
    if (!isLoopback(remote)) return LOCALHOST_ONLY;
    if (req.method !== "POST") return textError(405, "Method Not Allowed");
    setImmediate(then);
    return { status: 200, body: "OK" };
  }

  async function route(req: http.IncomingMessage, gone: Cancellation): Promise<Reply> {
    const { path, query } = splitUrl(req.url ?? "/");
    const clean = cleanPath(path);
    if (clean !== path && req.method !== "CONNECT") {
      const location = query ? `${clean}?${query}` : clean;
      return {
        status: 301,
        headers: { Location: location, "Content-Type": "text/html; charset=utf-8" },
        body: req.method === "GET" ? `<a href="${location}">Moved Permanently</a>.\n\n` : "",
      };
    }
    // The client's address is asked of the socket (a system call) only by the routes that judge it.
    const remote = () => options.remoteAddressOverride ?? req.socket.remoteAddress;
    switch (path) {
      case "/healthz/ready":
        return handleReady();
      case "/metrics":
      case "/stats/prometheus":
        if (options.metricsLocalhostOnly && !isLoopback(remote())) return LOCALHOST_ONLY;
        return handleStats(req, query);
      case "/quitquitquit":
        return adminPost(req, remote(), () => {
          log.info("handling /quitquitquit, notifying pilot-agent to exit");
          options.disableDrain?.();
          options.onQuit?.("/quitquitquit called");
        });
      case "/drain":
        return adminPost(req, remote(), () => {
          log.info("handling /drain, starting drain");
          options.onDrain?.();
        });
      case "/debug/ndsz": {
        if (!isLoopback(remote())) return LOCALHOST_ONLY;
        const table = options.fetchDNS?.();
        if (table === undefined || table === null) return { status: 404, body: "{}" };
        return { status: 200, headers: { "Content-Type": "application/json" }, body: JSON.stringify(table) };
      }
    }
    if (path.startsWith("/app-health/") || path.startsWith("/app-lifecycle/")) return handleAppProbe(req, path, gone);
    if (options.enableProfiling && path.startsWith("/debug/pprof/")) {
      if (!isLoopback(remote())) return LOCALHOST_ONLY;
      return handlePprof(path.slice("/debug/pprof/".length), new URLSearchParams(query));
    }
    const subtrees = ["/app-health", "/app-lifecycle", ...(options.enableProfiling ? ["/debug/pprof"] : [])];
    if (subtrees.includes(path)) {
      return { status: 301, headers: { Location: `${path}/${query ? `?${query}` : ""}` }, body: "" };
    }
    return NOT_FOUND;
  }

  const server = http.createServer((req, res) => {
    // The client leaving before its answer stops the work done for it.
    const gone = new CancelList();
    res.once("close", () => {
      if (!res.writableFinished) gone.cancel();
    });
    route(req, gone)
      .then((reply) => sendReply(req, res, reply))
      .catch((e: Error) => {
        log.error(`status server: ${req.method} ${req.url}: ${e.message}`);
        if (!res.headersSent) sendReply(req, res, textError(500, "internal error")).catch(() => res.destroy());
        else res.destroy();
      });
  });
  server.on("clientError", (_e, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: options.host ?? "::", port: options.port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  statusPort = (server.address() as AddressInfo).port;
  log.info(`Opening status port ${statusPort}`);

  return {
    port: statusPort,
    envoyProbe,
    isReady,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const c of probeClients.values()) c.close();
      }),
  };
}
