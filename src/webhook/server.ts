/**
 * The webhook's HTTPS server: options, start-up (configuration, certificate, listeners) and routing.
 *
 *   HTTPS port   POST /inject, POST /inject/...  (Istio's `/inject/cluster/X/net/Y` form, `:ENV` pairs)
 *                GET /healthz, GET /readyz
 *   HTTP port    GET /metrics (Prometheus), separate so scrapers need no certificate
 *
 * The inject handler is inject-handler.ts, reloads reloads.ts, shutdown shutdown.ts. Everything that
 * throws is caught and answered; the process never exits because of a request. On OpenShift
 * (`platform`), the pod's Namespace is looked up (`namespaces`) before review(), which stays
 * synchronous; a failed lookup is logged and the pod is injected with UID/GID 1337.
 */

import { readFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { Duplex } from "node:stream";
import type { WebhookState } from "./admission.js";
import { BodyBudget } from "./body-budget.js";
import {
  type ConfigFileOptions,
  configFiles,
  configPaths,
  loadConfig,
  revisionMismatch,
  revisionMismatchMessage,
  type StateSettings,
} from "./config-watch.js";
import { manageConnections, refuseConnect } from "./connections.js";
import { DEFAULT_METRICS_PORT, DEFAULT_PORT } from "./defaults.js";
import { expectsContinue } from "./discard-body.js";
import { isHealthPath, serveHealth } from "./health.js";
import { createInjectHandler } from "./inject-handler.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import { listen } from "./listen.js";
import { createLogger, type Logger } from "./logging.js";
import { createMetrics, metricsHandler, type WebhookMetrics } from "./metrics.js";
import { type NamespaceSource, staticNamespaces } from "./namespaces.js";
import type { NamespaceLike } from "./openshift.js";
import { watchReloads } from "./reloads.js";
import { seconds, send, TEXT } from "./respond.js";
import { shutdownOf } from "./shutdown.js";
import { type CheckedPair, checkPair, TlsError, type TlsFiles, type TlsPair } from "./tls.js";
import { DEFAULT_TLS_POLICY, type TlsPolicy } from "./tls-policy.js";
import { selfSignedCertificate } from "./tls-self-signed.js";

export interface ServerOptions {
  /** HTTPS port (0: any free port). Default 15017. */
  port?: number;
  /** Address to listen on; default all interfaces. */
  host?: string;
  /** Plain-HTTP metrics port (0: any free port; null: no metrics listener). Default 15014. */
  metricsPort?: number | null;
  metricsHost?: string;
  /**
   * The serving certificate: files (watched and reloaded), or PEM texts (fixed), or undefined for a
   * generated self-signed certificate for `selfSignedHosts`.
   */
  tls?: TlsFiles | TlsPair;
  /** TLS versions and TLS 1.2 cipher suites accepted (default: Kubernetes' defaults, see tls-policy.ts). */
  tlsPolicy?: TlsPolicy;
  /** DNS names and IPs of the generated certificate. Default localhost, 127.0.0.1, ::1. */
  selfSignedHosts?: readonly string[];
  /** The configuration files; undefined or empty for the built-in default. */
  config?: ConfigFileOptions;
  /** Control-plane revision ("" for default). */
  revision?: string;
  nativeSidecars?: WebhookState["nativeSidecars"];
  kubeletMinorVersion?: number;
  compliancePolicy?: string;
  /** Istio's `PLATFORM`: "openshift" takes the proxy UID/GID from the pod's Namespace. */
  platform?: WebhookState["platform"];
  /**
   * Where Namespaces are found with `platform: "openshift"`: a fixed list (tests, the conformance
   * runner) or a source such as `inClusterNamespaces()`. Without it the proxy UID/GID stay 1337.
   */
  namespaces?: readonly NamespaceLike[] | NamespaceSource;
  /** What the templates' `env` function reads; default process.env. */
  env?: StateSettings["env"];
  limits?: Partial<Limits>;
  /** How often watched files are polled (ms); file-system events trigger earlier checks. Default 2000. */
  watchIntervalMs?: number;
  /** How often node:http checks for header/request timeouts (ms). Default 1000. */
  timeoutCheckIntervalMs?: number;
  logger?: Logger;
  /** prom-client's process and Node.js metrics (default true). */
  defaultMetrics?: boolean;
}

export interface RunningServer {
  /** The HTTPS port actually bound. */
  port: number;
  /** The metrics port actually bound (-1 without a metrics listener). */
  metricsPort: number;
  /** Stops accepting, finishes requests in flight (bounded by limits.shutdownTimeoutMs), stops watching. */
  close(): Promise<void>;
  /** Re-reads the watched certificate and config files now (tests, benchmarks); resolves when applied. */
  checkFiles(): Promise<void>;
  /** The generated certificate and key when no `tls` option was given (e.g. to trust it as a CA). */
  generatedCertificate?: TlsPair;
  metrics: WebhookMetrics;
  logger: Logger;
}

function isTlsFiles(tls: TlsFiles | TlsPair): tls is TlsFiles {
  return "certFile" in tls;
}

/**
 * The request path, percent-decoded as Go's `r.URL.Path` is (so `/inject/cluster/a%3Ab/...` names
 * cluster `a:b`); undefined when the escaping is malformed.
 */
function pathOf(url: string | undefined): string | undefined {
  const raw = url ?? "/";
  const q = raw.indexOf("?");
  try {
    return decodeURIComponent(q < 0 ? raw : raw.slice(0, q));
  } catch {
    return undefined;
  }
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger();
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const bodyBudget = new BodyBudget(limits.maxBufferedBytes);
  const metrics = createMetrics({ defaultMetrics: options.defaultMetrics ?? true });
  const watchIntervalMs = options.watchIntervalMs ?? 2000;

  // --- configuration: load it before listening; a bad one at startup is an error for the caller ---
  const settings: StateSettings = {
    revision: options.revision ?? "",
    nativeSidecars: options.nativeSidecars ?? "auto",
    ...(options.kubeletMinorVersion === undefined ? {} : { kubeletMinorVersion: options.kubeletMinorVersion }),
    ...(options.compliancePolicy === undefined ? {} : { compliancePolicy: options.compliancePolicy }),
    ...(options.platform === undefined ? {} : { platform: options.platform }),
    env: options.env ?? ((name) => process.env[name]),
  };
  const files = configFiles({ ...options.config, revision: options.revision });
  const loaded = await loadConfig(files, settings);
  let state: WebhookState = loaded.state;
  metrics.configLastReloadSuccess.setToCurrentTime();
  /**
   * Warns (once per loaded configuration) when it was made for another revision than the one
   * served, and about what loading accepted but is likely a mistake (unknown mesh config fields).
   */
  const warnAboutConfig = (s: WebhookState) => {
    const mismatch = revisionMismatch(s, settings.revision);
    if (mismatch !== undefined) logger.warn({ ...mismatch }, revisionMismatchMessage(mismatch));
    for (const warning of s.injector.warnings ?? []) logger.warn(warning);
  };
  warnAboutConfig(state);
  const namespaces: NamespaceSource | undefined =
    options.namespaces === undefined
      ? undefined
      : Array.isArray(options.namespaces)
        ? staticNamespaces(options.namespaces)
        : (options.namespaces as NamespaceSource);
  if (options.platform === "openshift" && namespaces === undefined) {
    logger.warn("platform openshift without a namespace source: proxy UID/GID stay 1337");
  }

  // --- certificate ---
  const tlsPolicy = options.tlsPolicy ?? DEFAULT_TLS_POLICY;
  let generatedCertificate: TlsPair | undefined;
  let pair: CheckedPair;
  if (options.tls === undefined) {
    generatedCertificate = selfSignedCertificate({
      hosts: options.selfSignedHosts ?? ["localhost", "127.0.0.1", "::1"],
    });
    pair = checkPair(generatedCertificate, "generated certificate", new Date(), tlsPolicy);
  } else if (isTlsFiles(options.tls)) {
    const { certFile, keyFile } = options.tls;
    const read = (path: string, what: string) =>
      readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => {
        throw new TlsError(`cannot read the TLS ${what} ${path}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
      });
    pair = checkPair(
      { cert: await read(certFile, "certificate"), key: await read(keyFile, "key") },
      `${certFile} + ${keyFile}`,
      new Date(),
      tlsPolicy,
    );
  } else {
    pair = checkPair(options.tls, "certificate", new Date(), tlsPolicy);
  }
  metrics.certExpiry.set(new Date(pair.leaf.validTo).getTime() / 1000);

  // --- the HTTPS server ---
  let shuttingDown = false;
  const inFlight = new Set<ServerResponse>();
  const server: HttpsServer = createHttpsServer({
    ...pair.context,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 1000,
    handshakeTimeout: limits.headersTimeoutMs,
  });

  // The listener opens only once a configuration is active and the TLS context exists, so /readyz
  // has one thing left to report: shutting down (then new traffic should go to another replica).
  const readiness = {
    notReadyReason: () => (shuttingDown ? "shutting down" : undefined),
  };
  const connections = manageConnections(server, { maxConnections: limits.maxConnections, logger, metrics });
  const serveInject = createInjectHandler({
    limits,
    logger,
    metrics,
    bodyBudget,
    state: () => state,
    namespaces,
    shuttingDown: () => shuttingDown,
  });

  /** Every request; also those sent with `Expect: 100-continue` ('checkContinue'): see discard-body.ts. */
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    inFlight.add(res);
    res.once("close", () => {
      inFlight.delete(res);
      logger.debug(
        { method: req.method, path: req.url, status: res.statusCode, durationMs: seconds(started) * 1e3 },
        "request",
      );
    });
    req.on("error", () => {}); // reported through readBody; never an uncaught 'error'
    res.on("error", (e) => logger.debug({ err: e }, "response write failed"));
    // A client waiting for `100 Continue` is not told to send a body the route will not read.
    const awaitingContinue = expectsContinue(req);
    const reply = (status: number, body: string, close = false) =>
      send(res, status, body, TEXT, close || shuttingDown || awaitingContinue);
    const fail = (e: unknown) => {
      logger.error({ err: e, path: req.url }, "internal error");
      metrics.recordRejected("internal_error", seconds(started));
      try {
        reply(500, "internal error\n", true);
      } catch {
        res.destroy();
      }
    };
    try {
      const path = pathOf(req.url);
      if (path === undefined) {
        reply(400, "malformed percent-encoding in the request path\n");
      } else if (isHealthPath(path)) {
        if (awaitingContinue) res.writeContinue();
        serveHealth(path, req, res, readiness);
      } else if (path === "/inject" || path.startsWith("/inject/")) {
        serveInject(req, res, path, started).catch(fail);
      } else {
        reply(404, "not found\n");
      }
    } catch (e) {
      fail(e);
    }
  };
  server.on("request", onRequest);
  server.on("checkContinue", onRequest);
  server.on("connect", (req: IncomingMessage, socket: Duplex) => refuseConnect(req, socket, logger));

  const port = await listen(server, options.port ?? DEFAULT_PORT, options.host);
  server.on("error", (e) => logger.error({ err: e }, "HTTPS server error"));

  // --- the metrics server ---
  let metricsServer: HttpServer | undefined;
  let metricsPort = -1;
  if (options.metricsPort !== null) {
    metricsServer = createHttpServer(metricsHandler(metrics.registry));
    try {
      metricsPort = await listen(metricsServer, options.metricsPort ?? DEFAULT_METRICS_PORT, options.metricsHost);
    } catch (e) {
      server.close();
      server.closeAllConnections();
      throw e;
    }
    metricsServer.on("error", (e) => logger.error({ err: e }, "metrics server error"));
  }

  // --- watching ---
  const watches = watchReloads({
    server,
    tlsFiles: options.tls !== undefined && isTlsFiles(options.tls) ? options.tls : undefined,
    pair,
    files,
    loaded,
    settings,
    metrics,
    logger,
    intervalMs: watchIntervalMs,
    tlsPolicy,
    onConfig: (s) => {
      state = s;
      warnAboutConfig(s);
    },
  });

  logger.info(
    {
      port,
      metricsPort,
      revision: settings.revision,
      config: configPaths(files).length > 0 ? files : "built-in",
      certificate:
        options.tls === undefined ? "generated self-signed" : isTlsFiles(options.tls) ? options.tls : "in memory",
    },
    "sidecar injector webhook listening",
  );

  const close = shutdownOf({
    server,
    metricsServer,
    connections,
    watches,
    inFlight,
    limits,
    logger,
    beginShutdown: () => {
      shuttingDown = true;
    },
  });

  return {
    port,
    metricsPort,
    close,
    checkFiles: async () => {
      await Promise.all(watches.map((w) => w.check()));
    },
    ...(generatedCertificate ? { generatedCertificate } : {}),
    metrics,
    logger,
  };
}
