/**
 * The workload's secret cache (Istio's `SecretManagerClient`, security/pkg/nodeagent/cache/
 * secretcache.go). `generateSecret(name)` answers one SDS resource:
 *
 * 1. from files: `ROOTCA` and `default` from the file-mounted certificates (`./etc/certs/…`) when
 *    they exist and OUTPUT_CERTS is not that same directory; `file-root:system` from the OS bundle;
 *    `file-cert:<chain>~<key>` and `file-root:<bundle>` from the files they name — each file watched,
 *    a change announced to the handler under that resource name;
 * 2. else from the cached workload certificate: `ROOTCA` gets its root (merged with the ProxyConfig
 *    trust anchors), every other name gets the certificate and key;
 * 3. else from the CA: a fresh key and CSR, signed; one signing at a time (a second caller waits and
 *    takes the first one's result from the cache). The certificate is cached and a rotation is
 *    scheduled at the grace ratio (`SECRET_GRACE_PERIOD_RATIO` ± `…_JITTER`): at that point the cache
 *    is *cleared* and `default` announced, so the next request signs anew — an old certificate is
 *    never served past its rotation point, let alone expired, however long the CA fails. A signing
 *    that finds a different root announces `ROOTCA`; the same root announces nothing.
 *
 * After each `default` / `ROOTCA` secret, what it carries is written to OUTPUT_CERTS.
 */
import { X509Certificate } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { spiffeId } from "../bootstrap/identity.js";
import type { AgentLog } from "../process/log.js";
import type { CaClient } from "./ca-client.js";
import {
  FILE_ROOT_SYSTEM_CA_CERT,
  isKeyCertificate,
  isRootCertificate,
  nonEmptyFile,
  ROOT_CA,
  readKeyCert,
  readRootCerts,
  retryFor,
  sdsCertificateConfigFromResourceName,
  WORKLOAD_KEY_CERT,
} from "./file-secrets.js";
import { type CsrOptions, generateCsr } from "./identity-key.js";
import { outputKeyCertToDir } from "./output-certs.js";
import { concatCerts, mergeTrustAnchors } from "./trust-anchors.js";

export { FILE_ROOT_SYSTEM_CA_CERT, ROOT_CA, WORKLOAD_KEY_CERT } from "./file-secrets.js";

export interface SecretItem {
  resourceName: string;
  certificateChain?: string;
  privateKey?: string;
  rootCert?: string;
  createdTime: number;
  expireTime: number;
}

export interface SecretManagerOptions {
  /** The CA; absent with file-mounted certificates (then only files can be served). */
  ca?: Pick<CaClient, "csrSign" | "getRootCertBundle">;
  trustDomain: string;
  workloadNamespace: string;
  serviceAccount: string;
  csr: Omit<CsrOptions, "spiffeId">;
  /** SECRET_TTL in seconds (sent as the requested validity, truncated). */
  secretTtlSeconds: number;
  /** SECRET_GRACE_PERIOD_RATIO and SECRET_GRACE_PERIOD_RATIO_JITTER. */
  graceRatio: number;
  graceRatioJitter: number;
  /** OUTPUT_CERTS ("" = none) and whether files there are group/world readable (on Kubernetes). */
  outputCertsDir: string;
  onKubernetes: boolean;
  /** The file-mounted certificate paths (`<root>/etc/certs/…` unless a provider moved them). */
  certChainFilePath: string;
  keyFilePath: string;
  rootCertFilePath: string;
  /** The OS CA bundle for `file-root:system` ("" = none found). */
  caRootPath: string;
  /** FILE_DEBOUNCE_DURATION in ms: first retry delay for a half-written file. */
  fileDebounceMs: number;
  /** Random source for the rotation jitter (tests pin it). */
  random?: () => number;
  log?: AgentLog;
}

