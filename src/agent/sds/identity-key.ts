/**
 * The workload's key and certificate request, as Istio's `pkiutil.GenCSR` makes them
 * (security/pkg/pki/util/generate_csr.go): with `ECC_SIGNATURE_ALGORITHM` empty an RSA key of
 * `WORKLOAD_RSA_KEY_SIZE` bits (below 2048 is an error), with `ECDSA` an EC key on `ECC_CURVE`
 * (`P384`, anything else P-256), any other algorithm an error; a PKCS#10 CSR with the subject `O=`
 * (one empty organization) whose only extension is the critical subject alternative name carrying the
 * SPIFFE ID; the key as PEM in PKCS#1 / SEC 1
 * form, or PKCS#8 when `PKCS8_KEY` is set. The private key stays in this process: it goes out only
 * inside an SDS response or to OUTPUT_CERTS.
 */
import { createPrivateKey, webcrypto } from "node:crypto";
import { loadX509 } from "../../node/x509.js";

type KeyPair = webcrypto.CryptoKeyPair;

export interface CsrOptions {
  /** `spiffe://TRUST_DOMAIN/ns/NAMESPACE/sa/SERVICE_ACCOUNT` */
  spiffeId: string;
  /** `ECC_SIGNATURE_ALGORITHM`: "" for RSA, "ECDSA" for EC. */
  ecSignatureAlgorithm: string;
  /** `ECC_CURVE`: "P384" or (anything else) P-256. */
  eccCurve: string;
  /** `WORKLOAD_RSA_KEY_SIZE`. */
  rsaKeySize: number;
  /** `PKCS8_KEY`. */
  pkcs8: boolean;
}

export interface KeyAndCsr {
  privateKeyPem: string;
  csrPem: string;
}

const MINIMUM_RSA_KEY_SIZE = 2048;

function algorithms(o: CsrOptions): {
  generate: webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams;
  sign: webcrypto.Algorithm & { hash?: string };
  sec1: boolean;
} {
  if (o.ecSignatureAlgorithm !== "") {
    if (o.ecSignatureAlgorithm !== "ECDSA")
      throw new Error("csr cert generation fails due to unsupported EC signature algorithm");
    // x509.CreateCertificateRequest signs P-384 keys with SHA-384, P-256 keys with SHA-256.
    const p384 = o.eccCurve === "P384";
    return {
      generate: { name: "ECDSA", namedCurve: p384 ? "P-384" : "P-256" },
      sign: { name: "ECDSA", hash: p384 ? "SHA-384" : "SHA-256" },
      sec1: true,
    };
  }
  if (!(o.rsaKeySize >= MINIMUM_RSA_KEY_SIZE))
    throw new Error(
      `requested key size does not meet the minimum required size of ${MINIMUM_RSA_KEY_SIZE} (requested: ${o.rsaKeySize})`,
    );
  const rsa = {
    name: "RSASSA-PKCS1-v1_5",
    hash: "SHA-256",
    modulusLength: o.rsaKeySize,
    publicExponent: new Uint8Array([1, 0, 1]),
  };
  return { generate: rsa, sign: rsa, sec1: false };
}

export async function generateCsr(o: CsrOptions): Promise<KeyAndCsr> {
  const { generate, sign, sec1 } = algorithms(o);
  const keys = (await webcrypto.subtle.generateKey(generate, true, ["sign", "verify"])) as KeyPair;
  const x509 = await loadX509();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    // GenCSRTemplate: Subject{Organization: [options.Org]} with Org unset — one empty O, as Go encodes it.
    name: [{ "2.5.4.10": [{ printableString: "" }] }] as unknown as string,
    keys,
    signingAlgorithm: sign,
    // BuildSubjectAltNameExtension: critical, since the subject is empty.
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "url", value: o.spiffeId }], true)],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const privateKeyPem = o.pkcs8
    ? createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }).export({ format: "pem", type: "pkcs8" }).toString()
    : createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" })
        .export({ format: "pem", type: sec1 ? "sec1" : "pkcs1" })
        .toString();
  return { privateKeyPem, csrPem: csr.toString("pem") };
}
