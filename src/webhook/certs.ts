/**
 * Certificates for the webhook (`meshinject certs`): a CA, and a serving certificate for the webhook
 * Service's DNS names signed by it. The API server verifies the webhook against the CA given as the
 * MutatingWebhookConfiguration's `caBundle`, so a private CA is all that is needed.
 *
 * ECDSA P-256 (or RSA 2048) keys from node's WebCrypto, certificates built with @peculiar/x509 (loaded on
 * first use, so other commands do not pay for it). No file or clock access: the caller passes the time
 * and writes the PEM texts.
 */
import { webcrypto } from "node:crypto";
import { isIP } from "node:net";
import type * as X509 from "@peculiar/x509";
import { loadX509 } from "../node/x509.js";

type EcKeyGenParams = webcrypto.EcKeyGenParams;
type RsaHashedKeyGenParams = webcrypto.RsaHashedKeyGenParams;
type EcKeyImportParams = webcrypto.EcKeyImportParams;
type RsaHashedImportParams = webcrypto.RsaHashedImportParams;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** A request the generator refuses (bad name, validity, CA material). */
export class CertsError extends Error {
  override name = "CertsError";
}

export type KeyType = "ecdsa" | "rsa";

export interface CertsOptions {
  /** The webhook Service's name. */
  service: string;
  /** The Service's namespace. */
  namespace: string;
  /** Validity in days of the serving certificate. */
  days: number;
  /**
   * Validity in days of a CA created here (a reused CA keeps its own). Default 3650: the CA outlives
   * many serving certificates, so renewals keep the webhook's caBundle.
   */
  caDays?: number;
  /** The current time; certificates are valid from five minutes before it (clock skew). */
  now: Date;
  /** Default "ecdsa" (P-256). */
  keyType?: KeyType;
  /** The cluster's DNS domain. Default `cluster.local`. */
  clusterDomain?: string;
  /** Sign with this existing CA instead of creating one (PEM certificate and PKCS#8 key). */
  ca?: { certPem: string; keyPem: string };
  /** More DNS names for the serving certificate, after the Service's (`localhost`, a node's name). */
  hosts?: readonly string[];
  /** IP addresses for the serving certificate (`127.0.0.1`, to call a local `serve` by address). */
  ips?: readonly string[];
}

export interface CertsResult {
  /** The CA certificate (the `caBundle` of the webhook configuration). */
  caCertPem: string;
  /** The CA's private key (PKCS#8); only present when a CA was created. */
  caKeyPem?: string;
  /** The serving certificate (`tls.crt`). */
  certPem: string;
  /** The serving key, PKCS#8 (`tls.key`). */
  keyPem: string;
  /** The names in the serving certificate. */
  dnsNames: string[];
  /** The IP addresses in the serving certificate. */
  ipAddresses: string[];
  /** When the serving certificate and the CA expire. */
  notAfter: Date;
  caNotAfter: Date;
}

type Algorithm = RsaHashedKeyGenParams | EcKeyGenParams;

const ALGORITHMS: Record<KeyType, Algorithm & { hash?: string }> = {
  ecdsa: { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as EcKeyGenParams & { hash: string },
  rsa: {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  },
};

const crypto = webcrypto as unknown as Crypto;
const SKEW_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A created CA's validity: ten years. */
export const DEFAULT_CA_DAYS = 3650;
/** The serving certificate's default validity: 90 days, renewed with the same CA. */
export const DEFAULT_SERVING_DAYS = 90;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The serving certificate's extra names: each a DNS name (lowercase RFC 1123 labels, a leading
 * `*.` allowed) or, for `ips`, an IPv4 or IPv6 address, written as Node's net.isIP accepts it.
 */
