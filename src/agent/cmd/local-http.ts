/**
 * One plain-HTTP request as pilot-agent's `wait` and `request` make it with Go's net/http client: a
 * method, a URL, a body and a whole-exchange timeout; the answer's status and body, or the error in
 * the words of Go's client (`Get "URL": dial tcp 127.0.0.1:15021: connect: connection refused`),
 * since operators read these in `kubectl describe pod` events.
 */
import { request } from "node:http";

export type HttpResult = { status: number; body: string } | { error: string };

/** Go's urlErrorOp: the method with only its first letter upper case (`Get`, `Post`). */
function urlErrorOp(method: string): string {
  return method.slice(0, 1) + method.slice(1).toLowerCase();
}

/** A Node network error in the words Go's dialer uses for the same failure. */
function goDialError(e: NodeJS.ErrnoException & { address?: string; port?: number }): string {
  const where = e.address === undefined ? "" : `${e.address.includes(":") ? `[${e.address}]` : e.address}:${e.port}`;
  switch (e.code) {
    case "ECONNREFUSED":
      return `dial tcp ${where}: connect: connection refused`;
    case "ECONNRESET":
      return "read: connection reset by peer";
    case "ENOTFOUND":
      return `dial tcp: lookup ${e.message.replace(/^getaddrinfo ENOTFOUND /, "")}: no such host`;
    default:
      return e.message;
  }
}

/** Sends `method url` with `body`; never rejects. */
export function httpExchange(method: string, url: string, body: string, timeoutMs: number): Promise<HttpResult> {
  const op = `${urlErrorOp(method)} ${JSON.stringify(url)}`;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ error: `parse ${JSON.stringify(url)}: invalid URL` });
  }
  if (target.protocol !== "http:") {
    return Promise.resolve({
      error: `${op}: unsupported protocol scheme ${JSON.stringify(target.protocol.slice(0, -1))}`,
    });
  }
  return new Promise((resolve) => {
    let settled = false;
    const settle = (r: HttpResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = request(target, { method, headers: { "Content-Length": Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => settle({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (e) => settle({ error: `${op}: ${goDialError(e)}` }));
    });
    const timer = setTimeout(() => {
      settle({ error: `${op}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
      req.destroy();
    }, timeoutMs);
    req.on("error", (e) => settle({ error: `${op}: ${goDialError(e)}` }));
    req.end(body);
  });
}
