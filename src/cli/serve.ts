/**
 * `meshinject serve`: the sidecar-injection admission webhook (src/webhook/server.ts) as a process:
 * flags to options, SIGTERM/SIGINT to a graceful shutdown (exit 0), a second signal to exit now.
 */

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { readYaml } from "../go/yaml/read.js";
import { splitYamlStream } from "../kube/stream.js";
import type { WebhookState } from "../webhook/admission.js";
import { DEFAULT_METRICS_PORT, DEFAULT_PORT, isLogLevel, LOG_LEVELS, WORKER_ENV } from "../webhook/defaults.js";
import { warnAboutIstiodWebhooks } from "../webhook/istiod-check.js";
import type { Logger } from "../webhook/logging.js";
import { inClusterNamespaces } from "../webhook/namespaces.js";
import type { NamespaceLike } from "../webhook/openshift.js";
import type { ServerOptions, startServer } from "../webhook/server.js";
import {
  DEFAULT_CIPHER_SUITES,
  parseCipherSuites,
  parseTlsMinVersion,
  type TlsPolicy,
  TlsPolicyError,
} from "../webhook/tls-policy.js";
import type { CliIo } from "./io.js";
import { type CurlTarget, curlCommand, curlTarget } from "./serve-hint.js";
import { DEFAULT_NAMESPACE, DEFAULT_SERVICE, serviceFor } from "./service-defaults.js";

export interface ServeCliOptions {
  port: string;
  host?: string;
  metricsPort: string;
  metricsHost?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  certDir?: string;
  configDir?: string;
  injectConfigFile?: string;
  valuesFile?: string;
  meshConfigFile?: string;
  revision: string;
  nativeSidecars: string;
  platform?: string;
  namespaceSource?: string;
  service?: string;
  namespace: string;
  logLevel: string;
  watchInterval: string;
  shutdownTimeout: string;
  shutdownDelay: string;
  maxBufferedBytes: string;
  maxConnections: string;
  tlsCipherSuites?: string;
  tlsMinVersion: string;
  /** false (--no-istiod-check): skip the start-up look for istiod's injection webhook. */
  istiodCheck?: boolean;
  /** Worker processes (undefined: the CPU count the container is given). */
  workers?: string;
}

/** An error for the user (exit code 1, one line). */
export class ServeError extends Error {
  override name = "ServeError";
}

