/**
 * The HTTPS server's connections below HTTP: every TCP socket is tracked from accept to close, so
 * none can outlive the server.
 *
 * - A connection whose TLS handshake fails or times out (`handshakeTimeout`) is destroyed at once.
 *   node:https hands such a socket to 'clientError', where an HTTP answer cannot be written (there
 *   is no TLS session to carry it) and `destroySoon()` would wait forever for that write: the
 *   socket stayed in CLOSE-WAIT holding a file descriptor, and enough of them (plain TCP
 *   connections that send nothing, half a ClientHello) exhausted the process's descriptors.
 * - HTTP-level errors (a request timeout, oversized headers, a malformed request) on an
 *   established connection get their one-line answer; the socket is destroyed when that is written,
 *   and at the latest after {@link ERROR_ANSWER_GRACE_MS} (a client that does not read cannot hold it).
 * - At most `maxConnections` are open at once; node closes those past it as soon as they are
 *   accepted ('drop', counted and logged).
 * - On shutdown, {@link Connections.destroyAll} closes whatever is left, handshaken or not.
 * - `CONNECT` (which node:http hands over as a raw socket, closed unanswered when nobody listens)
 *   gets a 405 naming POST like every other method.
 */

import type { IncomingMessage } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import type { Logger } from "./logging.js";
import type { WebhookMetrics } from "./metrics.js";

/** How long an error answer may take to be written before its socket is destroyed anyway (ms). */
export const ERROR_ANSWER_GRACE_MS = 1000;

export interface Connections {
  /** TCP connections open now. */
  readonly open: number;
  /** Destroys every connection still open (the end of a shutdown). */
  destroyAll(): void;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/** The HTTP status a client error is answered with (0: none, the client is gone). */
function clientErrorStatus(code: string): number {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  if (code === "HPE_HEADER_OVERFLOW") return 431;
  if (code === "ECONNRESET") return 0;
  return 400;
}

/** Writes a short answer on a socket outside node:http's response handling, then closes it. */
function answerRaw(socket: Duplex, status: number, headers: string, body = ""): void {
  socket.on("error", () => {});
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${headers}Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  if (typeof (socket as Socket).destroySoon === "function") (socket as Socket).destroySoon();
  setTimeout(() => socket.destroy(), ERROR_ANSWER_GRACE_MS).unref();
}

/** Answers a CONNECT request (node:http's 'connect' event): 405, only POST is served. */
export function refuseConnect(req: IncomingMessage, socket: Duplex, logger: Logger): void {
  logger.debug({ method: req.method, target: req.url, remote: req.socket.remoteAddress }, "CONNECT refused");
  answerRaw(
    socket,
    405,
    "Allow: POST\r\nContent-Type: text/plain; charset=utf-8\r\n",
    `method ${req.method} not allowed, use POST\n`,
  );
}

/** Installs the connection handling on `server` (before it listens). */
export function manageConnections(
  server: HttpsServer,
  options: { maxConnections: number; logger: Logger; metrics: WebhookMetrics },
): Connections {
  const { logger, metrics } = options;
  const sockets = new Set<Socket>();
  const secured = new WeakSet<Socket>();
  if (options.maxConnections > 0) server.maxConnections = options.maxConnections;

  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("secureConnection", (socket: TLSSocket) => {
    secured.add(socket);
  });
  let lastDropLog = 0;
  server.on("drop", (data?: { remoteAddress?: string }) => {
    metrics.connectionsDropped.inc();
    const now = Date.now();
    if (now - lastDropLog >= 10_000) {
      lastDropLog = now; // one line per 10 s: a flood of connections must not flood the log
      logger.warn(
        { maxConnections: options.maxConnections, remote: data?.remoteAddress },
        "connection refused: --max-connections reached (meshinject_connections_dropped_total counts them)",
      );
    }
  });

  server.on("tlsClientError", (err, socket) => {
    logger.debug({ err: err.message, remote: socket.remoteAddress }, "TLS handshake failed");
    socket.destroy();
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!secured.has(socket)) {
      // A failed or timed-out handshake (node:https passes it on here): nothing can be answered.
      socket.destroy();
      return;
    }
    const status = clientErrorStatus(err.code ?? "");
    if (status === 408) logger.warn({ remote: socket.remoteAddress }, "request timed out (slow client)");
    else logger.debug({ err, remote: socket.remoteAddress }, "client error");
    if (status !== 0) answerRaw(socket, status, "");
    else socket.destroy();
  });

  return {
    get open() {
      return sockets.size;
    },
    destroyAll() {
      for (const socket of sockets) socket.destroy();
    },
  };
}
