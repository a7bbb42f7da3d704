/**
 * The CA client (Istio's citadel client, security/pkg/nodeagent/caclient/providers/citadel/client.go,
 * created by pkg/istio-agent/plugins.go `createCitadel`): `IstioCertificateService/CreateCertificate`
 * with the CSR, the validity in seconds and `metadata.CertSigner` (ISTIO_META_CERT_SIGNER); per call
 * the `ClusterID` header (even empty), the CA_HEADER_* headers and the bearer token when the
 * credential fetcher has one. TLS as istiod-channel.ts builds it, plaintext when the address ends in
 * `:15010`. Transient failures (Canceled, DeadlineExceeded, ResourceExhausted, Aborted, Internal,
 * Unavailable) are retried within the call, 5 attempts in all, 100 ms doubling with 10 % jitter
 * (pkg/security/retry.go); after a failed call the channel is rebuilt, so a rotated root file is
 * picked up. There is no deadline on the call, as there is none in Istio: a slow CA is waited for.
 * An answer with fewer than two certificates is `invalid empty CertChain`.
 */
import { type Client, type Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { callMetadata, type IstiodTls, istiodDial } from "../istiod-channel.js";
import { type AgentLog, SILENT_LOG } from "../process/log.js";
import { serviceClient } from "../protos.js";
import type { CredentialFetcher } from "./credential-fetcher.js";

export interface CaClientOptions {
  /** CA_ADDR (default: the discovery address). */
  endpoint: string;
  /** TLS to the CA; undefined means plaintext (the `:15010` case). */
  tls: IstiodTls | undefined;
  clusterId: string;
  /** CA_HEADER_* (prefix removed). */
  headers: Record<string, string>;
  /** ISTIO_META_CERT_SIGNER. */
  certSigner: string;
  credentials?: CredentialFetcher;
  /** First retry delay (Istio: 100 ms); tests shorten it. */
  retryBaseMs?: number;
  log?: AgentLog;
}

export interface CaClient {
  /** CSRSign: the signed chain, leaf first, root last. */
  csrSign(csrPem: string, certValidTtlSeconds: number): Promise<string[]>;
  /** GetRootCertBundle: Citadel publishes none. */
  getRootCertBundle(): Promise<string[]>;
  close(): void;
}

/** A CA answer that cannot be used. */
export class CaResponseError extends Error {
  override name = "CaResponseError";
}

interface CertificateStub extends Client {
  createCertificate(
    request: unknown,
    metadata: Metadata,
    callback: (error: ServiceError | null, response?: { certChain?: unknown }) => void,
  ): void;
}

const RETRY_CODES = new Set([
  status.CANCELLED,
  status.DEADLINE_EXCEEDED,
  status.RESOURCE_EXHAUSTED,
  status.ABORTED,
  status.INTERNAL,
  status.UNAVAILABLE,
]);
const MAX_ATTEMPTS = 5;

/** The chain of a CreateCertificate answer (more than one certificate), or a CaResponseError. */
export function checkCertChain(response: unknown): string[] {
  const chain = (response as { certChain?: unknown } | undefined)?.certChain;
  if (!Array.isArray(chain) || chain.some((c) => typeof c !== "string"))
    throw new CaResponseError("CA response: cert_chain is not a list of strings");
  if (chain.length <= 1) throw new CaResponseError("invalid empty CertChain");
  return chain as string[];
}

function codeName(code: number): string {
  const name = (status as unknown as Record<number, string>)[code] ?? String(code);
  return name
    .toLowerCase()
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("")
    .replace(/^Ok$/, "OK");
}

export function createCaClient(options: CaClientOptions): CaClient {
  const Stub = serviceClient("istio.v1.auth.IstioCertificateService");
  const log = options.log ?? SILENT_LOG;
  const build = (): CertificateStub => {
    const dial = istiodDial(options.tls, (m) => log.warn(m));
    return new Stub(options.endpoint, dial.credentials, dial.options) as unknown as CertificateStub;
  };
  let stub = build();
  const base = options.retryBaseMs ?? 100;

  const once = (request: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      let metadata: Metadata;
      try {
        metadata = callMetadata(options.clusterId, options.headers, options.credentials?.token);
      } catch (error) {
        reject(error);
        return;
      }
      stub.createCertificate(request, metadata, (error, response) => (error ? reject(error) : resolve(response)));
    });

  return {
    async csrSign(csrPem, ttlSeconds) {
      const request = {
        csr: csrPem,
        validityDuration: String(ttlSeconds),
        metadata: { fields: { CertSigner: { stringValue: options.certSigner } } },
      };
      try {
        let response: unknown;
        for (let attempt = 0; ; attempt++) {
          try {
            response = await once(request);
            break;
          } catch (error) {
            const code = (error as ServiceError).code;
            if (attempt + 1 >= MAX_ATTEMPTS || !RETRY_CODES.has(code)) throw error;
            const wait = base * 2 ** attempt * (1 + (Math.random() * 2 - 1) * 0.1);
            log.warn(`ca request failed, starting attempt ${attempt + 1} in ${Math.round(wait)}ms`);
            await new Promise((r) => setTimeout(r, wait));
          }
        }
        return checkCertChain(response);
      } catch (error) {
        const e = error as ServiceError;
        const message =
          typeof e.code === "number"
            ? `create certificate: rpc error: code = ${codeName(e.code)} desc = ${e.details}`
            : (error as Error).message;
        log.warn(`failed to sign CSR: ${message}`);
        try {
          stub.close();
          stub = build();
          log.info("recreated connection");
        } catch (rebuild) {
          log.warn(`failed reconnect: ${(rebuild as Error).message}`);
        }
        throw error instanceof CaResponseError ? error : new Error(message);
      }
    },
    async getRootCertBundle() {
      return [];
    },
    close() {
      stub.close();
    },
  };
}
