/**
 * Reloads while serving: the certificate files (a good new pair is swapped into the server for new
 * handshakes) and the configuration files (a new configuration is used once it loads and answers
 * the reference pods). A bad new version is logged and counted; the last good one stays active.
 */

import type { Server as HttpsServer } from "node:https";
import type { WebhookState } from "./admission.js";
import { type ConfigFiles, configPaths, type LoadedConfig, type StateSettings, watchConfig } from "./config-watch.js";
import type { FileWatch } from "./file-watch.js";
import type { Logger } from "./logging.js";
import type { WebhookMetrics } from "./metrics.js";
import { type CheckedPair, PAIR_RETRY, type TlsFiles, watchCertificate } from "./tls.js";
import type { TlsPolicy } from "./tls-policy.js";

export interface ReloadOptions {
  server: HttpsServer;
  /** The certificate files, when the certificate comes from files (else nothing to watch). */
  tlsFiles: TlsFiles | undefined;
  /** The pair the server started with. */
  pair: CheckedPair;
  files: ConfigFiles;
  loaded: LoadedConfig;
  settings: StateSettings;
  metrics: WebhookMetrics;
  logger: Logger;
  intervalMs: number;
  /** The TLS versions and suites a reloaded certificate is served with. */
  tlsPolicy: TlsPolicy;
  /** A new configuration is active. */
  onConfig(state: WebhookState): void;
}

/** Starts the watches that apply; close them on shutdown. */
export function watchReloads(o: ReloadOptions): FileWatch[] {
  const { metrics, logger } = o;
  const watches: FileWatch[] = [];
  const tlsFiles = o.tlsFiles;
  if (tlsFiles !== undefined) {
    watches.push(
      watchCertificate(
        o.server,
        tlsFiles,
        o.pair,
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
        o.intervalMs,
        PAIR_RETRY,
        o.tlsPolicy,
      ),
    );
  }
  if (configPaths(o.files).length > 0) {
    watches.push(
      watchConfig(
        o.files,
        o.loaded,
        o.settings,
        {
          onReload: (s) => {
            metrics.configReloads.inc();
            metrics.configLastReloadSuccess.setToCurrentTime();
            logger.info({ files: configPaths(o.files) }, "injector configuration reloaded");
            o.onConfig(s);
          },
          onError: (e) => {
            metrics.configReloadErrors.inc();
            logger.error({ err: e.message }, "new injector configuration refused; the last good one stays active");
          },
        },
        o.intervalMs,
      ),
    );
  }
  return watches;
}
