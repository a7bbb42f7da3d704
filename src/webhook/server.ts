/**
 * The webhook's HTTPS server: routing, the request life cycle, reloads and graceful shutdown.
 *
 *   HTTPS port   POST /inject, POST /inject/...  (Istio's `/inject/cluster/X/net/Y` form, `:ENV` pairs)
 *                GET /healthz, GET /readyz
 *   HTTP port    GET /metrics (Prometheus), separate so scrapers need no certificate
 *
 * A request to /inject goes: count it → check content-type and declared length (415, 413) → read
 * the body within the limit (413, 400) → JSON.parse → review() → 200 with the AdmissionReview.
 * Everything that throws is caught and answered; the process never exits because of a request.
 * On OpenShift (`platform`), the pod's Namespace is looked up (`namespaces`) before review(), which
 * stays synchronous; a failed lookup is logged and the pod is injected with UID/GID 1337.
 *
 * Malformed JSON is answered 200 with an AdmissionReview (admission.k8s.io/v1) whose response says
 * `allowed: false` and why, as Istio's webhook does: the API server then reports that message to the
 * user ("admission webhook ... denied the request: could not decode ...") rather than a bare HTTP
 * error. The uid cannot be echoed from a body that does not parse; the API server rejects the
 * answer's uid mismatch and applies the webhook's failurePolicy either way. Bodies that are not
 * JSON by content-type (415) or are empty (400) are refused at the HTTP level: no AdmissionReview
 * client sends them.
 */

import { readFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { review, type WebhookState } from "./admission.js";
import { ADMISSION_V1, reviewEnvelope } from "./admission-request.js";
import { BodyBudget, type Release } from "./body-budget.js";
import {
  type ConfigFileOptions,
  configFiles,
  configPaths,
  loadConfig,
  revisionMismatch,
  revisionMismatchMessage,
  type StateSettings,
  watchConfig,
} from "./config-watch.js";
import type { FileWatch } from "./file-watch.js";
import { isHealthPath, serveHealth } from "./health.js";
import {
  AbortedError,
  bodyReservation,
  checkHeaders,
  DEFAULT_LIMITS,
  LimitError,
  type Limits,
  readBody,
} from "./limits.js";
import { createLogger, type Logger } from "./logging.js";
import { createMetrics, metricsHandler, type ServerFailureReason, type WebhookMetrics } from "./metrics.js";
import { type NamespaceSource, staticNamespaces } from "./namespaces.js";
import type { NamespaceLike } from "./openshift.js";
import type { Outcome } from "./outcome.js";
import { type CheckedPair, checkPair, TlsError, type TlsFiles, type TlsPair, watchCertificate } from "./tls.js";
import { selfSignedCertificate } from "./tls-self-signed.js";

/** Istio's ports: the injection webhook on istiod's 15017, its metrics on 15014. */
export const DEFAULT_PORT = 15017;
export const DEFAULT_METRICS_PORT = 15014;

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

function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

/** The `request` of a parsed body that may be anything, when it is an object. */
function requestOf(body: unknown): Record<string, unknown> | undefined {
  const request = typeof body === "object" && body !== null ? (body as { request?: unknown }).request : undefined;
  return typeof request === "object" && request !== null ? (request as Record<string, unknown>) : undefined;
}

/** Who the review was about, for logs, from a body that may be anything. */
function requestIds(body: unknown): { uid?: string; namespace?: string } {
  const { uid, namespace } = requestOf(body) ?? {};
  return {
    ...(typeof uid === "string" ? { uid } : {}),
    ...(typeof namespace === "string" ? { namespace } : {}),
  };
}

/** The request's `operation` and `dryRun`, for the review's log line (absent when the body lacks them). */
function requestMode(body: unknown): { operation?: string; dryRun?: boolean } {
  const { operation, dryRun } = requestOf(body) ?? {};
  return {
    ...(typeof operation === "string" ? { operation } : {}),
    ...(typeof dryRun === "boolean" ? { dryRun } : {}),
  };
}

/** The namespace the review's pod is in: its own, else the request's (as review() defaults it). */
function podNamespace(body: unknown): string {
  const request = requestOf(body);
  if (request === undefined) return "";
  const { object, namespace } = request;
  const metadata =
    typeof object === "object" && object !== null ? (object as { metadata?: unknown }).metadata : undefined;
  const own =
    typeof metadata === "object" && metadata !== null ? (metadata as { namespace?: unknown }).namespace : undefined;
  if (typeof own === "string" && own !== "") return own;
  return typeof namespace === "string" ? namespace : "";
}

/** An error answer for a body that has no usable envelope. */
function errorReview(message: string, apiVersion = ADMISSION_V1, uid = ""): Record<string, unknown> {
  return reviewEnvelope(apiVersion, { uid, allowed: false, status: { code: 400, message } });
}

/** The apiVersion and uid to echo from a parsed body, when it has them. */
function envelopeOf(body: unknown): { apiVersion?: string; uid?: string } {
  if (typeof body !== "object" || body === null) return {};
  const apiVersion = (body as { apiVersion?: unknown }).apiVersion;
  return {
    ...(apiVersion === "admission.k8s.io/v1beta1" ? { apiVersion } : {}),
    ...requestIds(body),
  };
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
  let generatedCertificate: TlsPair | undefined;
  let pair: CheckedPair;
  if (options.tls === undefined) {
    generatedCertificate = selfSignedCertificate({
      hosts: options.selfSignedHosts ?? ["localhost", "127.0.0.1", "::1"],
    });
    pair = checkPair(generatedCertificate, "generated certificate");
  } else if (isTlsFiles(options.tls)) {
    const { certFile, keyFile } = options.tls;
    const read = (path: string, what: string) =>
      readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => {
        throw new TlsError(`cannot read the TLS ${what} ${path}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
      });
    pair = checkPair(
      { cert: await read(certFile, "certificate"), key: await read(keyFile, "key") },
      `${certFile} + ${keyFile}`,
    );
  } else {
    pair = checkPair(options.tls, "certificate");
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

  /** Writes a response, closing the connection when shutting down or when asked. */
  function send(res: ServerResponse, status: number, body: string, contentType: string, closeConnection = false): void {
    if (res.headersSent || res.writableEnded) return;
    const headers: Record<string, string | number> = {
      "content-type": contentType,
      "content-length": Buffer.byteLength(body),
    };
    if (closeConnection || shuttingDown) headers.connection = "close";
    res.writeHead(status, headers).end(body);
  }

  /** Refuses a request before review (415, 413, 400, 405), counts it, and drops an unread body. */
  function reject(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    reason: ServerFailureReason,
    message: string,
    started: bigint,
    bodyUnread: boolean,
  ): void {
    metrics.recordRejected(reason, seconds(started));
    logger.warn({ path: req.url, status, reason, remote: req.socket.remoteAddress }, message);
    send(res, status, `${message}\n`, "text/plain; charset=utf-8", bodyUnread);
    if (bodyUnread) {
      // Do not read (or let node:http drain) the rest of the body: close once the answer is out.
      res.once("finish", () => req.socket.destroySoon());
    }
  }

  async function serveInject(req: IncomingMessage, res: ServerResponse, path: string, started: bigint) {
    metrics.requests.inc();
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      reject(req, res, 405, "method_not_allowed", `method ${req.method} not allowed, use POST`, started, true);
      return;
    }
    let body: Buffer;
    let release: Release | undefined;
    try {
      checkHeaders(req, limits);
      release = await reserveBody(req);
      body = await readBody(req, limits);
    } catch (e) {
      release?.();
      if (e instanceof LimitError) {
        reject(req, res, e.status, e.reason, e.message, started, e.status !== 400);
      } else if (e instanceof AbortedError) {
        metrics.recordRejected("request_aborted", seconds(started));
        logger.warn({ path, remote: req.socket.remoteAddress }, e.message);
        req.socket.destroy();
      } else {
        throw e;
      }
      return;
    }
    try {
      await answerReview(res, path, started, body);
    } finally {
      release?.();
    }
  }

  /**
   * For a large body, waits for room in the budget (bodiesWaiting counts the waiters) and gives the
   * release; a small one is read at once (undefined). A client gone while waiting (or cut off by
   * the request timeout) leaves the queue at once: an AbortedError.
   */
  async function reserveBody(req: IncomingMessage): Promise<Release | undefined> {
    const bytes = bodyReservation(req, limits);
    if (bytes <= limits.smallBodyBytes) return undefined;
    const now = bodyBudget.tryReserve(bytes);
    if (now !== undefined) return now;
    // Gone already: its 'close' has fired, so it must not join the queue.
    if (req.destroyed) throw new AbortedError("client closed the connection before its request was read");
    const reservation = bodyBudget.reserve(bytes);
    const gone = () =>
      reservation.cancel(new AbortedError("client closed the connection while its request waited for memory"));
    metrics.bodiesWaiting.inc();
    req.once("close", gone);
    let release: Release;
    try {
      release = await reservation.granted;
    } finally {
      req.off("close", gone);
      metrics.bodiesWaiting.dec();
    }
    if (req.destroyed || req.readableAborted) {
      release();
      throw new AbortedError("client closed the connection while its request waited for memory");
    }
    return release;
  }

  /** Parses, reviews and answers one AdmissionReview body. */
  async function answerReview(res: ServerResponse, path: string, started: bigint, body: Buffer): Promise<void> {
    const current = state; // a reload during this request does not change it
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch (e) {
      const message = `could not decode the AdmissionReview: ${(e as Error).message}`;
      send(res, 200, JSON.stringify(errorReview(message)), "application/json");
      finishReview(path, { kind: "invalid", reason: message }, started, {}, "malformed_json");
      return;
    }
    const reviewState = await withNamespace(current, parsed);
    let result: ReturnType<typeof review>;
    try {
      result = review(parsed, path, reviewState);
    } catch (e) {
      // review() is total; if it still throws, that is our bug: answer, and log it loudly.
      const { apiVersion, uid } = envelopeOf(parsed);
      logger.error({ err: e, path, uid }, "internal error in review");
      send(
        res,
        200,
        JSON.stringify(errorReview(`internal error: ${(e as Error).message}`, apiVersion, uid)),
        "application/json",
      );
      metrics.recordRejected("internal_error", seconds(started));
      return;
    }
    send(res, 200, JSON.stringify(result.response), "application/json");
    // Istio's injector logs these as warnings (an invalid sidecar.istio.io/inject value, a bad selector).
    for (const warning of result.warnings ?? []) logger.warn({ pod: result.pod, path }, warning);
    finishReview(path, result.outcome, started, { ...requestIds(parsed), ...requestMode(parsed), pod: result.pod });
  }

  /** On OpenShift, the state with the request's Namespace looked up (review() itself is synchronous). */
  async function withNamespace(current: WebhookState, body: unknown): Promise<WebhookState> {
    if (current.platform !== "openshift" || namespaces === undefined) return current;
    const name = podNamespace(body);
    if (name === "") return current;
    let found: NamespaceLike | undefined;
    try {
      const lookup = await namespaces.get(name);
      found = lookup.namespace;
      if (lookup.namespace === undefined) {
        metrics.namespaceLookupFailures.inc();
        logger.warn({ namespace: name, reason: lookup.reason }, "namespace lookup failed; proxy UID/GID 1337");
      }
    } catch (e) {
      metrics.namespaceLookupFailures.inc();
      logger.warn({ namespace: name, err: e }, "namespace lookup failed; proxy UID/GID 1337");
    }
    return { ...current, namespace: (n) => (n === name ? found : undefined) };
  }

  function finishReview(
    path: string,
    outcome: Outcome,
    started: bigint,
    ids: { uid?: string; namespace?: string; pod?: string | undefined; operation?: string; dryRun?: boolean },
    rejected?: ServerFailureReason,
  ): void {
    const duration = seconds(started);
    if (rejected) metrics.recordRejected(rejected, duration);
    else metrics.recordOutcome(outcome, duration);
    const fields = {
      pod: ids.pod,
      namespace: ids.namespace,
      uid: ids.uid,
      operation: ids.operation,
      dryRun: ids.dryRun,
      path,
      outcome: outcome.kind,
      reason: outcome.kind === "injected" ? undefined : outcome.reason,
      durationMs: Math.round(duration * 1e6) / 1e3,
    };
    if (outcome.kind === "injected" || outcome.kind === "skipped") logger.info(fields, `pod ${outcome.kind}`);
    else logger.warn(fields, outcome.kind === "failed" ? "injection failed" : "invalid admission review");
  }

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
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
    const fail = (e: unknown) => {
      logger.error({ err: e, path: req.url }, "internal error");
      metrics.recordRejected("internal_error", seconds(started));
      try {
        send(res, 500, "internal error\n", "text/plain; charset=utf-8", true);
      } catch {
        res.destroy();
      }
    };
    try {
      const path = pathOf(req.url);
      if (path === undefined) {
        send(res, 400, "malformed percent-encoding in the request path\n", "text/plain; charset=utf-8");
      } else if (isHealthPath(path)) {
        serveHealth(path, req, res, readiness);
      } else if (path === "/inject" || path.startsWith("/inject/")) {
        serveInject(req, res, path, started).catch(fail);
      } else {
        send(res, 404, "not found\n", "text/plain; charset=utf-8");
      }
    } catch (e) {
      fail(e);
    }
  });

  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    const code = err.code ?? "";
    const status =
      code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? 408
        : code === "HPE_HEADER_OVERFLOW"
          ? 431
          : code === "ECONNRESET"
            ? 0
            : 400;
    if (status === 408) logger.warn({ remote: socket.remoteAddress }, "request timed out (slow client)");
    else logger.debug({ err, remote: socket.remoteAddress }, "client error");
    if (status !== 0 && socket.writable) {
      socket.end(
        `HTTP/1.1 ${status} ${status === 408 ? "Request Timeout" : status === 431 ? "Request Header Fields Too Large" : "Bad Request"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
    }
    socket.destroySoon();
  });
  server.on("tlsClientError", (err, socket) => {
    logger.debug({ err: err.message, remote: socket.remoteAddress }, "TLS handshake failed");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_PORT, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (e) => logger.error({ err: e }, "HTTPS server error"));
  const port = (server.address() as AddressInfo).port;

  // --- the metrics server ---
  let metricsServer: HttpServer | undefined;
  let metricsPort = -1;
  if (options.metricsPort !== null) {
    metricsServer = createHttpServer(metricsHandler(metrics.registry));
    const ms = metricsServer;
    try {
      await new Promise<void>((resolve, reject) => {
        ms.once("error", reject);
        ms.listen(options.metricsPort ?? DEFAULT_METRICS_PORT, options.metricsHost, () => {
          ms.off("error", reject);
          resolve();
        });
      });
    } catch (e) {
      server.close();
      server.closeAllConnections();
      throw e;
    }
    ms.on("error", (e) => logger.error({ err: e }, "metrics server error"));
    metricsPort = (ms.address() as AddressInfo).port;
  }

  // --- watching ---
  const watches: FileWatch[] = [];
  if (options.tls !== undefined && isTlsFiles(options.tls)) {
    const tlsFiles = options.tls;
    watches.push(
      watchCertificate(
        server,
        tlsFiles,
        pair,
        {
          onReload: (p) => {
            metrics.certReloads.inc();
            metrics.certExpiry.set(new Date(p.leaf.validTo).getTime() / 1000);
            logger.info(
              {
                certFile: tlsFiles.certFile,
                subject: p.leaf.subject,
                notAfter: p.leaf.validTo,
                fingerprint: p.leaf.fingerprint256,
              },
              "serving certificate reloaded",
            );
          },
          onError: (e) => {
            metrics.certReloadErrors.inc();
            logger.error({ err: e.message }, "new serving certificate refused; the previous one stays active");
          },
        },
        watchIntervalMs,
      ),
    );
  }
  if (configPaths(files).length > 0) {
    watches.push(
      watchConfig(
        files,
        loaded,
        settings,
        {
          onReload: (s) => {
            state = s;
            metrics.configReloads.inc();
            metrics.configLastReloadSuccess.setToCurrentTime();
            logger.info({ files: configPaths(files) }, "injector configuration reloaded");
            warnAboutConfig(s);
          },
          onError: (e) => {
            metrics.configReloadErrors.inc();
            logger.error({ err: e.message }, "new injector configuration refused; the last good one stays active");
          },
        },
        watchIntervalMs,
      ),
    );
  }

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

  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    closing ??= (async () => {
      shuttingDown = true;
      for (const w of watches) w.close();
      if (limits.drainDelayMs > 0) {
        // Lame duck: /readyz fails and every answer says `connection: close`, so clients move their
        // kept-alive connections elsewhere before the idle ones are closed under them.
        logger.info({ drainMs: limits.drainDelayMs }, "shutting down: draining kept-alive connections");
        await sleep(limits.drainDelayMs);
      }
      logger.info({ inFlight: inFlight.size }, "shutting down: no new connections, finishing requests in flight");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Keep-alive connections that finish a request are closed by the `connection: close` answer.
      const timer = setTimeout(() => {
        logger.warn({ inFlight: inFlight.size }, "shutdown timeout: closing remaining connections");
        server.closeAllConnections();
      }, limits.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      if (metricsServer) {
        const ms = metricsServer;
        await new Promise<void>((resolve) => {
          ms.close(() => resolve());
          ms.closeAllConnections();
        });
      }
      logger.info("stopped");
    })();
    return closing;
  }

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
