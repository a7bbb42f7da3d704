/**
 * A fake Istio CA (istiod cannot run here): `istio.v1.auth.IstioCertificateService/CreateCertificate`
 * over real TLS on loopback. It is built without the agent's protobuf code: the service takes raw
 * frames, each request is decoded and each answer encoded by `protoc` against Istio's ca.proto
 * (src/agent/sds/proto/ca.proto: istio/api's security/v1alpha1/ca.proto, same names and numbers).
 * It signs CSRs with a short TTL, records each call's headers and request, and can answer garbage,
 * a lone certificate, refuse, or hold calls until released.
 */
import {
  type Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceDefinition,
  status,
} from "@grpc/grpc-js";
import { createTestCa, type TestCa } from "../../testing/pki.js";
import {
  CA_PROTOS,
  field,
  fields,
  parseTextFormat,
  protocDecode,
  protocEncode,
  textString,
} from "../../testing/protoc.js";

export type FakeCaMode = "sign" | "garbage" | "one-cert" | "refuse" | "hold";

export interface FakeCaCall {
  authorization: string | undefined;
  clusterId: string | undefined;
  metadata: Record<string, string>;
  csr: string;
  validityDuration: string;
  certSigner: string | undefined;
  /** The subject alternative names of the client certificate the caller presented, if any. */
  clientCertSan: string | undefined;
}

export interface FakeCa {
  address: string;
  port: number;
  /** The PKI signing now (swap it to change the root the CA answers with). */
  pki: TestCa;
  calls: FakeCaCall[];
  mode: FakeCaMode;
  ttlMs: number;
  /** Answers the calls held in "hold" mode (as "sign"). */
  release(): void;
  close(): Promise<void>;
}

const raw = (b: Buffer) => b;
const SERVICE: ServiceDefinition = {
  CreateCertificate: {
    path: "/istio.v1.auth.IstioCertificateService/CreateCertificate",
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
};

function decodeRequest(bytes: Buffer): { csr: string; validityDuration: string; certSigner: string | undefined } {
  const m = parseTextFormat(protocDecode("istio.v1.auth.IstioCertificateRequest", CA_PROTOS, bytes));
  let certSigner: string | undefined;
  const metadata = field(m, "metadata");
  if (Array.isArray(metadata))
    for (const entry of fields(metadata, "fields"))
      if (Array.isArray(entry) && String(field(entry, "key")) === "CertSigner") {
        const v = field(entry, "value.string_value");
        certSigner = v === undefined ? "" : String(v);
      }
  return {
    csr: String(field(m, "csr") ?? ""),
    validityDuration: String(field(m, "validity_duration") ?? "0"),
    certSigner,
  };
}

function encodeResponse(chain: string[]): Buffer {
  return protocEncode(
    "istio.v1.auth.IstioCertificateResponse",
    CA_PROTOS,
    chain.map((c) => `cert_chain: ${textString(c)}`).join("\n"),
  );
}

export async function startFakeCa(
  options: { port?: number; ttlMs?: number; pki?: TestCa; requestClientCert?: boolean } = {},
): Promise<FakeCa> {
  const server = new Server();
  const held: (() => void)[] = [];
  const fake: FakeCa = {
    address: "",
    port: 0,
    pki: options.pki ?? (await createTestCa()),
    calls: [],
    mode: "sign",
    ttlMs: options.ttlMs ?? 3000,
    release() {
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
  server.addService(SERVICE, {
    CreateCertificate(
      call: ServerUnaryCall<Buffer, Buffer>,
      callback: (error: { code: number; details: string } | null, response?: Buffer) => void,
    ) {
      const md: Metadata = call.metadata;
      let request: ReturnType<typeof decodeRequest>;
      try {
        request = decodeRequest(call.request);
      } catch (error) {
        return callback({ code: status.INVALID_ARGUMENT, details: `undecodable request: ${(error as Error).message}` });
      }
      const all: Record<string, string> = {};
      for (const [k, v] of Object.entries(md.getMap())) all[k] = String(v);
      fake.calls.push({
        authorization: md.get("authorization")[0]?.toString(),
        clusterId: md.get("clusterid")[0]?.toString(),
        metadata: all,
        clientCertSan: call.getAuthContext().sslPeerCertificate?.subjectaltname,
        ...request,
      });
      const sign = () => {
        const pki = fake.pki;
        pki.signCsr(request.csr, fake.ttlMs).then(
          (leaf) => callback(null, encodeResponse(fake.mode === "one-cert" ? [leaf] : [leaf, pki.rootPem])),
          (error: Error) => callback({ code: status.INVALID_ARGUMENT, details: `bad CSR: ${error.message}` }),
        );
      };
      if (fake.mode === "refuse") return callback({ code: status.UNAVAILABLE, details: "CA refuses" });
      if (fake.mode === "garbage") return callback(null, encodeResponse(["not a certificate", "at all"]));
      if (fake.mode === "hold") {
        held.push(sign);
        return;
      }
      sign();
    },
  });
  const creds = ServerCredentials.createSsl(
    options.requestClientCert ? Buffer.from(fake.pki.rootPem) : null,
    [{ cert_chain: Buffer.from(fake.pki.serving.certPem), private_key: Buffer.from(fake.pki.serving.keyPem) }],
    options.requestClientCert === true,
  );
  fake.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${options.port ?? 0}`, creds, (error, port) => (error ? reject(error) : resolve(port))),
  );
  fake.address = `127.0.0.1:${fake.port}`;
  return fake;
}
