/**
 * Limits on what a client may send, and reading a request body within them. The API server sends
 * small JSON bodies quickly; anything else is refused early, before it costs memory or a socket:
 *   - a content-type other than JSON → 415 (checked before any byte of the body is read);
 *   - a body over `maxBodyBytes` → 413, from `content-length` when given, otherwise while counting
 *     the streamed bytes; the rest is read and dropped within `discardBytes`/`discardMs` so the
 *     client sees the answer (discard-body.ts);
 *   - an empty body → 400;
 *   - header and whole-request timeouts against slow clients (node:http's headersTimeout and
 *     requestTimeout, set by the server from these values).
 */

import type { IncomingMessage } from "node:http";

export interface Limits {
  /** Largest accepted body (bytes). Kubernetes caps an object at 1.5 MiB in etcd; 6 MiB leaves room. */
  maxBodyBytes: number;
  /** Time allowed to receive the request headers (ms). */
  headersTimeoutMs: number;
  /** Time allowed to receive the whole request (ms); the API server's own webhook timeout is ≤ 30 s. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this (ms); the API server reuses its connections. */
  keepAliveTimeoutMs: number;
  /** On shutdown, requests still running after this long are cut off (ms). */
  shutdownTimeoutMs: number;
  /**
   * On shutdown, how long the server goes on answering first (ms), every answer with `connection:
   * close`: a client (the API server) that sends on a kept-alive connection just then is answered
   * and told to reconnect, instead of finding its connection reset. 0: close at once.
   */
  drainDelayMs: number;
  /**
   * Bodies held in memory at once past their first `smallBodyBytes` (bytes, reserved as they
   * arrive; see body-budget.ts): past it, requests wait, paused. 32 MiB: five bodies at the size limit.
   */
  maxBufferedBytes: number;
  /** The first bytes of every body are read outside the budget: ordinary pods never wait. */
  smallBodyBytes: number;
  /**
   * TCP connections open at once on the HTTPS port (0: no cap); more are closed as soon as they are
   * accepted. Keep it under the process's descriptor limit (`ulimit -n`) minus what files and the
   * metrics port need. The API server keeps a few connections per replica.
   */
  maxConnections: number;
  /** A refused body (413, 415, 405) is read and dropped up to this many bytes, then the connection is cut. */
  discardBytes: number;
  /** ...and for at most this long (ms). */
  discardMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxBodyBytes: 6 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  shutdownTimeoutMs: 15_000,
  drainDelayMs: 0,
  maxBufferedBytes: 32 * 1024 * 1024,
  smallBodyBytes: 256 * 1024,
  maxConnections: 1000,
  discardBytes: 64 * 1024 * 1024,
  discardMs: 5000,
};

/** A request refused by a limit: the HTTP status and a one-line message for the client. */
export class LimitError extends Error {
  override name = "LimitError";
  constructor(
    readonly status: 400 | 413 | 415,
    readonly reason: "empty_body" | "body_too_large" | "unsupported_media_type",
    message: string,
  ) {
    super(message);
  }
}

/** The request was aborted by the client (or its socket failed) while the body was read. */
export class AbortedError extends Error {
  override name = "AbortedError";
}

/** `application/json`, with or without parameters (`; charset=utf-8`), in any letter case. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const mediaType = header.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

/** Checks what the headers alone can tell: content-type and a declared length over the limit. */
export function checkHeaders(req: IncomingMessage, limits: Pick<Limits, "maxBodyBytes">): void {
  if (!isJsonContentType(req.headers["content-type"])) {
    throw new LimitError(
      415,
      "unsupported_media_type",
      `content-type must be application/json, got ${JSON.stringify(req.headers["content-type"] ?? "")}`,
    );
  }
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limits.maxBodyBytes) {
    throw new LimitError(
      413,
      "body_too_large",
      `request body of ${declared} bytes exceeds the limit of ${limits.maxBodyBytes} bytes`,
    );
  }
}

/** How a body being read takes part in the memory budget for bodies (body-budget.ts). */
export interface BodyBudgeting {
  /** The first bytes of every body are read outside the budget (ordinary pods never wait). */
  freeBytes: number;
  /** Reserves bytes past those: at once (undefined) or once granted (the request is paused meanwhile). */
  take(bytes: number): Promise<void> | undefined;
}

/**
 * Reads the body, counting bytes as they arrive: past `maxBodyBytes` it stops reading and rejects
 * with a 413 LimitError (the caller answers and drops the rest). An empty body is a 400. With a
 * budget, every byte past `freeBytes` is reserved as it arrives; while a reservation waits, the
 * request is paused (nothing more is read).
 */
export function readBody(
  req: IncomingMessage,
  limits: Pick<Limits, "maxBodyBytes">,
  budget?: BodyBudgeting,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let reserved = 0;
    let waiting = false;
    let ended = false;
    let done = false;
    const finish = (error: Error | undefined) => {
      if (done) return;
      done = true;
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
      if (error) {
        req.pause();
        reject(error);
      } else if (size === 0) {
        reject(new LimitError(400, "empty_body", "request body is empty"));
      } else {
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBodyBytes) {
        finish(new LimitError(413, "body_too_large", `request body exceeds the limit of ${limits.maxBodyBytes} bytes`));
        return;
      }
      chunks.push(chunk);
      reserveMore();
    };
    /** Reserves what has arrived past the free part; pauses the request while that waits. */
    const reserveMore = () => {
      if (budget === undefined || waiting || done) return; // a chunk that came while waiting: after the grant
      const more = size - budget.freeBytes - reserved;
      if (more <= 0) return;
      reserved += more;
      const granted = budget.take(more);
      if (granted === undefined) return;
      waiting = true;
      req.pause();
      granted.then(
        () => {
          waiting = false;
          reserveMore();
          if (waiting || done) return;
          if (ended) finish(undefined);
          else req.resume();
        },
        (e: Error) => finish(new AbortedError(`request body could not be read: ${e.message}`)),
      );
    };
    const onEnd = () => {
      ended = true;
      if (!waiting) finish(undefined);
    };
    const onError = (e: Error) => finish(new AbortedError(`request body could not be read: ${e.message}`));
    const onClose = () => {
      if (!ended) finish(new AbortedError("client closed the connection before the body was complete"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
