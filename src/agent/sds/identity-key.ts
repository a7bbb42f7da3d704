/**
 * The workload's key and certificate request: a fresh key pair (ECDSA P-256, or RSA of the configured
 * size, as pilot-agent's `ECC_SIGNATURE_ALGORITHM` / `WORKLOAD_RSA_KEY_SIZE` choose) and a PKCS#10 CSR
 * whose only subject alternative name is the pod's SPIFFE ID. The private key is returned as PEM in
 * the form Envoy and Istio use (`EC PRIVATE KEY` / `RSA PRIVATE KEY`) and stays in this process: it
 * goes out only inside an SDS response.
 */
import { createPrivateKey, webcrypto } from "node:crypto";
import { loadX509 } from "../../node/x509.js";

type KeyPair = webcrypto.CryptoKeyPair;

export type KeyType = "ECDSA" | "RSA";

export interface KeyRequest {
  /** `spiffe://TRUST_DOMAIN/ns/NAMESPACE/sa/SERVICE_ACCOUNT` */
  spiffeId: string;
  keyType: KeyType;
  /** RSA modulus length (default 2048); ignored for ECDSA. */
  rsaBits?: number;
}

export interface KeyAndCsr {
  privateKeyPem: string;
  csrPem: string;
}

/** The pod's SPIFFE identity as Istio spells it. */
export function spiffeId(trustDomain: string, namespace: string, serviceAccount: string): string {
  for (const [field, value] of [
    ["trust domain", trustDomain],
    ["namespace", namespace],
    ["service account", serviceAccount],
  ] as const)
    if (!value || /[/\s]/.test(value)) throw new Error(`SPIFFE ID: ${field} ${JSON.stringify(value)} is not a name`);
  return `spiffe://${trustDomain}/ns/${namespace}/sa/${serviceAccount}`;
}

function algorithmFor(request: KeyRequest): webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams {
  if (request.keyType === "ECDSA") return { name: "ECDSA", namedCurve: "P-256" };
  const bits = request.rsaBits ?? 2048;
  if (!Number.isInteger(bits) || bits < 2048) throw new Error(`workload key: RSA key size ${bits} is below 2048`);
  return { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]) };
}

export async function generateKeyAndCsr(request: KeyRequest): Promise<KeyAndCsr> {
  const algorithm = algorithmFor(request);
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as KeyPair;
  const x509 = await loadX509();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    keys,
    signingAlgorithm: request.keyType === "ECDSA" ? { name: "ECDSA", hash: "SHA-256" } : algorithm,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "url", value: request.spiffeId }], true)],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const privateKeyPem = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" })
    .export({ format: "pem", type: request.keyType === "ECDSA" ? "sec1" : "pkcs1" })
    .toString();
  return { privateKeyPem, csrPem: csr.toString("pem") };
}
