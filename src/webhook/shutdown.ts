/**
 * Graceful shutdown: lame duck for `drainDelayMs` (every answer says `connection: close`, /readyz
 * fails), then stop accepting, close idle connections, let requests in flight finish for at most
 * `shutdownTimeoutMs`, then destroy every connection left — in a request, idle, or one that never
 * finished its TLS handshake (node's closeAllConnections() knows only HTTP connections, and
 * server.close() waits for all) — so the process can exit; the metrics listener last.
 */

import type { Server as HttpServer, ServerResponse } from "node:http";
import type { Server as HttpsServer } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import type { Connections } from "./connections.js";
import type { FileWatch } from "./file-watch.js";
import type { Limits } from "./limits.js";
import { closeHttpServer } from "./listen.js";
import type { Logger } from "./logging.js";

export interface ShutdownParts {
  server: HttpsServer;
  metricsServer: HttpServer | undefined;
  connections: Connections;
  watches: readonly FileWatch[];
  /** Responses not yet closed (for the log lines). */
  inFlight: ReadonlySet<ServerResponse>;
  limits: Pick<Limits, "drainDelayMs" | "shutdownTimeoutMs">;
  logger: Logger;
  /** Called first: from then on answers close their connections and /readyz fails. */
  beginShutdown(): void;
}

/** A close() for the server: idempotent, resolves once everything has stopped. */
export function shutdownOf(parts: ShutdownParts): () => Promise<void> {
  const { server, logger, limits, inFlight } = parts;
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      parts.beginShutdown();
      for (const w of parts.watches) w.close();
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
        logger.warn(
          { inFlight: inFlight.size, connections: parts.connections.open },
          "shutdown timeout: closing remaining connections",
        );
        server.closeAllConnections();
        parts.connections.destroyAll();
      }, limits.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      if (parts.metricsServer) await closeHttpServer(parts.metricsServer);
      logger.info("stopped");
    })();
    return closing;
  };
}
