/**
 * The PCDS payload: `istio.mesh.v1alpha1.ProxyConfig` bytes from inside an `Any`, of which the agent
 * reads `ca_certificates_pem` (the mesh's extra trust anchors, Istio's handler in initXdsProxy).
 * Anything undecodable is a one-line error, which the proxy sends back to istiod as a NACK.
 */
import { messageType } from "../protos.js";

export function decodeProxyConfigCaCertificates(bytes: Uint8Array): string[] {
  const type = messageType("istio.mesh.v1alpha1.ProxyConfig");
  let decoded: { caCertificatesPem?: string[] };
  try {
    decoded = type.toObject(type.decode(bytes), { arrays: true }) as { caCertificatesPem?: string[] };
  } catch (error) {
    throw new Error(`ProxyConfig: undecodable payload (${(error as Error).message})`);
  }
  return decoded.caCertificatesPem ?? [];
}
