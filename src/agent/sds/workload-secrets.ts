/**
 * The workload's secrets (pilot-agent's SecretManagerClient, `security/pkg/nodeagent/cache`): the
 * certificate chain + key (`default`) and the trust bundle (`ROOTCA`). Either read from file-mounted
 * certificates (`<dir>/cert-chain.pem`, `key.pem`, `root-cert.pem`) when all three are there, or
 * obtained from the CA: generate a key and CSR, sign, cache, and rotate when the remaining life falls
 * to the grace-period ratio (`SECRET_GRACE_PERIOD_RATIO`, default 0.5) — each new item is handed to
 * the listeners, who push it to connected Envoys. A CA that is down or answers garbage is retried with
 * exponential backoff; the last good certificate stays in use meanwhile.
 */
import { createHash, createPublicKey, X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLog } from "../process/log.js";
import { generateKeyAndCsr, type KeyType } from "./identity-key.js";

export const WORKLOAD_KEY_CERT = "default";
export const ROOT_CA = "ROOTCA";

export interface SecretItem {
  certChainPem: string;
  privateKeyPem: string;
  rootCertPem: string;
  createdAt: number;
  expiresAt: number;
  /** Changes with every new certificate (Istio uses the creation time). */
  version: string;
}

export interface WorkloadSecretsOptions {
  /** The CA's signing call; omitted when certificates are file-mounted. */
  sign?: (csrPem: string, validitySeconds: number) => Promise<string[]>;
  spiffeId: string;
  keyType?: KeyType;
  rsaBits?: number;
  /** `SECRET_TTL` in seconds (default 86400). */
  ttlSeconds?: number;
  /** `SECRET_GRACE_PERIOD_RATIO` (default 0.5). */
  graceRatio?: number;
  /** Directory of file-mounted certificates (`<root>/etc/certs` or `OUTPUT_CERTS`); used when its three files exist. */
  fileCertsDir?: string;
  /** Retry backoff after a failed signing: first and largest delay (default 1 s and 60 s). */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** How often file-mounted certificates are checked for change (default 1 s). */
  fileWatchIntervalMs?: number;
  log?: AgentLog;
}

export const FILE_CERT_NAMES = { chain: "cert-chain.pem", key: "key.pem", root: "root-cert.pem" } as const;

/** The three file-mounted PEMs, or undefined when any is missing. */
export function readFileMountedCerts(dir: string): SecretItem | undefined {
  const paths = Object.values(FILE_CERT_NAMES).map((name) => join(dir, name));
  if (!paths.every((p) => existsSync(p))) return undefined;
  const [certChainPem, privateKeyPem, rootCertPem] = paths.map((p) => readFileSync(p, "utf8"));
  const leaf = new X509Certificate(certChainPem as string);
  const createdAt = Date.now();
  return {
    certChainPem: certChainPem as string,
    privateKeyPem: privateKeyPem as string,
    rootCertPem: rootCertPem as string,
    createdAt,
    expiresAt: Date.parse(leaf.validTo),
    version: digest(certChainPem as string),
  };
}

export function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The delay until rotation: when `ratio` of the certificate's life remains. */
export function rotationDelay(item: Pick<SecretItem, "createdAt" | "expiresAt">, ratio: number, now: number): number {
  const grace = ratio * (item.expiresAt - item.createdAt);
  return Math.max(0, item.expiresAt - grace - now);
}

function joinPem(chain: string[]): string {
  return chain.map((pem) => (pem.endsWith("\n") ? pem : `${pem}\n`)).join("");
}

export class WorkloadSecrets {
  private item: SecretItem | undefined;
  private lastError: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private attempts = 0;
  private readonly listeners = new Set<(item: SecretItem) => void>();
  readonly options: WorkloadSecretsOptions;
  /** Certificates obtained from the CA (or read from files) so far. */
  generations = 0;
  /** Failed signing attempts so far. */
  failures = 0;

  constructor(options: WorkloadSecretsOptions) {
    const ratio = options.graceRatio ?? 0.5;
    if (!(ratio >= 0 && ratio <= 1)) throw new Error(`SECRET_GRACE_PERIOD_RATIO: ${ratio} is not between 0 and 1`);
    this.options = options;
  }

