/**
 * The agent's SDS server (Istio's security/pkg/nodeagent/sds: sdsservice.go and server.go, with
 * pkg/xds's stream loop and ACK rules): Envoy's `SecretDiscoveryService/StreamSecrets` on the Unix
 * socket `<root>/var/run/secrets/workload-spiffe-uds/socket`. Each stream, as pkg/xds `Stream` runs it:
 *
 * - the first request must carry `node.id` (else InvalidArgument "missing node information");
 * - requests and pushes are handled one at a time, in order; `ShouldRespond` decides: a NACK or a
 *   stale nonce gets nothing, an empty name list unsubscribes, a first request (or one without a
 *   nonce) is answered with every name, an ACK only for names it adds;
 * - each name is answered by the secret cache (workload-secrets.ts); when any cannot be generated
 *   (the CA is down, a file is missing) the stream ends with that error and Envoy retries — nothing
 *   stale is sent instead;
 * - the cache's announcements (rotation, a changed root, a changed file) push that one name to the
 *   streams that asked for it.
 *
 * Every response carries `type_url` on the response and on each `Any` (set explicitly: protobufjs's
 * Any keeps the field name `type_url`, so a camelCase `typeUrl` key is silently dropped). DeltaSecrets
 * and FetchSecrets answer Unimplemented, as in Istio. Unless certificates are file-mounted, the
 * workload certificate is generated at start (retried with backoff) so OUTPUT_CERTS is written even
 * before Envoy asks; with Envoy disabled (proxyless gRPC) there is no socket and the certificate is
 * only kept fresh.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Server, type ServerDuplexStream, status } from "@grpc/grpc-js";
import { type AgentLog, SILENT_LOG } from "../process/log.js";
import { messageType, SECRET_TYPE_URL, serviceClient } from "../protos.js";
import { bindUnixSocket, countingDecoders, shutdown } from "../uds-grpc.js";
import { type CaClient, createCaClient } from "./ca-client.js";
import { credentialFetcher } from "./credential-fetcher.js";
import {
  FILE_ROOT_SYSTEM_CA_CERT,
  isRootCertificate,
  ROOT_CA,
  sdsCertificateConfigFromResourceName,
  WORKLOAD_KEY_CERT,
} from "./file-secrets.js";
import { caTls, setupSecurityOptions } from "./root-ca.js";
import type { SecurityOptions } from "./security-options.js";
import { type SecretItem, SecretManager } from "./workload-secrets.js";
import { chooseSdsSocket } from "./workload-socket.js";

export const SDS_SOCKET = "var/run/secrets/workload-spiffe-uds/socket";
export const FILE_CERTS_DIR = "etc/certs";
/** security.CACRLFilePath: the plugged-in CA's CRL, handed to Envoy by name when present. */
export const CA_CRL_PATH = "var/run/secrets/istio/crl/ca-crl.pem";

export interface SdsServerOptions {
  security: SecurityOptions;
  socketPath?: string;
  /** DISABLE_ENVOY: no SDS socket; the workload certificate is kept fresh (and written to OUTPUT_CERTS). */
  proxyless?: boolean;
  /** Test hooks: the CA client's first retry delay, the start-up backoff's first delay, the jitter source. */
  caRetryBaseMs?: number;
  warmInitialMs?: number;
  random?: () => number;
  log?: AgentLog;
}

export interface SdsStats {
  streams: number;
  responses: number;
  pushes: number;
  nacks: number;
  errors: number;
  malformed: number;
}

export interface SdsServer {
  socketPath: string;
  stats(): SdsStats;
  readonly secrets: SecretManager;
  close(): Promise<void>;
}

const Secret = () => messageType("envoy.extensions.transport_sockets.tls.v3.Secret");

/** toEnvoySecret: one SecretItem as Envoy's Secret (a validation context for roots, else a key pair). */
export function toEnvoySecret(s: SecretItem, caRootPath: string, crlPath: string | undefined): object {
  const ok =
    s.resourceName === FILE_ROOT_SYSTEM_CA_CERT
      ? caRootPath !== ""
      : isRootCertificate(
          sdsCertificateConfigFromResourceName(s.resourceName) ?? {
            certificatePath: "",
            privateKeyPath: "",
            caCertificatePath: "",
          },
        );
  if (s.resourceName === ROOT_CA || ok) {
    const validationContext: Record<string, unknown> = {
      trustedCa: { inlineBytes: Buffer.from(s.rootCert ?? "") },
    };
    if (crlPath) validationContext.crl = { filename: crlPath };
    return { name: s.resourceName, validationContext };
  }
  return {
    name: s.resourceName,
    tlsCertificate: {
      certificateChain: { inlineBytes: Buffer.from(s.certificateChain ?? "") },
      privateKey: { inlineBytes: Buffer.from(s.privateKey ?? "") },
    },
  };
}

/** The Secret as a `google.protobuf.Any` for @grpc/proto-loader: protobufjs keeps Any's `type_url` name. */
export function secretAny(secret: object): { type_url: string; value: Buffer } {
  const type = Secret();
  return { type_url: SECRET_TYPE_URL, value: Buffer.from(type.encode(type.fromObject(secret)).finish()) };
}

