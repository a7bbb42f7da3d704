/**
 * PEM bundle handling as Istio's pkiutil does it (security/pkg/pki/util): `PemCertBytestoString`
 * (one string per certificate, one surrounding newline trimmed), `AppendCertByte`, and the secret
 * cache's `mergeConfigTrustBundle` (the workload roots plus the ProxyConfig trust anchors, deduplicated
 * and sorted) — so the ROOTCA bytes Envoy gets are byte for byte Istio's.
 */

const BLOCK = /-----BEGIN [^\n-]*-----[\s\S]*?-----END [^\n-]*-----(?:\r?\n)?/g;

function trimOneNewline(s: string): string {
  let out = s.endsWith("\n") ? s.slice(0, -1) : s;
  if (out.startsWith("\n")) out = out.slice(1);
  return out;
}

export function pemCertsToStrings(pem: string): string[] {
  const certs: string[] = [];
  let at = 0;
  BLOCK.lastIndex = 0;
  for (let m = BLOCK.exec(pem); m; m = BLOCK.exec(pem)) {
    const end = m.index + m[0].length;
    if (end === pem.length) {
      certs.push(trimOneNewline(pem.slice(at)));
      break;
    }
    certs.push(trimOneNewline(pem.slice(at, end)));
    at = end;
  }
  return certs;
}

export function appendCertByte(pemCert: string, rootCert: string): string {
  const head = pemCert.length > 0 ? `${pemCert.replace(/\n$/, "")}\n` : "";
  return head + rootCert;
}

/** The union of `roots` and the configured anchors, sorted, joined as Istio joins them. */
export function mergeTrustAnchors(configured: string, roots: string): string {
  const anchors = new Set([...pemCertsToStrings(configured), ...pemCertsToStrings(roots)]);
  let out = "";
  for (const cert of [...anchors].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) out = appendCertByte(out, cert);
  return out;
}

/** concatCerts: PEMs joined so each starts on a new line. */
export function concatCerts(certs: string[]): string {
  return certs.map((c, i) => (i < certs.length - 1 && !c.endsWith("\n") ? `${c}\n` : c)).join("");
}
