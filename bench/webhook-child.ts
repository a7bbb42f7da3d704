/**
 * The server side of the webhook benchmarks, run as a child process (`fork`) so the server has one
 * core and the load generator in the parent the other, as in a cluster where the API server and the
 * webhook do not share a process. Controlled over the IPC channel:
 *
 *   { id, op: "start", mode: "webhook", options }   startServer(options) on 127.0.0.1, ports 0
 *   { id, op: "start", mode: "noop", tls }          an HTTPS server with the webhook's TLS settings and
 *                                                   timeouts that reads the body and answers a fixed JSON
 *   { id, op: "memory", gc }                        process.memoryUsage(), after a full GC when asked
 *   { id, op: "cpu" }                               process.cpuUsage() (µs of user and system CPU so far)
 *   { id, op: "close" }                             graceful close, then exit
 *
 * and answers `{ id, ok: true, result }` or `{ id, ok: false, error }`. Started with --expose-gc.
 * It exits by itself when the parent goes away (IPC disconnect).
 */

import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { LogLevel } from "../src/webhook/defaults.js";
import { DEFAULT_LIMITS } from "../src/webhook/limits.js";
import { createLogger } from "../src/webhook/logging.js";
import { type RunningServer, type ServerOptions, startServer } from "../src/webhook/server.js";
import { checkPair, type TlsPair } from "../src/webhook/tls.js";

export type ChildRequest =
  | { id: number; op: "start"; mode: "webhook"; options: ServerOptions; logLevel: LogLevel }
  | { id: number; op: "start"; mode: "noop"; tls: TlsPair }
  | { id: number; op: "memory"; gc: boolean }
  | { id: number; op: "cpu" }
  | { id: number; op: "close" };

/** A request without its id (what callers pass; the harness numbers them). */
export type ChildCommand = ChildRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

export interface StartResult {
  port: number;
  metricsPort: number;
}

/** The no-op server's whole answer: a small AdmissionReview-shaped JSON. */
export const NOOP_BODY =
  '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"","allowed":true}}';

function noopServer(tls: TlsPair): Promise<Server> {
  // The same TLS context (cert, key, minVersion TLSv1.2) and timeouts as src/webhook/server.ts.
  const server = createServer({
    ...checkPair(tls, "no-op certificate").context,
    headersTimeout: DEFAULT_LIMITS.headersTimeoutMs,
    requestTimeout: DEFAULT_LIMITS.requestTimeoutMs,
    keepAliveTimeout: DEFAULT_LIMITS.keepAliveTimeoutMs,
    handshakeTimeout: DEFAULT_LIMITS.headersTimeoutMs,
  });
  server.on("request", (req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(NOOP_BODY) });
      res.end(NOOP_BODY);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

let webhook: RunningServer | undefined;
let noop: Server | undefined;

async function handle(msg: ChildRequest): Promise<unknown> {
  switch (msg.op) {
    case "start": {
      if (msg.mode === "noop") {
        noop = await noopServer(msg.tls);
        return { port: (noop.address() as AddressInfo).port, metricsPort: -1 } satisfies StartResult;
      }
      webhook = await startServer({
        ...msg.options,
        host: "127.0.0.1",
        port: 0,
        metricsHost: "127.0.0.1",
        metricsPort: 0,
        logger: createLogger({ level: msg.logLevel }),
      });
      return { port: webhook.port, metricsPort: webhook.metricsPort } satisfies StartResult;
    }
    case "memory": {
      if (msg.gc) {
        const gc = (globalThis as { gc?: () => void }).gc;
        if (gc === undefined) throw new Error("the child was not started with --expose-gc");
        gc();
        gc();
      }
      return process.memoryUsage();
    }
    case "cpu":
      return process.cpuUsage();
    case "close": {
      await webhook?.close();
      if (noop !== undefined) {
        const server = noop;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      setTimeout(() => process.exit(0), 50);
      return {};
    }
  }
}

process.on("message", (msg: ChildRequest) => {
  handle(msg).then(
    (result) => process.send?.({ id: msg.id, ok: true, result }),
    (e: unknown) => process.send?.({ id: msg.id, ok: false, error: e instanceof Error ? e.stack : String(e) }),
  );
});
process.on("disconnect", () => process.exit(0));
