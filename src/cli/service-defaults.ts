/**
 * The webhook Service every command assumes unless told otherwise: `certs` names it in the serving
 * certificate, `webhook-config` points the API server at it, `serve` names it in a generated
 * certificate. They must agree (else TLS fails on a name mismatch) and match deploy/service.yaml
 * (src/cli/service-defaults.test.ts checks both).
 */
export const DEFAULT_SERVICE = "istio-sidecar-injector";
export const DEFAULT_NAMESPACE = "istio-system";

/**
 * The Service of the injector serving `revision`: a named revision is a second injector with its
 * own config (as Istio's `istiod-canary` is), so it gets its own Service, `istio-sidecar-injector-REV`.
 */
export function serviceFor(revision: string): string {
  return revision === "" || revision === "default" ? DEFAULT_SERVICE : `${DEFAULT_SERVICE}-${revision}`;
}
