/**
 * What happens to a request body the server will not use (413, 415, 405 answered before it was
 * read). Closing the connection right after the answer makes a client that is still uploading hit
 * a reset (EPIPE, "broken pipe") before it reads the answer, so the 413 rarely arrived. Instead the
 * rest is read and dropped, as HTTP servers do, within bounds: past `discardBytes` or after
 * `discardMs` the connection is destroyed. Memory stays flat (nothing is kept); the request
 * timeout still applies.
 *
 * A client that sent `Expect: 100-continue` has not sent its body: it gets the final status
 * without `100 Continue` and the connection closes after it (nothing to drain).
 */

import type { IncomingMessage } from "node:http";
import type { Limits } from "./limits.js";

/** Whether the client waits for `100 Continue` before sending its body. */
export function expectsContinue(req: IncomingMessage): boolean {
  return String(req.headers.expect ?? "").toLowerCase() === "100-continue";
}

/**
 * Reads and drops the rest of `req`'s body; resolves once it has all arrived, or once the client is
 * gone, or when the limits are passed (the connection is then destroyed). The answer is ended then
 * (respond.ts `endWhen`), so the connection is not closed under a client still sending.
 */
export function discardBody(req: IncomingMessage, limits: Pick<Limits, "discardBytes" | "discardMs">): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let dropped = 0;
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const cut = () => {
      done();
      req.socket.destroy();
    };
    const timer = setTimeout(cut, limits.discardMs);
    req.removeAllListeners("data");
    req.on("data", (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > limits.discardBytes) cut();
    });
    req.once("end", done);
    req.once("close", done);
    req.resume();
  });
}
