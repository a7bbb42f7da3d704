/** Opening a listener and closing an HTTP server. */

import type { Server as HttpServer } from "node:http";
import type { Server } from "node:net";

/** Resolves with the port bound, rejects with the listen error (EADDRINUSE...). */
export function listen(server: Server, port: number, host: string | undefined): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

/** Stops an HTTP server (the metrics port): no new connections, and its idle keep-alive ones closed. */
export function closeHttpServer(server: HttpServer): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
