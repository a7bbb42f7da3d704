/**
 * The CA client (pilot-agent's citadel client, `security/pkg/nodeagent/caclient/providers/citadel`):
 * `istio.v1.auth.IstioCertificateService/CreateCertificate` over TLS verified against the CA's root
 * certificate, with the pod's token as `authorization: Bearer …` (read from its file on every call,
 * since the kubelet rotates it) and the `ClusterID` header. The answer is checked before anyone uses
 * it: at least a leaf and a root, each a PEM certificate. Errors never carry the token.
 */
import { X509Certificate } from "node:crypto";
import type { Client, Metadata, ServiceError } from "@grpc/grpc-js";
import { istiodChannel, istiodMetadata } from "../istiod-channel.js";
import { serviceClient } from "../protos.js";

export interface CaClientOptions {
  /** `CA_ADDR`, `host:port`. */
  address: string;
  /** PEM roots the CA's serving certificate must chain to; absent means plaintext (a local test CA only). */
  rootCertPem?: string | Buffer;
  /** TLS server name when the address is an IP (default: the host of `address`). */
  serverName?: string;
  /** File holding the pod's token (`<root>/var/run/secrets/tokens/istio-token`). */
  tokenPath: string;
  /** `ISTIO_META_CLUSTER_ID`, sent as the `ClusterID` header. */
  clusterId: string;
  /** Per-call deadline (default 10 s). */
  timeoutMs?: number;
}

export interface CaClient {
  /** The signed chain, leaf first and root last, for a PEM CSR and a validity in seconds. */
  sign(csrPem: string, validitySeconds: number): Promise<string[]>;
  close(): void;
}

/** A CA answer that cannot be used; the message says what was wrong. */
export class CaResponseError extends Error {
  override name = "CaResponseError";
}

interface CertificateStub extends Client {
  createCertificate(
    request: unknown,
    metadata: Metadata,
    options: { deadline: number },
    callback: (error: ServiceError | null, response?: { certChain?: unknown }) => void,
  ): void;
}

/** The chain from a CreateCertificate answer, or why it is unusable. */
export function checkCertChain(response: unknown): string[] {
  const chain = (response as { certChain?: unknown } | undefined)?.certChain;
  if (!Array.isArray(chain) || chain.some((c) => typeof c !== "string"))
    throw new CaResponseError("CA response: cert_chain is not a list of strings");
  if (chain.length <= 1) throw new CaResponseError("CA response: invalid empty CertChain (need a leaf and a root)");
  chain.forEach((pem: string, i) => {
    try {
      new X509Certificate(pem);
    } catch {
      throw new CaResponseError(`CA response: cert_chain[${i}] is not a PEM certificate`);
    }
  });
  return chain as string[];
}

export function createCaClient(options: CaClientOptions): CaClient {
  const Stub = serviceClient("istio.v1.auth.IstioCertificateService");
  const channel = istiodChannel(options);
  const stub = new Stub(options.address, channel.credentials, channel.options) as unknown as CertificateStub;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    sign(csrPem, validitySeconds) {
      return new Promise((resolve, reject) => {
        let metadata: Metadata;
        try {
          metadata = istiodMetadata("CA client", options.tokenPath, options.clusterId);
        } catch (error) {
          reject(error);
          return;
        }
        const request = { csr: csrPem, validityDuration: String(Math.round(validitySeconds)) };
        stub.createCertificate(request, metadata, { deadline: Date.now() + timeoutMs }, (error, response) => {
          if (error) {
            reject(new Error(`CA client: create certificate on ${options.address}: ${error.details || error.message}`));
            return;
          }
          try {
            resolve(checkCertChain(response));
          } catch (bad) {
            reject(bad);
          }
        });
      });
    },
    close() {
      stub.close();
    },
  };
}
