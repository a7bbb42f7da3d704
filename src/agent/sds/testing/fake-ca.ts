/**
 * A fake Istio CA of ours (istiod cannot run here): `IstioCertificateService/CreateCertificate` over
 * real TLS on loopback, signing CSRs with a short TTL, recording each call's headers, and able to
 * answer garbage or refuse, so the agent's CA client is tested against the real protocol.
 */
import { type Metadata, Server, ServerCredentials, type ServerUnaryCall, status } from "@grpc/grpc-js";
import { serviceClient } from "../../protos.js";
import { createTestCa, type TestCa } from "../../testing/pki.js";

export type FakeCaMode = "sign" | "garbage" | "one-cert" | "refuse";

export interface FakeCaCall {
  authorization: string | undefined;
  clusterId: string | undefined;
  validityDuration: string;
}

export interface FakeCa {
  address: string;
  port: number;
  pki: TestCa;
  calls: FakeCaCall[];
  mode: FakeCaMode;
  ttlMs: number;
  close(): Promise<void>;
}

export async function startFakeCa(options: { port?: number; ttlMs?: number; pki?: TestCa } = {}): Promise<FakeCa> {
  const pki = options.pki ?? (await createTestCa());
  const server = new Server();
  const fake: FakeCa = {
    address: "",
    port: 0,
    pki,
    calls: [],
    mode: "sign",
    ttlMs: options.ttlMs ?? 3000,
    close: () =>
      new Promise((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
  server.addService(serviceClient("istio.v1.auth.IstioCertificateService").service, {
    CreateCertificate(
      call: ServerUnaryCall<{ csr: string; validityDuration: string }, unknown>,
      callback: (error: { code: number; details: string } | null, response?: unknown) => void,
    ) {
      const md: Metadata = call.metadata;
      fake.calls.push({
        authorization: md.get("authorization")[0]?.toString(),
        clusterId: md.get("clusterid")[0]?.toString(),
        validityDuration: call.request.validityDuration,
      });
      if (fake.mode === "refuse") return callback({ code: status.UNAVAILABLE, details: "CA refuses" });
      if (fake.mode === "garbage") return callback(null, { certChain: ["not a certificate", "at all"] });
      pki.signCsr(call.request.csr, fake.ttlMs).then(
        (leaf) => callback(null, { certChain: fake.mode === "one-cert" ? [leaf] : [leaf, pki.rootPem] }),
        (error: Error) => callback({ code: status.INVALID_ARGUMENT, details: `bad CSR: ${error.message}` }),
      );
    },
  });
  const creds = ServerCredentials.createSsl(null, [
    { cert_chain: Buffer.from(pki.serving.certPem), private_key: Buffer.from(pki.serving.keyPem) },
  ]);
  fake.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${options.port ?? 0}`, creds, (error, port) => (error ? reject(error) : resolve(port))),
  );
  fake.address = `127.0.0.1:${fake.port}`;
  return fake;
}
