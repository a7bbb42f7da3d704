/** A plain HTTP server on 127.0.0.1 and an ephemeral port, for tests and benchmarks that need an upstream. */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackServer {
  port: number;
  /** Closes the server and every connection it still has. */
  close(): Promise<void>;
}

export async function serveLoopback(handler: http.RequestListener): Promise<LoopbackServer> {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return {
    port: (s.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  };
}
