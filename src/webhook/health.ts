/**
 * `/healthz` (the process answers: liveness) and `/readyz` (it should get traffic: a configuration
 * is active, the TLS context exists, and it is not shutting down), served on the HTTPS port so a
 * readiness probe also checks the certificate path the API server uses.
 */

import type { IncomingMessage, ServerResponse } from "node:http";

export const HEALTH_PATHS = ["/healthz", "/readyz"] as const;

export interface Readiness {
  /** Undefined when ready; otherwise why not (shown in the 503 body). */
  notReadyReason(): string | undefined;
}

export function isHealthPath(path: string): boolean {
  return (HEALTH_PATHS as readonly string[]).includes(path);
}

/** Answers a health path; GET and HEAD only. */
export function serveHealth(path: string, req: IncomingMessage, res: ServerResponse, readiness: Readiness): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("method not allowed\n");
    return;
  }
  const reason = path === "/readyz" ? readiness.notReadyReason() : undefined;
  const status = reason === undefined ? 200 : 503;
  const body = reason === undefined ? "ok\n" : `not ready: ${reason}\n`;
  res.writeHead(status, { "content-type": "text/plain", "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : body);
}