/** rotateTime: the delay until the cache is cleared for a new certificate. */
export function rotateTime(
  item: Pick<SecretItem, "createdTime" | "expireTime">,
  graceRatio: number,
  graceRatioJitter: number,
  now: number,
  random: () => number = Math.random,
): number {
  // stagger rotation times to prevent large fleets of clients from renewing at the same moment
  const jitter = random() * graceRatioJitter * (Math.floor(random() * 2) * 2 - 1);
  const ratio = Math.min(1, Math.max(0, graceRatio + jitter));
  const grace = ratio * (item.expireTime - item.createdTime);
  return Math.max(item.expireTime - grace - now, 0);
}

/** setTimeout for delays past Node's 24.8-day limit (a 90-day certificate rotates at day 45). */
function longTimeout(fn: () => void, ms: number): { clear(): void } {
  const MAX = 2 ** 31 - 1;
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = setTimeout(() => (left > MAX ? arm(left - MAX) : fn()), Math.min(left, MAX));
    timer.unref();
  };
  arm(ms);
  return { clear: () => clearTimeout(timer) };
}

export class SecretManager {
  private workload: SecretItem | undefined;
  private certRoot = "";
  private configTrustBundle = "";
  private lock: Promise<unknown> = Promise.resolve();
  private handler: ((resourceName: string) => void) | undefined;
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly fileCerts = new Set<string>();
  private readonly timers = new Set<{ clear(): void }>();
  private closed = false;
  readonly options: SecretManagerOptions;
  /** CSRs sent and failed, for tests and logs. */
  readonly counters = { csr: 0, csrFailures: 0, fileFailures: 0 };

  constructor(options: SecretManagerOptions) {
    this.options = options;
  }

  registerSecretHandler(handler: (resourceName: string) => void): void {
    this.handler = handler;
  }

  private onSecretUpdate(resourceName: string): void {
    this.handler?.(resourceName);
  }