function extraNames(hosts: readonly string[], ips: readonly string[]): { dns: string[]; ips: string[] } {
  for (const host of hosts) {
    const labels = host.replace(/^\*\./, "").split(".");
    if (host.length > 253 || !labels.every((l) => l.length <= 63 && DNS_LABEL.test(l))) {
      throw new CertsError(`host ${JSON.stringify(host)} is not a DNS name (lowercase letters, digits, - and .)`);
    }
  }
  for (const ip of ips) {
    if (isIP(ip) === 0) throw new CertsError(`ip ${JSON.stringify(ip)} is not an IPv4 or IPv6 address`);
  }
  return { dns: [...hosts], ips: [...ips] };
}

/** The names the API server may use for the Service: `svc`, `svc.ns`, `svc.ns.svc`, `svc.ns.svc.DOMAIN`. */
export function serviceDnsNames(service: string, namespace: string, clusterDomain = "cluster.local"): string[] {
  for (const [what, value] of [
    ["service", service],
    ["namespace", namespace],
  ] as const) {
    if (value.length > 63 || !DNS_LABEL.test(value)) {
      throw new CertsError(`${what} ${JSON.stringify(value)} must be a lowercase RFC 1123 label`);
    }
  }
  if (!clusterDomain.split(".").every((l) => l.length <= 63 && DNS_LABEL.test(l))) {
    throw new CertsError(`cluster domain ${JSON.stringify(clusterDomain)} is not a DNS name`);
  }
  return [
    service,
    `${service}.${namespace}`,
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.${clusterDomain}`,
  ];
}

/** A positive random serial number of 16 bytes, as hex. */
function serialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x01;
  return Buffer.from(bytes).toString("hex");
}

/**
 * PEM text ending in a newline, as PEM files do: `cat ca-old.crt ca-new.crt > bundle.pem` (the CA
 * rotation) must give two certificates, not one broken `-----END…----------BEGIN` line.
 */
function lines(pemText: string): string {
  return pemText.endsWith("\n") ? pemText : `${pemText}\n`;
}

function pem(x509: typeof X509, label: string, der: ArrayBuffer): string {
  return lines(x509.PemConverter.encode(der, label));
}

interface Ca {
  cert: X509.X509Certificate;
  key: CryptoKey;
  /** How the CA signs: its key's algorithm with SHA-256. */
  signing: Algorithm;
}

async function importCa(x509: typeof X509, ca: { certPem: string; keyPem: string }): Promise<Ca> {
  let cert: X509.X509Certificate;
  try {
    cert = new x509.X509Certificate(ca.certPem);
  } catch (e) {
    throw new CertsError(`the CA certificate cannot be read: ${(e as Error).message}`);
  }
  const basic = cert.getExtension(x509.BasicConstraintsExtension);
  if (!basic?.ca) throw new CertsError(`the CA certificate (${cert.subject}) is not a CA (basicConstraints CA:TRUE)`);
  const algorithm = cert.publicKey.algorithm as Algorithm;
  let importAlg: EcKeyImportParams | RsaHashedImportParams;
  if (algorithm.name === "ECDSA") importAlg = { name: "ECDSA", namedCurve: (algorithm as EcKeyGenParams).namedCurve };
  else if (algorithm.name === "RSASSA-PKCS1-v1_5") importAlg = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
  else throw new CertsError(`the CA key algorithm ${algorithm.name} is not supported (ECDSA or RSA)`);
  let key: CryptoKey;
  try {
    const der = x509.PemConverter.decodeFirst(ca.keyPem);
    key = await crypto.subtle.importKey("pkcs8", der, importAlg, false, ["sign"]);
  } catch (e) {
    throw new CertsError(`the CA key cannot be read (expected a PKCS#8 "PRIVATE KEY" PEM): ${(e as Error).message}`);
  }
  return { cert, key, signing: { ...importAlg, hash: "SHA-256" } as Algorithm };
}

/** Creates (or reuses) the CA and issues the serving certificate. */
export async function createWebhookCerts(options: CertsOptions): Promise<CertsResult> {
  if (!Number.isInteger(options.days) || options.days < 1 || options.days > 36500) {
    throw new CertsError(`days must be an integer from 1 to 36500, got ${options.days}`);
  }
  const caDays = options.caDays ?? DEFAULT_CA_DAYS;
  if (!Number.isInteger(caDays) || caDays < 1 || caDays > 36500) {
    throw new CertsError(`CA days must be an integer from 1 to 36500, got ${caDays}`);
  }
  if (options.ca === undefined && caDays < options.days) {
    throw new CertsError(`the CA (${caDays} days) must outlive the serving certificate (${options.days} days)`);
  }
  const keyType = options.keyType ?? "ecdsa";
  const alg = ALGORITHMS[keyType];
  if (alg === undefined) throw new CertsError(`key type must be ecdsa or rsa, got ${JSON.stringify(keyType)}`);
  const extra = extraNames(options.hosts ?? [], options.ips ?? []);
  const dnsNames = [
    ...new Set([...serviceDnsNames(options.service, options.namespace, options.clusterDomain), ...extra.dns]),
  ];
  const ipAddresses = [...new Set(extra.ips)];
  const x509 = await loadX509();
  const notBefore = new Date(options.now.getTime() - SKEW_MS);
  const notAfter = new Date(options.now.getTime() + options.days * DAY_MS);
  const caNotAfter = new Date(options.now.getTime() + caDays * DAY_MS);

  let caCert: X509.X509Certificate;
  let caSigningKey: CryptoKey;
  let caSigning: Algorithm = alg;
  let caKeyPem: string | undefined;
  if (options.ca !== undefined) {
    const imported = await importCa(x509, options.ca);
    caCert = imported.cert;
    caSigningKey = imported.key;
    caSigning = imported.signing;
    if (notAfter > caCert.notAfter) {
      const left = Math.floor((caCert.notAfter.getTime() - options.now.getTime()) / DAY_MS);
      throw new CertsError(
        `the CA expires on ${caCert.notAfter.toISOString()}, before the certificate would: ` +
          (left >= 1 ? `ask for at most ${left} days, or ` : "") +
          "rotate the CA (deploy/README.md, CA rotation)",
      );
    }
  } else {
    const caKeys = (await crypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
    const caSerial = serialNumber();
    caCert = await x509.X509CertificateGenerator.createSelfSigned(
      {
        serialNumber: caSerial,
        // Each CA its own subject (the serial's start): during a CA rotation the old and the new CA sit
        // in one caBundle, and TLS clients look issuers up by subject name first.
        name: `CN=${options.service}.${options.namespace} webhook CA ${caSerial.slice(0, 8)}, O=meshinject`,
        notBefore,
        notAfter: caNotAfter,
        signingAlgorithm: alg,
        keys: caKeys,
        extensions: [
          new x509.BasicConstraintsExtension(true, 0, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
          await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    caSigningKey = caKeys.privateKey;
    caKeyPem = pem(x509, "PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", caKeys.privateKey));
  }

  const keys = (await crypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
  const usage =
    keyType === "rsa"
      ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment
      : x509.KeyUsageFlags.digitalSignature;
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: `CN=${dnsNames[2]}`,
      issuer: caCert.subject,
      notBefore,
      notAfter,
      signingAlgorithm: caSigning,
      publicKey: keys.publicKey,
      signingKey: caSigningKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(usage, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
        new x509.SubjectAlternativeNameExtension(
          [
            ...dnsNames.map((value) => ({ type: "dns" as const, value })),
            ...ipAddresses.map((value) => ({ type: "ip" as const, value })),
          ],
          false,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(caCert, false, crypto),
      ],
    },
    crypto,
  );
  return {
    caCertPem: lines(caCert.toString("pem")),
    ...(caKeyPem !== undefined ? { caKeyPem } : {}),
    certPem: lines(cert.toString("pem")),
    keyPem: pem(x509, "PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", keys.privateKey)),
    dnsNames,
    ipAddresses,
    notAfter: cert.notAfter,
    caNotAfter: caCert.notAfter,
  };
}
