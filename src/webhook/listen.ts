/** Opening a listener: resolves with the port bound, rejects with the listen error (EADDRINUSE...). */

import type { Server } from "node:net";

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