  /** Begins: file-mounted certificates, else the first signing (retried until it works). */
  start(): void {
    const dir = this.options.fileCertsDir;
    const mounted = dir ? readFileMountedCerts(dir) : undefined;
    if (mounted && dir) {
      this.options.log?.info(`serving file-mounted certificates from ${dir}`);
      this.install(mounted);
      this.watchFiles(dir);
      return;
    }
    if (!this.options.sign) throw new Error(`workload secrets: no CA client and no certificates in ${dir ?? "(none)"}`);
    void this.generate();
  }

  current(): SecretItem | undefined {
    return this.item;
  }

  ready(): boolean {
    return this.item !== undefined;
  }

  /** Why there is no certificate yet (the last signing error), for readiness. */
  notReadyReason(): string | undefined {
    if (this.item) return undefined;
    return `workload certificate not ready${this.lastError ? `: ${this.lastError}` : ""}`;
  }

  onChange(listener: (item: SecretItem) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.listeners.clear();
  }

  /**
   * Re-reads the mounted files when they change (a renewed secret), as pilot-agent's file watcher
   * does, and pushes the new item; a half-written or unreadable set keeps the current one.
   */
  private watchFiles(dir: string): void {
    const interval = this.options.fileWatchIntervalMs ?? 1000;
    const check = () => {
      if (this.closed) return;
      try {
        const next = readFileMountedCerts(dir);
        const now = this.item;
        if (
          next &&
          (next.certChainPem !== now?.certChainPem ||
            next.rootCertPem !== now?.rootCertPem ||
            next.privateKeyPem !== now?.privateKeyPem)
        )
          this.install(next);
        this.lastError = undefined;
      } catch (error) {
        this.failures++;
        const message = `file-mounted certificates in ${dir}: ${(error as Error).message}; keeping the current ones`;
        if (message !== this.lastError) this.options.log?.warn(message); // once per distinct problem
        this.lastError = message;
      }
      this.timer = setTimeout(check, interval);
      this.timer.unref();
    };
    this.timer = setTimeout(check, interval);
    this.timer.unref();
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.generate(), delayMs);
    this.timer.unref();
  }

  private install(item: SecretItem): void {
    this.item = item;
    this.generations++;
    for (const listener of this.listeners) listener(item);
  }

  private async generate(): Promise<void> {
    const o = this.options;
    const sign = o.sign;
    if (this.closed || !sign) return;
    const ttl = o.ttlSeconds ?? 86_400;
    try {
      const { privateKeyPem, csrPem } = await generateKeyAndCsr({
        spiffeId: o.spiffeId,
        keyType: o.keyType ?? "ECDSA",
        rsaBits: o.rsaBits,
      });
      const chain = await sign(csrPem, ttl);
      if (this.closed) return;
      const leaf = new X509Certificate(chain[0] as string);
      const ours = createPublicKey(privateKeyPem).export({ format: "der", type: "spki" });
      if (!leaf.publicKey.export({ format: "der", type: "spki" }).equals(ours))
        throw new Error("CA response: the leaf certificate is not for the key we sent");
      const expiresAt = Date.parse(leaf.validTo);
      const createdAt = Date.now();
      if (!(expiresAt > createdAt)) throw new Error(`CA response: the leaf certificate expired at ${leaf.validTo}`);
      // Like pilot-agent, the served chain is the whole answer (leaf … root) and the root is its last element.
      const certChainPem = joinPem(chain);
      this.install({
        certChainPem,
        privateKeyPem,
        rootCertPem: joinPem(chain.slice(-1)),
        createdAt,
        expiresAt,
        version: new Date(createdAt).toISOString(),
      });
      this.lastError = undefined;
      this.attempts = 0;
      const delay = rotationDelay({ createdAt, expiresAt }, o.graceRatio ?? 0.5, Date.now());
      o.log?.info(`workload certificate for ${o.spiffeId} valid until ${leaf.validTo}; rotating in ${delay} ms`);
      this.schedule(delay);
    } catch (error) {
      if (this.closed) return;
      this.failures++;
      this.lastError = error instanceof Error ? error.message : String(error);
      const initial = o.retryInitialMs ?? 1000;
      const delay = Math.min(o.retryMaxMs ?? 60_000, initial * 2 ** this.attempts++);
      const keeping = this.item ? "; keeping the current certificate" : "";
      o.log?.warn(`${this.lastError}${keeping}; retrying in ${delay} ms`);
      this.schedule(delay);
    }
  }
}
