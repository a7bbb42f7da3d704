/** Writing the server's own plain answers, and timing a request. */

import type { ServerResponse } from "node:http";

export const TEXT = "text/plain; charset=utf-8";
export const JSON_TYPE = "application/json";

/**
 * Writes a whole response once (a second call is a no-op), with `connection: close` when asked.
 * With `endWhen`, the response is written at once but ended only when that settles: the client has
 * its whole answer (content-length), while node:http, which closes a `connection: close` socket as
 * soon as the response ends, leaves it open until then (see discard-body.ts).
 */
export function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType: string,
  close: boolean,
  endWhen?: Promise<void>,
): void {
  if (res.headersSent || res.writableEnded) return;
  const headers: Record<string, string | number> = {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
  };
  if (close) headers.connection = "close";
  res.writeHead(status, headers);
  if (endWhen === undefined) {
    res.end(body);
  } else {
    res.write(body);
    void endWhen.finally(() => res.end());
  }
}

/** Seconds since `startNs` (process.hrtime.bigint()). */
export function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}