function integer(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new ServeError(`${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function nativeSidecars(value: string): WebhookState["nativeSidecars"] {
  if (value === "on" || value === "off" || value === "auto") return value;
  throw new ServeError(`--native-sidecars must be on, off or auto, got ${JSON.stringify(value)}`);
}

function platform(value: string | undefined): WebhookState["platform"] {
  if (value === undefined || value === "") return undefined;
  if (value === "openshift") return value;
  throw new ServeError(`--platform must be openshift (or empty), got ${JSON.stringify(value)}`);
}

/** Namespaces from a file: one Namespace, a List of them, or a YAML stream of either. */
export async function readNamespacesFile(file: string): Promise<NamespaceLike[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new ServeError(`--namespace-source: cannot read ${file}: ${(e as Error).message}`);
  }
  const found: NamespaceLike[] = [];
  const visit = (obj: unknown, where: string): void => {
    if (obj === null || obj === undefined) return;
    const kind = typeof obj === "object" ? (obj as { kind?: unknown }).kind : undefined;
    if (kind === "List" || kind === "NamespaceList") {
      const items = (obj as { items?: unknown }).items;
      for (const item of Array.isArray(items) ? items : []) visit(item, where);
    } else if (kind === "Namespace") {
      found.push(obj as NamespaceLike);
    } else {
      throw new ServeError(`--namespace-source: ${where} holds a ${JSON.stringify(kind)}, not a Namespace or a List`);
    }
  };
  try {
    for (const doc of splitYamlStream(text)) visit(readYaml(doc), file);
  } catch (e) {
    throw e instanceof ServeError ? e : new ServeError(`--namespace-source: ${file}: ${(e as Error).message}`);
  }
  return found;
}

/** The namespace source: in-cluster (the default on OpenShift), a file, or none. */
async function namespaceSource(opts: ServeCliOptions, onPlatform: WebhookState["platform"]) {
  if (opts.namespaceSource !== undefined && onPlatform === undefined) {
    throw new ServeError("--namespace-source is only read with --platform openshift");
  }
  if (onPlatform === undefined) return undefined;
  const source = opts.namespaceSource ?? "in-cluster";
  if (source === "in-cluster") return inClusterNamespaces();
  return readNamespacesFile(source);
}

/** The certificate files from the flags: --cert-dir (a kubernetes.io/tls Secret volume) or the two files. */
function tlsFiles(opts: ServeCliOptions): ServerOptions["tls"] {
  if (opts.certDir !== undefined) {
    if (opts.tlsCertFile !== undefined || opts.tlsKeyFile !== undefined) {
      throw new ServeError("give either --cert-dir or --tls-cert-file and --tls-key-file, not both");
    }
    return { certFile: join(opts.certDir, "tls.crt"), keyFile: join(opts.certDir, "tls.key") };
  }
  if ((opts.tlsCertFile === undefined) !== (opts.tlsKeyFile === undefined)) {
    throw new ServeError("--tls-cert-file and --tls-key-file go together");
  }
  return opts.tlsCertFile !== undefined && opts.tlsKeyFile !== undefined
    ? { certFile: opts.tlsCertFile, keyFile: opts.tlsKeyFile }
    : undefined;
}

/** The TLS versions and suites from --tls-min-version and --tls-cipher-suites. */
function tlsPolicy(opts: ServeCliOptions): TlsPolicy {
  try {
    return {
      minVersion: parseTlsMinVersion(opts.tlsMinVersion),
      cipherSuites:
        opts.tlsCipherSuites === undefined ? DEFAULT_CIPHER_SUITES : parseCipherSuites(opts.tlsCipherSuites),
    };
  } catch (e) {
    throw e instanceof TlsPolicyError ? new ServeError(e.message) : e;
  }
}

/** The generated certificate's names: loopback, and the webhook Service's DNS names. */
export function selfSignedHosts(opts: ServeCliOptions): string[] {
  const service = opts.service ?? serviceFor(opts.revision);
  const ns = opts.namespace;
  return [
    "localhost",
    "127.0.0.1",
    "::1",
    service,
    `${service}.${ns}`,
    `${service}.${ns}.svc`,
    `${service}.${ns}.svc.cluster.local`,
  ];
}

/**
 * A listen failure in the user's words: which port (HTTPS or metrics) and the flag that changes it.
 * Undefined for errors that are not about listening.
 */
export function listenErrorMessage(
  e: unknown,
  options: Pick<ServerOptions, "port" | "metricsPort">,
): string | undefined {
  const err = e as NodeJS.ErrnoException & { port?: number; address?: string };
  // "bind" in a worker of serve --workers: node:cluster's primary opens the shared port.
  if (err?.syscall !== "listen" && err?.syscall !== "bind") return undefined;
  const port = err.port;
  if (port === options.port && port === options.metricsPort && port !== 0 && err.code === "EADDRINUSE") {
    return `--port and --metrics-port are both ${port}: the HTTPS and metrics listeners need different ports`;
  }
  // The HTTPS listener opens first; a failure on another port number is the metrics listener's.
  const [which, flag] = port === options.port ? ["HTTPS port", "--port"] : ["metrics port", "--metrics-port"];
  switch (err.code) {
    case "EADDRINUSE":
      return `${which} ${port} is already in use: choose another with ${flag} (0 picks a free port)`;
    case "EACCES":
      return `${which} ${port}: permission denied (ports below 1024 need privileges): choose another with ${flag}`;
    case "EADDRNOTAVAIL":
      return `${which} ${port}: address ${err.address} is not an address of this host (${flag === "--port" ? "--host" : "--metrics-host"})`;
    default:
      return undefined;
  }
}

/** examples/admission-review.json beside the package (a source checkout), if it is there. */
function exampleReviewPath(): string | undefined {
  const path = fileURLToPath(new URL("../../examples/admission-review.json", import.meta.url));
  return existsSync(path) ? path : undefined;
}

/** A small AdmissionReview for one Pod, for the start-up hint when the example file is not installed. */
const INLINE_REVIEW = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "1",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    namespace: "default",
    operation: "CREATE",
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web" },
      spec: { containers: [{ name: "web", image: "nginx" }] },
    },
  },
});

/**
 * The curl command of the start-up hint, runnable from any folder: the example file by its absolute
 * path when it is beside the package, else a small review inline; to 127.0.0.1 with -k, or as
 * `target` says (serve-hint.ts).
 */
export function curlHint(port: number, example: string | undefined, target?: CurlTarget): string {
  return curlCommand(port, example === undefined ? INLINE_REVIEW : `@${example}`, target);
}

/**
 * After --shutdown-delay + --shutdown-timeout, how long the process may take to stop before it exits
 * anyway (ms); with workers, how long they may take before the primary kills them (the primary
 * itself waits twice this).
 */
const SHUTDOWN_GRACE_MS = 3000;

/** --workers: a count from 1, or (not given) the CPU count the container is given. */
export function workerCount(value: string | undefined, cpus: () => number): number {
  return value === undefined ? cpus() : integer(value, "--workers", 1, 1024);
}

/** The server's options from the flags (every check of a flag's value happens here, before anything starts). */
async function serverOptions(opts: ServeCliOptions, logger: Logger, io: CliIo): Promise<ServerOptions> {
  const tls = tlsFiles(opts);
  const onPlatform = platform(opts.platform);
  const namespaces = await namespaceSource(opts, onPlatform);
  if (onPlatform === "openshift" && (opts.namespaceSource ?? "in-cluster") === "in-cluster") {
    if (!io.env.KUBERNETES_SERVICE_HOST) {
      logger.warn("--platform openshift reads namespaces from the API server, but KUBERNETES_SERVICE_HOST is not set");
    }
  }
  return {
    port: integer(opts.port, "--port", 0, 65535),
    metricsPort: integer(opts.metricsPort, "--metrics-port", 0, 65535),
    ...(opts.host === undefined ? {} : { host: opts.host }),
    ...(opts.metricsHost === undefined ? {} : { metricsHost: opts.metricsHost }),
    ...(tls === undefined ? { selfSignedHosts: selfSignedHosts(opts) } : { tls }),
    tlsPolicy: tlsPolicy(opts),
    config: {
      ...(opts.configDir === undefined ? {} : { configDir: opts.configDir }),
      ...(opts.injectConfigFile === undefined ? {} : { injectConfigFile: opts.injectConfigFile }),
      ...(opts.valuesFile === undefined ? {} : { valuesFile: opts.valuesFile }),
      ...(opts.meshConfigFile === undefined ? {} : { meshConfigFile: opts.meshConfigFile }),
    },
    revision: opts.revision,
    nativeSidecars: nativeSidecars(opts.nativeSidecars),
    ...(io.env.COMPLIANCE_POLICY ? { compliancePolicy: io.env.COMPLIANCE_POLICY } : {}),
    ...(onPlatform === undefined ? {} : { platform: onPlatform }),
    ...(namespaces === undefined ? {} : { namespaces }),
    watchIntervalMs: integer(opts.watchInterval, "--watch-interval", 10, 3_600_000),
    limits: {
      shutdownTimeoutMs: integer(opts.shutdownTimeout, "--shutdown-timeout", 0, 3_600_000),
      drainDelayMs: integer(opts.shutdownDelay, "--shutdown-delay", 0, 3_600_000),
      maxBufferedBytes: integer(opts.maxBufferedBytes, "--max-buffered-bytes", 1024, 2 ** 40),
      maxConnections: integer(opts.maxConnections, "--max-connections", 0, 1_000_000),
    },
    logger,
  };
}

/**
 * Waits for SIGTERM/SIGINT, then close(); a second signal calls kill() and exits 1, and so does a
 * close() that takes longer than drain delay + shutdown timeout + SHUTDOWN_GRACE_MS.
 */
async function untilStopped(
  close: () => Promise<void>,
  kill: () => void,
  limits: ServerOptions["limits"],
  graceMs: number,
  logger: Logger,
): Promise<void> {
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, "second signal: exiting now");
        kill();
        logger.flush();
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal }, "signal received");
      // close() destroys what is left after the timeout; should anything still hold the process
      // (a library's handle), leave anyway a little later.
      const bound = (limits?.drainDelayMs ?? 0) + (limits?.shutdownTimeoutMs ?? 0) + graceMs;
      setTimeout(() => {
        logger.error({ afterMs: bound }, "shutdown did not finish: exiting now");
        kill();
        logger.flush();
        process.exit(1);
      }, bound).unref();
      close().then(resolve, (e: unknown) => {
        logger.error({ err: e }, "error while shutting down");
        resolve();
      });
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

/** Flushes the last log lines, then leaves even if a library left a timer behind. */
async function exitAfterFlush(logger: Logger): Promise<never> {
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  process.exit(0);
}

/**
 * Runs the webhook until a signal; the process is its own (signals, exit), so only the environment
 * comes from `io` (the server logs through pino to the process's stdout).
 */
export async function runServe(opts: ServeCliOptions, io: CliIo): Promise<void> {
  if (!isLogLevel(opts.logLevel)) {
    throw new ServeError(`--log-level must be one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(opts.logLevel)}`);
  }
  // A worker of `serve --workers N` serves alone: the primary checked --workers and counted the CPUs.
  const isWorker = process.env[WORKER_ENV] !== undefined;
  const workers = isWorker ? 1 : workerCount(opts.workers, (await import("../webhook/cpu-count.js")).containerCpuCount);
  // The server stack (pino, prom-client, ...) is loaded only when serve runs, not for other commands.
  const { createLogger } = await import("../webhook/logging.js");
  const logger = createLogger({ level: opts.logLevel });
  const options = await serverOptions(opts, logger, io);
  if (isWorker) return runAsWorker(options, logger);
  if (workers > 1) return runAsPrimary(opts, options, workers, logger);

  const { startServer } = await import("../webhook/server.js");
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(options);
  } catch (e) {
    logger.flush();
    throw new ServeError(listenErrorMessage(e, options) ?? (e as Error).message);
  }
  afterStart(opts, server.port, options.tls === undefined, logger);
  await untilStopped(server.close, () => {}, options.limits, SHUTDOWN_GRACE_MS, logger);
  await exitAfterFlush(logger);
}

/** What is logged or checked once serving: istiod's webhook (in the background), the curl hint. */
function afterStart(opts: ServeCliOptions, port: number, selfSigned: boolean, logger: Logger): void {
  // In the background: a slow or unreachable API server never delays serving (src/webhook/istiod-check.ts).
  if (opts.istiodCheck !== false)
    void warnAboutIstiodWebhooks({ revision: opts.revision, namespace: opts.namespace }, logger);
  if (selfSigned) {
    const curl = curlHint(port, exampleReviewPath());
    logger.info({ try: curl }, `serving with a generated self-signed certificate; try: ${curl}`);
    return;
  }
  const tls = tlsFiles(opts);
  const certFile = tls !== undefined && "certFile" in tls ? tls.certFile : undefined;
  const target = certFile === undefined ? undefined : curlTarget(certFile, opts.host);
  if (certFile !== undefined && target !== undefined) {
    const curl = curlHint(port, exampleReviewPath(), target);
    logger.info({ try: curl }, `serving with the certificate of ${certFile}; try: ${curl}`);
  }
}

/** --workers N (N > 1): this process supervises N workers (src/webhook/cluster-primary.ts). */
async function runAsPrimary(
  opts: ServeCliOptions,
  options: ServerOptions,
  workers: number,
  logger: Logger,
): Promise<void> {
  const { startPrimary } = await import("../webhook/cluster-primary.js");
  // One certificate for all workers: generated here, sent to each.
  const { selfSignedCertificate } = await import("../webhook/tls-self-signed.js");
  const generatedCertificate =
    options.tls === undefined ? selfSignedCertificate({ hosts: options.selfSignedHosts ?? [] }) : undefined;
  const limits = { drainDelayMs: 0, shutdownTimeoutMs: 0, ...options.limits };
  let primary: Awaited<ReturnType<typeof startPrimary>>;
  try {
    primary = await startPrimary({
      workers,
      port: options.port ?? 0,
      metricsPort: options.metricsPort ?? null,
      ...(options.metricsHost === undefined ? {} : { metricsHost: options.metricsHost }),
      ...(generatedCertificate === undefined ? {} : { generatedCertificate }),
      limits,
      graceMs: SHUTDOWN_GRACE_MS,
      logger,
    });
  } catch (e) {
    logger.flush();
    throw new ServeError(listenErrorMessage(e, options) ?? (e as Error).message);
  }
  afterStart(opts, primary.port, generatedCertificate !== undefined, logger);
  await untilStopped(primary.close, primary.kill, limits, 2 * SHUTDOWN_GRACE_MS, logger);
  await exitAfterFlush(logger);
}

/** A worker of `serve --workers N`, started by the primary (src/webhook/cluster-worker.ts). */
async function runAsWorker(options: ServerOptions, logger: Logger): Promise<void> {
  const { runWorker, workerOptions } = await import("../webhook/cluster-worker.js");
  const { startServer } = await import("../webhook/server.js");
  try {
    await runWorker({
      start: (start) => startServer(workerOptions(options, start, logger)),
      describeError: (e) => listenErrorMessage(e, options) ?? (e as Error).message,
      logger,
    });
  } catch {
    // The primary has the message (it fails the start, or logs why a replacement could not start).
    logger.flush();
    process.exit(1);
  }
  await exitAfterFlush(logger);
}

/** Adds `meshinject serve` to the program. */
export function registerServe(program: Command, io: CliIo): void {
  program
    .command("serve")
    .description("run the sidecar-injection admission webhook (HTTPS), with health checks and Prometheus metrics")
    .option("--port <port>", "HTTPS port for /inject, /healthz, /readyz", String(DEFAULT_PORT))
    .option("--host <address>", "address to listen on (default: all)")
    .option("--metrics-port <port>", "plain-HTTP port for /metrics", String(DEFAULT_METRICS_PORT))
    .option("--metrics-host <address>", "address for the metrics port (default: all)")
    .option("--cert-dir <dir>", "folder with tls.crt and tls.key (a kubernetes.io/tls Secret volume)")
    .option("--tls-cert-file <file>", "serving certificate (PEM, chain allowed)")
    .option("--tls-key-file <file>", "its private key (PEM)")
    .option("--tls-min-version <version>", "lowest TLS version accepted: VersionTLS12 or VersionTLS13", "VersionTLS12")
    .option(
      "--tls-cipher-suites <names>",
      "TLS 1.2 cipher suites, comma-separated IANA names (default: ECDHE with AES-GCM or ChaCha20-Poly1305, as Kubernetes)",
    )
    .option("--config-dir <dir>", "ConfigMap volume with files config, values and (optionally) mesh")
    .option(
      "--injectConfigFile <file>",
      "injector config: the `config` key of istio-sidecar-injector, or the ConfigMap",
    )
    .option("--valuesFile <file>", "injector values: the `values` key of istio-sidecar-injector, or the ConfigMap")
    .option("--meshConfigFile <file>", "mesh config: the `mesh` key of the istio ConfigMap, or the ConfigMap")
    .option("-r, --revision <name>", "control plane revision the pods are injected for", "")
    .option(
      "--native-sidecars <on|off|auto>",
      "inject the proxy as a native sidecar (auto: off, nodes unknown)",
      "auto",
    )
    .option("--platform <name>", "Istio's PLATFORM: openshift takes the proxy UID/GID from the pod's namespace")
    .option(
      "--namespace-source <in-cluster|file>",
      "with --platform openshift: where namespaces are read (default in-cluster: the API server)",
    )
    .option(
      "--service <name>",
      `Service name for the generated certificate (default: "${DEFAULT_SERVICE}", or "${DEFAULT_SERVICE}-REVISION" with --revision; as in deploy/ and certs)`,
    )
    .option(
      "--namespace <ns>",
      "Service namespace for the generated certificate",
      io.env.POD_NAMESPACE ?? DEFAULT_NAMESPACE,
    )
    .option(
      "--workers <n>",
      "worker processes sharing the HTTPS port (default: the CPU count the container is given: usable CPUs capped by the cgroup CPU limit, rounded up); 1: a single process, no workers",
    )
    .option("--log-level <level>", `log level (${LOG_LEVELS.join(", ")})`, "info")
    .option("--watch-interval <ms>", "how often the certificate and config files are polled", "2000")
    .option(
      "--shutdown-delay <ms>",
      "on SIGTERM, how long to go on answering (each answer with connection: close, /readyz failing) before closing idle connections",
      "3000",
    )
    .option("--shutdown-timeout <ms>", "on SIGTERM, how long requests in flight may take", "15000")
    .option(
      "--max-buffered-bytes <n>",
      "request body bytes past the first 256 KiB of each held in memory at once, reserved as they arrive; past it requests wait, paused (meshinject_request_bodies_waiting); ordinary pods never wait",
      String(32 * 1024 * 1024),
    )
    .option(
      "--max-connections <n>",
      "TCP connections open at once on the HTTPS port; more are closed at once (meshinject_connections_dropped_total); 0: no cap",
      "1000",
    )
    .option(
      "--no-istiod-check",
      "in a cluster, do not look for istiod's injection webhook at start (a read-only list of MutatingWebhookConfigurations)",
    )
    .addHelpText("after", SERVE_HELP)
    .action((opts: ServeCliOptions) => runServe(opts, io));
}

const SERVE_HELP = `
Serves POST /inject (and Istio's /inject/cluster/X/net/Y/:ENV=value form) over HTTPS (TLS 1.2+; TLS 1.2
only with ECDHE + AES-GCM/ChaCha20 suites unless --tls-cipher-suites says otherwise),
/healthz and /readyz on the same port, and Prometheus /metrics over plain HTTP on --metrics-port.

Configuration: --config-dir is a ConfigMap volume with files config and values (ConfigMap
istio-sidecar-injector) and optionally mesh (ConfigMap istio); --injectConfigFile, --valuesFile and
--meshConfigFile name them one by one and win over the folder. What is not given comes from the
built-in default. The files are watched: a new configuration is used only once it loads and renders
a set of reference pods; otherwise the last good one stays (the error is logged and counted).

Certificate: --cert-dir (a kubernetes.io/tls Secret volume: tls.crt, tls.key) or --tls-cert-file and
--tls-key-file; reloaded when the files change, without dropping connections. Without them a
self-signed certificate is generated for localhost and the Service's DNS names.

OpenShift: --platform openshift runs the proxy as the last uid of the pod's namespace range
(annotations openshift.io/sa.scc.uid-range and sa.scc.supplemental-groups) instead of 1337, and drops
a user istio-proxy's runAsUser/runAsGroup when it equals the app's. Namespaces are read from the API
server (GET, cached 30 s; needs get on namespaces and the service-account token, see deploy/README.md),
or from --namespace-source FILE (Namespace YAML, a List, or a stream). A failed lookup logs a warning and
uses 1337; it never fails the admission.

Workers: --workers N processes (node:cluster) share the HTTPS port; default: the CPU count the
container is given (usable CPUs capped by the cgroup CPU limit, rounded up); 1: one process, no
workers. Each worker watches the certificate and config files; /metrics is the aggregate of all
workers; a worker that dies is replaced (back-off 200 ms to 10 s); SIGTERM drains every worker.
--max-connections and --max-buffered-bytes are shared out between the workers.

SIGTERM/SIGINT: answer on for --shutdown-delay (telling clients to reconnect elsewhere), then stop
accepting, finish requests in flight (at most --shutdown-timeout), close every connection left
(including ones that never finished a TLS handshake), exit 0.

Try it (serve logs a curl command that works from any folder: with -k for a generated certificate,
with --cacert for one made by \`meshinject certs --host localhost --ip 127.0.0.1\`):
  meshinject serve --port 9443
  curl -k -H 'Content-Type: application/json' --data @examples/admission-review.json https://127.0.0.1:9443/inject
  meshinject certs --out-dir certs --host localhost --ip 127.0.0.1
  meshinject serve --port 9443 --cert-dir certs
  curl --cacert certs/ca.crt -H 'Content-Type: application/json' --data @examples/admission-review.json https://127.0.0.1:9443/inject
  (examples/admission-review.json is in the source repository, not in the installed package)
`;
