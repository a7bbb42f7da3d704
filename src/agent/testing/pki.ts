/**
 * Test PKI: a self-signed root and certificates it issues (a serving certificate for loopback, and
 * certificates for CSRs), made with @peculiar/x509 for the fake CA and the fake istiod.
 */
import { randomBytes, webcrypto } from "node:crypto";
import { loadX509 } from "../../node/x509.js";

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

export interface TestCa {
  rootPem: string;
  /** A serving certificate (PEM chain) and key for `istiod.istio-system.svc`, localhost and 127.0.0.1. */
  serving: { certPem: string; keyPem: string };
  /** Signs a PEM CSR: a leaf valid for `ttlMs`, with the CSR's SANs. */
  signCsr(csrPem: string, ttlMs: number): Promise<string>;
  /** A workload certificate (PEM) and its key for the given URI SANs (SPIFFE IDs), valid a day. */
  issueWorkload(uris: string[]): Promise<{ certPem: string; keyPem: string }>;
}

function serial(): string {
  return randomBytes(8)
    .toString("hex")
    .replace(/^[89a-f]/, "1");
}

async function pkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END PRIVATE KEY-----\n`;
}

export async function createTestCa(): Promise<TestCa> {
  const x509 = await loadX509();
  const rootKeys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: "O=meshinject test,CN=test root",
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
    keys: rootKeys,
    signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  type LeafOptions = Parameters<typeof x509.X509CertificateGenerator.create>[0];
  /** A leaf the root signs, valid from `from` to `to` (epoch milliseconds). */
  const issue = (
    subject: string,
    publicKey: LeafOptions["publicKey"],
    from: number,
    to: number,
    extensions: LeafOptions["extensions"],
  ) =>
    x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject,
      issuer: root.subject,
      notBefore: new Date(from),
      notAfter: new Date(to),
      publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: ALG,
      extensions,
    });
  const servingKeys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const serving = await issue("CN=istiod", servingKeys.publicKey, now - 60_000, now + 86_400_000, [
    new x509.SubjectAlternativeNameExtension([
      { type: "dns", value: "istiod.istio-system.svc" },
      { type: "dns", value: "localhost" },
      { type: "ip", value: "127.0.0.1" },
    ]),
  ]);
  return {
    rootPem: root.toString("pem"),
    serving: { certPem: serving.toString("pem"), keyPem: await pkcs8Pem(servingKeys.privateKey) },
    async signCsr(csrPem, ttlMs) {
      const csr = new x509.Pkcs10CertificateRequest(csrPem);
      const san = csr.extensions.find((e) => e.type === "2.5.29.17"); // subjectAltName
      const t = Date.now();
      const leaf = await issue("", csr.publicKey, t - 1000, t + ttlMs, san ? [san] : []);
      return leaf.toString("pem");
    },
    async issueWorkload(uris) {
      const keys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
      const t = Date.now();
      const leaf = await issue("", keys.publicKey, t - 60_000, t + 86_400_000, [
        new x509.SubjectAlternativeNameExtension(uris.map((value) => ({ type: "url", value }))),
      ]);
      return { certPem: leaf.toString("pem"), keyPem: await pkcs8Pem(keys.privateKey) };
    },
  };
}
