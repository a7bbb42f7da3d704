/**
 * Which TLS versions and TLS 1.2 cipher suites the webhook accepts, named as Kubernetes components
 * and istiod name them (`--tls-min-version VersionTLS12`, `--tls-cipher-suites` with Go's IANA
 * names such as TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256), mapped to OpenSSL's names for node:tls.
 *
 * The default is what Kubernetes' own components accept by default: TLS 1.2 or later and, for TLS
 * 1.2, ECDHE key exchange with AES-GCM or ChaCha20-Poly1305 only (no CBC, no SHA-1 MACs, no RSA key
 * exchange, no CCM). TLS 1.3 suites are all AEAD and, as in Go, not configurable: TLS 1.3 names in
 * the list are accepted and leave TLS 1.3 as it is.
 */

/** A version or suite list that cannot be used: one line naming the flag. */
export class TlsPolicyError extends Error {
  override name = "TlsPolicyError";
}

export type TlsMinVersion = "TLSv1.2" | "TLSv1.3";

export interface TlsPolicy {
  minVersion: TlsMinVersion;
  /** TLS 1.2 suites by their IANA (Go) names, in preference order. */
  cipherSuites: readonly string[];
}

/** Go's `tls.VersionName`s for the versions accepted as a minimum. */
const MIN_VERSIONS: Record<string, TlsMinVersion> = { VersionTLS12: "TLSv1.2", VersionTLS13: "TLSv1.3" };

/** TLS 1.2 suites: IANA name → OpenSSL name. The names Go and Kubernetes know (k8s.io/component-base/cli/flag). */
const TLS12_SUITES: Record<string, string> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  // Go's older names for the two above.
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
};

/** TLS 1.3 suites (accepted in the list, as Go accepts them; TLS 1.3 keeps its own defaults). */
const TLS13_SUITES = new Set(["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]);

/** Known to Go but refused here: RC4 is broken and OpenSSL 3 no longer offers it. */
const REFUSED_SUITES = new Set([
  "TLS_RSA_WITH_RC4_128_SHA",
  "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
  "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
]);

/** Kubernetes' default for TLS 1.2: ECDHE with AES-GCM or ChaCha20-Poly1305. */
export const DEFAULT_CIPHER_SUITES: readonly string[] = [
  "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
];

export const DEFAULT_TLS_POLICY: TlsPolicy = { minVersion: "TLSv1.2", cipherSuites: DEFAULT_CIPHER_SUITES };

/** The minimum version from its Go name (`VersionTLS12`, `VersionTLS13`). */
export function parseTlsMinVersion(name: string): TlsMinVersion {
  const version = MIN_VERSIONS[name];
  if (version === undefined) {
    throw new TlsPolicyError(
      `--tls-min-version must be ${Object.keys(MIN_VERSIONS).join(" or ")}, got ${JSON.stringify(name)}`,
    );
  }
  return version;
}

/** A comma-separated list of IANA suite names, checked; TLS 1.3 names are kept but do not count. */
export function parseCipherSuites(list: string): string[] {
  const names = list
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  for (const name of names) {
    if (REFUSED_SUITES.has(name)) throw new TlsPolicyError(`--tls-cipher-suites: ${name} (RC4) is not supported`);
    if (TLS12_SUITES[name] === undefined && !TLS13_SUITES.has(name)) {
      throw new TlsPolicyError(
        `--tls-cipher-suites: unknown cipher suite ${JSON.stringify(name)} (use IANA names such as ${DEFAULT_CIPHER_SUITES[0]})`,
      );
    }
  }
  if (!names.some((n) => TLS12_SUITES[n] !== undefined)) {
    throw new TlsPolicyError("--tls-cipher-suites names no TLS 1.2 cipher suite");
  }
  return names;
}

/** node:tls's `ciphers` string for the policy's TLS 1.2 suites. */
export function opensslCiphers(policy: TlsPolicy): string {
  const names = policy.cipherSuites.map((n) => TLS12_SUITES[n]).filter((n): n is string => n !== undefined);
  return [...new Set(names)].join(":");
}