let versionCounter = 0;

/** time.Now().Format(time.RFC3339) + "/" + counter, as sdsservice.generate versions its responses. */
function responseVersion(now = new Date()): string {
  const offset = -now.getTimezoneOffset();
  const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, "0");
  const local = new Date(now.getTime() + offset * 60_000);
  const zone = offset === 0 ? "Z" : `${offset > 0 ? "+" : "-"}${pad(offset / 60)}:${pad(offset % 60)}`;
  return `${local.toISOString().slice(0, 19)}${zone}/${++versionCounter}`;
}

interface Request {
  node?: { id?: string } | null;
  versionInfo?: string;
  resourceNames?: string[];
  typeUrl?: string;
  responseNonce?: string;
  errorDetail?: { code?: number; message?: string } | null;
}

/** The stream's one WatchedResource (sdsservice's Watch). */
interface Watch {
  names: Set<string>;
  nonceSent: string;
  lastError: string;
}

/** Backoff as Istio's pkg/backoff default: 500 ms, ×1.5, ±50 %, at most 60 s. */
function backoff(initialMs: number, random: () => number): () => number {
  let interval = initialMs;
  return () => {
    const next = interval * (1 + (random() * 2 - 1) * 0.5);
    interval = Math.min(interval * 1.5, 60_000);
    return Math.min(next, 60_000);
  };
}

