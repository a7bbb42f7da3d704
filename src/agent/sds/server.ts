/**
 * The agent's SDS server (pilot-agent's `security/pkg/nodeagent/sds`): Envoy's
 * `SecretDiscoveryService` (StreamSecrets and DeltaSecrets) on the Unix socket
 * `<root>/var/run/secrets/workload-spiffe-uds/socket`, answering `default` (chain + private key) and
 * `ROOTCA` (trust bundle) from the workload secrets, and pushing new ones to every connected Envoy
 * when the certificate rotates. Requests before the first certificate wait for it. Unknown resource
 * names and undecodable messages are counted and never stop the server.
 *
 * ```ts
 * const sds = await startSdsServer({ root: "/", ca: { address: "istiod.istio-system.svc:15012", clusterId: "Kubernetes" },
 *   trustDomain: "cluster.local", namespace: "ns1", serviceAccount: "sa1" });
 * sds.ready();          // true once a certificate exists
 * await sds.close();
 * ```
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Server, type ServerDuplexStream, status } from "@grpc/grpc-js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../istiod-channel.js";
import { type AgentLog, SILENT_LOG } from "../process/log.js";
import { messageType, SECRET_TYPE_URL, serviceClient } from "../protos.js";
import { bindUnixSocket, countingDecoders, shutdown } from "../uds-grpc.js";
import { type CaClient, createCaClient } from "./ca-client.js";
import { spiffeId as spiffeIdOf } from "./identity-key.js";
import {
  digest,
  ROOT_CA,
  type SecretItem,
  WORKLOAD_KEY_CERT,
  WorkloadSecrets,
  type WorkloadSecretsOptions,
} from "./workload-secrets.js";

export type { KeyType } from "./identity-key.js";

export const SDS_SOCKET = "var/run/secrets/workload-spiffe-uds/socket";
export const FILE_CERTS_DIR = "etc/certs";

/** Key, lifetime, rotation and retry settings are the workload secrets' own (see there). */
export interface SdsServerOptions
  extends Pick<
    WorkloadSecretsOptions,
    | "keyType"
    | "rsaBits"
    | "ttlSeconds"
    | "graceRatio"
    | "fileCertsDir"
    | "fileWatchIntervalMs"
    | "retryInitialMs"
    | "retryMaxMs"
  > {
  /** File-system root the default paths are under (default `/`). */
  root?: string;
  socketPath?: string;
  /** The CA (`CA_ADDR`); without it only file-mounted certificates can be served. */
  ca?: {
    address: string;
    clusterId: string;
    /** PEM file of the CA's root (default `<root>/var/run/secrets/istio/root-cert.pem`); `false`: plaintext. */
    rootCertPath?: string | false;
    serverName?: string;
    tokenPath?: string;
    timeoutMs?: number;
  };
  trustDomain: string;
  namespace: string;
  serviceAccount: string;
  log?: AgentLog;
}

export interface SdsStats {
  streams: number;
  responses: number;
  pushes: number;
  nacks: number;
  unknownResources: number;
  malformed: number;
}

export interface SdsServer {
  socketPath: string;
  /** Readiness: a certificate exists. */
  ready(): boolean;
  /** Why not ready (undefined when ready). */
  notReadyReason(): string | undefined;
  stats(): SdsStats;
  readonly secrets: WorkloadSecrets;
  close(): Promise<void>;
}

const Secret = () => messageType("envoy.extensions.transport_sockets.tls.v3.Secret");

/** One named secret as an `Any`, or undefined for a name this server does not serve. */
export function secretResource(name: string, item: SecretItem): { typeUrl: string; value: Buffer } | undefined {
  let body: object;
  if (name === WORKLOAD_KEY_CERT)
    body = {
      name,
      tlsCertificate: {
        certificateChain: { inlineBytes: Buffer.from(item.certChainPem) },
        privateKey: { inlineBytes: Buffer.from(item.privateKeyPem) },
      },
    };
  else if (name === ROOT_CA)
    body = { name, validationContext: { trustedCa: { inlineBytes: Buffer.from(item.rootCertPem) } } };
  else return undefined;
  const type = Secret();
  return { typeUrl: SECRET_TYPE_URL, value: Buffer.from(type.encode(type.fromObject(body)).finish()) };
}

function resourceVersion(name: string, item: SecretItem): string {
  return name === ROOT_CA ? digest(item.rootCertPem) : item.version;
}

interface SotwRequest {
  versionInfo?: string;
  resourceNames?: string[];
  responseNonce?: string;
  errorDetail?: { message?: string } | null;
}

interface DeltaRequest {
  resourceNamesSubscribe?: string[];
  resourceNamesUnsubscribe?: string[];
  initialResourceVersions?: Record<string, string>;
  responseNonce?: string;
  errorDetail?: { message?: string } | null;
}

