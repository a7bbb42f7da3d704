// The files the kubelet mounts into an injected pod for the agent (the istiod-ca-cert ConfigMap's
// root-cert.pem, the istio-token projected token), written under a test's --root.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CA_ROOT_CERT, TOKEN_PATH } from "../src/agent/istiod-channel.js";
import { selfSignedCertificate } from "../src/webhook/tls-self-signed.js";

/** Writes a root certificate (`rootPem`, by default of a CA nobody here runs) and a token under `root`. */
export function writePodSecrets(
  root: string,
  rootPem = selfSignedCertificate({ hosts: ["istiod.istio-system.svc"] }).cert,
): void {
  for (const [path, text] of [
    [CA_ROOT_CERT, rootPem],
    [TOKEN_PATH, "test-token"],
  ] as const) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}