  private log(level: "debug" | "info" | "warn", message: string): void {
    this.options.log?.[level](message);
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const t of this.timers) t.clear();
    this.timers.clear();
  }

  /** The cached workload certificate, if any (for tests and debugging). */
  cachedWorkload(): SecretItem | undefined {
    return this.workload;
  }

  private cachedSecret(resourceName: string): SecretItem | undefined {
    const c = this.workload;
    if (!c) return undefined;
    if (resourceName === ROOT_CA)
      return {
        resourceName,
        rootCert: this.mergeTrustAnchors(c.rootCert ?? ""),
        createdTime: c.createdTime,
        expireTime: c.expireTime,
      };
    return {
      resourceName,
      certificateChain: c.certificateChain,
      privateKey: c.privateKey,
      createdTime: c.createdTime,
      expireTime: c.expireTime,
    };
  }

  async generateSecret(resourceName: string): Promise<SecretItem> {
    const secret = await this.generate(resourceName);
    if (resourceName === ROOT_CA || resourceName === WORKLOAD_KEY_CERT) {
      try {
        outputKeyCertToDir(
          this.options.outputCertsDir,
          { privateKey: secret.privateKey, certificateChain: secret.certificateChain, rootCert: secret.rootCert },
          this.options.onKubernetes,
        );
      } catch (error) {
        this.log("warn", `error when output the resource: ${(error as Error).message}`);
      }
    }
    return secret;
  }

  private async generate(resourceName: string): Promise<SecretItem> {
    const fromFile = await this.generateFileSecret(resourceName);
    if (fromFile) return fromFile;
    const cached = this.cachedSecret(resourceName);
    if (cached) return cached;
    // One signing at a time; whoever waited looks at the cache again before asking the CA.
    const previous = this.lock;
    let release = () => {};
    this.lock = new Promise<void>((r) => {
      release = r;
    });
    await previous;
    try {
      const again = this.cachedSecret(resourceName);
      if (again) return again;
      let ns: SecretItem;
      try {
        ns = await this.generateNewSecret(resourceName);
      } catch (error) {
        throw new Error(`failed to generate workload certificate: ${(error as Error).message}`);
      }
      this.registerSecret({ ...ns });
      if (resourceName === ROOT_CA) ns.rootCert = this.mergeTrustAnchors(ns.rootCert ?? "");
      else if (this.certRoot !== ns.rootCert) {
        this.log("info", "Root cert has changed, start rotating root cert");
        this.certRoot = ns.rootCert ?? "";
        this.onSecretUpdate(ROOT_CA);
      }
      return ns;
    } finally {
      release();
    }
  }

  private async generateNewSecret(resourceName: string): Promise<SecretItem> {
    const o = this.options;
    if (!o.ca) throw new Error("attempted to fetch secret, but ca client is nil");
    const started = Date.now();
    const { csrPem, privateKeyPem } = await generateCsr({
      ...o.csr,
      spiffeId: spiffeId(o.trustDomain, o.workloadNamespace, o.serviceAccount),
    });
    this.counters.csr++;
    let chainPems: string[];
    let trustBundle: string[];
    try {
      chainPems = await o.ca.csrSign(csrPem, Math.trunc(o.secretTtlSeconds));
      trustBundle = await o.ca.getRootCertBundle();
    } catch (error) {
      this.counters.csrFailures++;
      if (!this.closed) this.log("warn", `${resourceName}: failed to sign: ${(error as Error).message}`);
      throw error;
    }
    const certificateChain = concatCerts(chainPems);
    let expireTime: number;
    try {
      expireTime = Date.parse(new X509Certificate(certificateChain).validTo);
    } catch (error) {
      this.counters.csrFailures++;
      throw new Error(
        `failed to extract expire time from server certificate in CSR response: failed to parse certificate: ${(error as Error).message}`,
      );
    }
    this.log(
      "info",
      `generated new workload certificate resourceName=${resourceName} latency=${Date.now() - started}ms ttl=${Math.round((expireTime - Date.now()) / 1000)}s`,
    );
    const rootCert = trustBundle.length > 0 ? concatCerts(trustBundle) : (chainPems.at(-1) as string);
    return { resourceName, certificateChain, privateKey: privateKeyPem, rootCert, createdTime: Date.now(), expireTime };
  }

  private registerSecret(item: SecretItem): void {
    const o = this.options;
    const delay = rotateTime(item, o.graceRatio, o.graceRatioJitter, Date.now(), o.random);
    item.resourceName = WORKLOAD_KEY_CERT;
    if (this.workload) {
      this.log("info", "skip scheduling certificate rotation, already scheduled");
      return;
    }
    this.workload = item;
    this.log("debug", `scheduled certificate for rotation in ${delay} ms`);
    const timer = longTimeout(() => {
      this.timers.delete(timer);
      // A trust-bundle update may have re-signed since: only the item this timer was set for rotates.
      if (this.closed || this.workload !== item) return;
      this.log("debug", "rotating certificate");
      this.workload = undefined; // the next request generates a fresh certificate
      this.onSecretUpdate(WORKLOAD_KEY_CERT);
    }, delay);
    this.timers.add(timer);
  }

  /** ProxyConfig's trust anchors (PCDS): announce ROOTCA, drop the workload certificate and announce it. */
  updateConfigTrustBundle(trustBundle: string): void {
    if (trustBundle === this.configTrustBundle) return;
    this.configTrustBundle = trustBundle;
    this.onSecretUpdate(ROOT_CA);
    this.workload = undefined;
    this.onSecretUpdate(WORKLOAD_KEY_CERT);
  }

  private mergeTrustAnchors(roots: string): string {
    return mergeTrustAnchors(this.configTrustBundle, roots);
  }

  private async generateFileSecret(resourceName: string): Promise<SecretItem | undefined> {
    const o = this.options;
    // Certificates we write to OUTPUT_CERTS are never read back as file-mounted ones, or we would never rotate.
    const outputToCertificatePath = resolve(dirname(o.certChainFilePath)) === resolve(o.outputCertsDir);
    const stopped = () => this.closed;
    const root = async (path: string, workload: boolean): Promise<SecretItem> => {
      const rootCert = await retryFor(o.fileDebounceMs, () => readRootCerts(path, (m) => this.log("warn", m)), stopped);
      if (workload) this.certRoot = rootCert;
      return { resourceName, rootCert, createdTime: Date.now(), expireTime: 0 };
    };
    const keyCert = async (cert: string, key: string): Promise<SecretItem> => {
      const pair = await retryFor(o.fileDebounceMs, () => readKeyCert(cert, key), stopped);
      return {
        resourceName,
        certificateChain: pair.chain,
        privateKey: pair.key,
        createdTime: Date.now(),
        expireTime: pair.expireTime,
      };
    };
    let read: (() => Promise<SecretItem>) | undefined;
    if (resourceName === ROOT_CA && nonEmptyFile(o.rootCertFilePath) && !outputToCertificatePath)
      read = async () => {
        const item = await root(o.rootCertFilePath, true);
        item.rootCert = this.mergeTrustAnchors(item.rootCert ?? "");
        this.addFileWatcher(o.rootCertFilePath, resourceName);
        return item;
      };
    else if (
      resourceName === WORKLOAD_KEY_CERT &&
      nonEmptyFile(o.certChainFilePath) &&
      nonEmptyFile(o.keyFilePath) &&
      !outputToCertificatePath
    )
      read = async () => {
        const item = await keyCert(o.certChainFilePath, o.keyFilePath);
        this.addFileWatcher(o.certChainFilePath, resourceName);
        return item;
      };
    else if (resourceName === FILE_ROOT_SYSTEM_CA_CERT) {
      if (o.caRootPath !== "")
        read = async () => {
          const item = await root(o.caRootPath, false);
          this.addFileWatcher(o.caRootPath, resourceName);
          return item;
        };
    } else {
      const cfg = sdsCertificateConfigFromResourceName(resourceName);
      if (cfg && isRootCertificate(cfg))
        read = async () => {
          const item = await root(cfg.caCertificatePath, false);
          this.addFileWatcher(cfg.caCertificatePath, resourceName);
          return item;
        };
      else if (cfg && isKeyCertificate(cfg))
        read = async () => {
          const item = await keyCert(cfg.certificatePath, cfg.privateKeyPath);
          this.addFileWatcher(cfg.certificatePath, resourceName);
          return item;
        };
      else if (cfg)
        read = async () => {
          throw new Error(`resource ${resourceName} names no certificate file`);
        };
    }
    if (!read) return undefined;
    try {
      const item = await read();
      this.log("info", `read certificate from file resource=${resourceName}`);
      return item;
    } catch (error) {
      this.counters.fileFailures++;
      this.log("warn", `${resourceName}: failed to generate secret for proxy from file: ${(error as Error).message}`);
      throw error;
    }
  }

  /**
   * Announces `resourceName` when `file` changes: its directory is watched (so a file replaced by
   * rename — an atomic write, or the kubelet's `..data` swap — is seen too), and the watch retried
   * with backoff while the directory cannot be watched.
   */
  private addFileWatcher(file: string, resourceName: string, retryMs = 500): void {
    const abs = resolve(file);
    const key = `${resourceName}\u0000${abs}`;
    if (this.closed || this.fileCerts.has(key)) return;
    const dir = dirname(abs);
    this.fileCerts.add(key);
    if (this.watchers.has(dir)) return;
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        const changed = name?.toString();
        for (const k of this.fileCerts) {
          const [resource, path] = k.split("\u0000") as [string, string];
          if (dirname(path) === dir && (changed === basename(path) || changed === "..data" || !changed)) {
            this.log("info", `event for file certificate ${path}, pushing to proxy`);
            this.onSecretUpdate(resource);
          }
        }
      });
      watcher.on("error", () => {
        watcher.close();
        this.watchers.delete(dir);
        for (const k of [...this.fileCerts])
          if (dirname(k.split("\u0000")[1] as string) === dir) this.fileCerts.delete(k);
      });
      this.watchers.set(dir, watcher);
    } catch (error) {
      this.fileCerts.delete(key);
      this.log(
        "warn",
        `${resourceName}: error adding watcher for file ${abs}, retrying watches: ${(error as Error).message}`,
      );
      const timer = longTimeout(() => {
        this.timers.delete(timer);
        this.addFileWatcher(file, resourceName, Math.min(retryMs * 2, 60_000));
      }, retryMs);
      this.timers.add(timer);
    }
  }
}
