/**
 * For tests: a small fake of the Kubernetes API server (there is no kube-apiserver here), HTTPS on
 * loopback with a self-signed certificate, and the service-account files a pod would have (a token
 * and the CA) in a temporary folder. Each request is recorded; `handler` answers it.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfSignedCertificate } from "./tls-self-signed.js";

export interface FakeApiServer {
  port: number;
  /** The temporary folder: `token`, `ca.crt`, and room for more. */
  dir: string;
  tokenFile: string;
  caFile: string;
  /** The requests so far: path and Authorization header. */
  seen: { path: string | undefined; auth: string | undefined }[];
  /** Answers each request; replace it per test (by default it never answers). */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The environment a pod gets for its API server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeApiServer(token = "secret-token"): Promise<FakeApiServer> {
  const cert = selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const dir = await mkdtemp(join(tmpdir(), "meshinject-api-"));
  await writeFile(join(dir, "token"), `${token}\n`);
  await writeFile(join(dir, "ca.crt"), cert.cert);
  const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    fake.seen.push({ path: req.url, auth: req.headers.authorization });
    fake.handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const fake: FakeApiServer = {
    port: (server.address() as AddressInfo).port,
    dir,
    tokenFile: join(dir, "token"),
    caFile: join(dir, "ca.crt"),
    seen: [],
    handler: () => {},
    env: () => ({ KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(fake.port) }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return fake;
}