export async function startSdsServer(options: SdsServerOptions): Promise<SdsServer> {
  const security = setupSecurityOptions(options.security);
  const root = security.root;
  const log = options.log ?? SILENT_LOG;
  // Agent.Run: a live workload-identity socket of someone else's means we serve only file certificates.
  const chosen = await chooseSdsSocket(root, security.workloadIdentitySocketFile);
  if (chosen.serveOnlyFiles)
    log.info("Existing workload SDS socket found. Default Istio SDS Server will only serve files");
  const serveOnlyFiles = chosen.serveOnlyFiles;
  const socketPath = options.socketPath ?? chosen.path;
  const random = options.random ?? Math.random;
  const crlPath = join(root, CA_CRL_PATH);
  const crl = () => (security.enableCaCrl && existsSync(crlPath) ? crlPath : undefined);

  const credentials = credentialFetcher(security.credentialFetcherType, security.jwtPath, (m) => log.warn(m));
  let ca: CaClient | undefined;
  if (!security.fileMountedCerts && !serveOnlyFiles) {
    log.info(`CA Endpoint ${security.caEndpoint}, provider ${security.caProviderName}`);
    if (security.caProviderName !== "Citadel")
      throw new Error(`CA provider ${JSON.stringify(security.caProviderName)} not registered`);
    ca = createCaClient({
      endpoint: security.caEndpoint,
      tls: caTls(security),
      clusterId: security.clusterId,
      headers: security.caHeaders,
      certSigner: security.certSigner,
      credentials,
      retryBaseMs: options.caRetryBaseMs,
      log,
    });
  } else log.info("Workload is using file mounted certificates. Skipping connecting to CA");

  const secrets = new SecretManager({
    ca,
    trustDomain: security.trustDomain,
    workloadNamespace: security.workloadNamespace,
    serviceAccount: security.serviceAccount,
    csr: {
      ecSignatureAlgorithm: security.eccSigAlg,
      eccCurve: security.eccCurve,
      rsaKeySize: security.workloadRsaKeySize,
      pkcs8: security.pkcs8Keys,
    },
    secretTtlSeconds: security.secretTtlSeconds,
    graceRatio: security.graceRatio,
    graceRatioJitter: security.graceRatioJitter,
    outputCertsDir: security.outputKeyCertToDir,
    onKubernetes: security.onKubernetes,
    certChainFilePath: security.certChainFilePath,
    keyFilePath: security.keyFilePath,
    rootCertFilePath: security.rootCertFilePath,
    caRootPath: security.caRootPath,
    fileDebounceMs: security.fileDebounceMs,
    random,
    log,
  });

  let closed = false;
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      t.unref();
      timers.add(t);
    });
  /** Retries `names` in order with Istio's default backoff until each is generated (or we close). */
  const keepGenerating = async (names: string[], what: string) => {
    const next = backoff(options.warmInitialMs ?? 500, random);
    for (const name of names)
      for (;;) {
        if (closed) return;
        try {
          await secrets.generateSecret(name);
          break;
        } catch (error) {
          log.warn(
            `failed to ${what} ${name === ROOT_CA ? "root certificate" : "certificate"}: ${(error as Error).message}`,
          );
          await sleep(next());
        }
      }
  };

  const counters: SdsStats = { streams: 0, responses: 0, pushes: 0, nacks: 0, errors: 0, malformed: 0 };

  /** The server (none without Envoy) and its stop. */
  const handle = (listening: string, server: Server | undefined): SdsServer => ({
    socketPath: listening,
    secrets,
    stats: () => ({ ...counters }),
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      secrets.close();
      if (server) await shutdown(server);
      ca?.close();
    },
  });

  if (options.proxyless) {
    // initSdsServer with DisableEnvoy: no SDS server; each announcement regenerates (getWorkloadCerts).
    secrets.registerSecretHandler(() => void keepGenerating([WORKLOAD_KEY_CERT, ROOT_CA], "get"));
    void keepGenerating([WORKLOAD_KEY_CERT, ROOT_CA], "get");
    return handle("", undefined);
  }

  /** Each open stream's push hook. */
  const clients = new Set<(name: string) => void>();

  async function generate(names: string[]): Promise<object> {
    const resources = [];
    for (const name of names) {
      let secret: SecretItem;
      try {
        secret = await secrets.generateSecret(name);
      } catch (error) {
        throw new Error(`failed to generate secret for ${name}: ${(error as Error).message}`);
      }
      resources.push(secretAny(toEnvoySecret(secret, security.caRootPath, crl())));
    }
    return { typeUrl: SECRET_TYPE_URL, versionInfo: responseVersion(), nonce: randomUUID(), resources };
  }

  function streamSecrets(call: ServerDuplexStream<Request, unknown>): void {
    counters.streams++;
    let watch: Watch | undefined;
    let initialized = false;
    let ended = false;
    let queue: Promise<void> = Promise.resolve();
    const fail = (code: number, details: string) => {
      if (ended) return;
      ended = true;
      counters.errors++;
      clients.delete(push);
      log.warn(`SDS stream closed: ${details}`);
      call.emit("error", { code, details });
    };
    const send = (response: object & { nonce?: string }) => {
      if (ended || call.cancelled) return;
      call.write(response);
      counters.responses++;
      watch ??= { names: new Set(), nonceSent: "", lastError: "" };
      watch.nonceSent = response.nonce ?? "";
    };
    const enqueue = (work: () => Promise<void>) => {
      queue = queue.then(async () => {
        if (ended || call.cancelled) return;
        try {
          await work();
        } catch (error) {
          fail(status.UNKNOWN, (error as Error).message);
        }
      });
    };
    const process = async (request: Request) => {
      const names = request.resourceNames ?? [];
      if (request.errorDetail) {
        counters.nacks++;
        log.warn(`SDS: ACK ERROR ${request.errorDetail.code ?? 0}: ${request.errorDetail.message ?? ""}`);
        if (watch) watch.lastError = request.errorDetail.message ?? "";
        return;
      }
      if (names.length === 0) {
        watch = undefined; // unsubscribe: secrets are not a wildcard type
        return;
      }
      let respond: string[];
      if (!request.responseNonce || !watch) {
        watch = { names: new Set(names), nonceSent: watch?.nonceSent ?? "", lastError: "" };
        respond = names;
      } else if (request.responseNonce !== watch.nonceSent) {
        return; // expired nonce
      } else {
        const previous = watch.names;
        watch.lastError = "";
        watch.names = new Set(names);
        respond = names.filter((n) => !previous.has(n));
        if (respond.length === 0) return; // ACK, or only removals
      }
      send(await generate(respond));
    };
    const push = (name: string) =>
      enqueue(async () => {
        if (!watch?.names.has(name)) return;
        send(await generate([name]));
        counters.pushes++;
      });
    const done = () => {
      ended = true;
      clients.delete(push);
    };
    call.on("data", (request: Request) => {
      if (ended) return;
      if (!initialized) {
        if (!request.node?.id) {
          fail(status.INVALID_ARGUMENT, "missing node information");
          return;
        }
        initialized = true;
        clients.add(push);
      }
      enqueue(() => process(request));
    });
    call.on("end", () => {
      done();
      call.end();
    });
    call.on("cancelled", done);
    call.on("error", done);
  }

  secrets.registerSecretHandler((name) => {
    log.debug(`Trigger on secret update, resource name: ${name}`);
    for (const push of clients) push(name);
  });

  const server = new Server({ "grpc.max_concurrent_streams": 100_000 });
  const sds = countingDecoders(
    serviceClient("envoy.service.secret.v3.SecretDiscoveryService").service,
    (method, error) => {
      counters.malformed++;
      log.warn(`SDS: undecodable ${method} request dropped: ${error.message}`);
    },
  );
  const unimplemented = (what: string) => ({ code: status.UNIMPLEMENTED, details: `${what} not implemented` });
  server.addService(sds, {
    StreamSecrets: streamSecrets,
    DeltaSecrets: (call: ServerDuplexStream<unknown, unknown>) => call.emit("error", unimplemented("DeltaSecrets")),
    FetchSecrets: (_call: unknown, callback: (error: { code: number; details: string }) => void) =>
      callback(unimplemented("FetchSecrets")),
  });
  await bindUnixSocket(server, socketPath);
  log.info(`Starting SDS server for workload certificates, will listen on ${socketPath}`);
  // Pre-generate the workload certificate (startup latency; OUTPUT_CERTS always written).
  if (!security.fileMountedCerts && !serveOnlyFiles) void keepGenerating([WORKLOAD_KEY_CERT, ROOT_CA], "warm");
  return handle(socketPath, server);
}