export async function startSdsServer(options: SdsServerOptions): Promise<SdsServer> {
  const root = options.root ?? "/";
  const socketPath = options.socketPath ?? join(root, SDS_SOCKET);
  const log = options.log ?? SILENT_LOG;
  let ca: CaClient | undefined;
  if (options.ca) {
    const rootCertPath = options.ca.rootCertPath ?? join(root, CA_ROOT_CERT);
    ca = createCaClient({
      address: options.ca.address,
      clusterId: options.ca.clusterId,
      rootCertPem: rootCertPath === false ? undefined : readFileSync(rootCertPath),
      serverName: options.ca.serverName,
      tokenPath: options.ca.tokenPath ?? join(root, TOKEN_PATH),
      timeoutMs: options.ca.timeoutMs,
    });
  }
  const secrets = new WorkloadSecrets({
    sign: ca ? (csr, ttl) => (ca as CaClient).sign(csr, ttl) : undefined,
    spiffeId: spiffeIdOf(options.trustDomain, options.namespace, options.serviceAccount),
    keyType: options.keyType,
    rsaBits: options.rsaBits,
    ttlSeconds: options.ttlSeconds,
    graceRatio: options.graceRatio,
    fileCertsDir: options.fileCertsDir ?? join(root, FILE_CERTS_DIR),
    retryInitialMs: options.retryInitialMs,
    retryMaxMs: options.retryMaxMs,
    fileWatchIntervalMs: options.fileWatchIntervalMs,
    log,
  });
  const counters: SdsStats = { streams: 0, responses: 0, pushes: 0, nacks: 0, unknownResources: 0, malformed: 0 };
  /** Each open stream's "send what you subscribed to, from this item" hook. */
  const subscribers = new Set<(item: SecretItem) => void>();
  let nonce = 0;
  const nextNonce = () => `${Date.now().toString(36)}-${++nonce}`;

  function known(names: string[]): string[] {
    const good = names.filter((n) => n === WORKLOAD_KEY_CERT || n === ROOT_CA) as string[];
    if (good.length !== names.length) {
      counters.unknownResources += names.length - good.length;
      log.warn(`SDS: unknown resource names ${JSON.stringify(names.filter((n) => !good.includes(n)))}`);
    }
    return good;
  }

  function trackStream(call: ServerDuplexStream<unknown, unknown>, push: (item: SecretItem) => void): void {
    counters.streams++;
    subscribers.add(push);
    const done = () => subscribers.delete(push);
    call.on("end", () => {
      done();
      call.end();
    });
    call.on("cancelled", done);
    call.on("error", (error) => {
      log.warn(`SDS stream error: ${error.message}`);
      done();
    });
  }

  function streamSecrets(call: ServerDuplexStream<SotwRequest, unknown>): void {
    let names: string[] = [];
    let lastNonce: string | undefined;
    const send = (item: SecretItem, pushed: boolean) => {
      if (names.length === 0 || call.cancelled) return;
      lastNonce = nextNonce();
      const resources = names.map((n) => secretResource(n, item)).filter((r) => r !== undefined);
      call.write({ versionInfo: item.version, resources, typeUrl: SECRET_TYPE_URL, nonce: lastNonce });
      counters.responses++;
      if (pushed) counters.pushes++;
    };
    trackStream(call, (item) => send(item, true));
    call.on("data", (request: SotwRequest) => {
      if (request.errorDetail?.message) {
        counters.nacks++;
        log.warn(`SDS: Envoy rejected ${JSON.stringify(request.resourceNames)}: ${request.errorDetail.message}`);
        return;
      }
      const wanted = known(request.resourceNames ?? []);
      const isAck = lastNonce !== undefined && request.responseNonce === lastNonce && sameSet(wanted, names);
      names = wanted;
      if (isAck) return;
      const item = secrets.current();
      if (item) send(item, false); // otherwise the first certificate is pushed when it arrives
    });
  }

  function deltaSecrets(call: ServerDuplexStream<DeltaRequest, unknown>): void {
    const subscribed = new Map<string, string>(); // name → version Envoy has ("" = none)
    const send = (item: SecretItem, only: string[] | undefined, pushed: boolean) => {
      if (call.cancelled) return;
      const resources = [];
      for (const name of only ?? subscribed.keys()) {
        const version = resourceVersion(name, item);
        if (subscribed.get(name) === version) continue;
        const resource = secretResource(name, item);
        if (!resource) continue;
        subscribed.set(name, version);
        resources.push({ name, version, resource });
      }
      if (resources.length === 0) return;
      call.write({ systemVersionInfo: item.version, resources, typeUrl: SECRET_TYPE_URL, nonce: nextNonce() });
      counters.responses++;
      if (pushed) counters.pushes++;
    };
    trackStream(call, (item) => send(item, undefined, true));
    call.on("data", (request: DeltaRequest) => {
      if (request.errorDetail?.message) {
        counters.nacks++;
        log.warn(`SDS (delta): Envoy rejected a response: ${request.errorDetail.message}`);
        return;
      }
      for (const name of request.resourceNamesUnsubscribe ?? []) subscribed.delete(name);
      const added = known(request.resourceNamesSubscribe ?? []);
      for (const name of added) subscribed.set(name, request.initialResourceVersions?.[name] ?? "");
      const item = secrets.current();
      if (item && added.length > 0) send(item, added, false);
    });
  }

  secrets.onChange((item) => {
    for (const push of subscribers) push(item);
  });

  const server = new Server({ "grpc.max_receive_message_length": 1 << 20 });
  const sds = countingDecoders(
    serviceClient("envoy.service.secret.v3.SecretDiscoveryService").service,
    (method, error) => {
      counters.malformed++;
      log.warn(`SDS: undecodable ${method} request dropped: ${error.message}`);
    },
  );
  server.addService(sds, {
    StreamSecrets: streamSecrets,
    DeltaSecrets: deltaSecrets,
    FetchSecrets: (_call: unknown, callback: (error: { code: number; details: string }) => void) =>
      callback({ code: status.UNIMPLEMENTED, details: "FetchSecrets is not served; use StreamSecrets" }),
  });
  await bindUnixSocket(server, socketPath);
  secrets.start();
  log.info(`SDS server listening on ${socketPath}`);

  return {
    socketPath,
    secrets,
    ready: () => secrets.ready(),
    notReadyReason: () => secrets.notReadyReason(),
    stats: () => ({ ...counters }),
    async close() {
      secrets.close();
      await shutdown(server);
      ca?.close();
    },
  };
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
