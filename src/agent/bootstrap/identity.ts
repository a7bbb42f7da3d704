/**
 * Who the proxy is: its namespace and service account as the pod gives them, and the SPIFFE identity
 * istiod issues its certificate for (`spiffe://<trustDomain>/ns/<namespace>/sa/<serviceAccount>`),
 * and the DNS domain pilot-agent uses (`--domain`, else `<namespace>.svc.cluster.local`).
 */
import { isRecord, type Json } from "../../inject/pod.js";

export interface ProxyIdentity {
  namespace: string;
  serviceAccount: string;
  trustDomain: string;
  spiffeId: string;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * The pod's namespace: the object's own (a Pod's, or a workload's, which its pods inherit), else its
 * pod template's, else `fallback` (the namespace the manifest is applied to).
 */
export function podNamespace(obj: Json, podMetadata: Json, fallback: string): string {
  const own = isRecord(obj.metadata) ? text(obj.metadata.namespace) : "";
  return own || text(podMetadata.namespace) || fallback;
}

/** `spec.serviceAccountName`, else the deprecated `spec.serviceAccount`, else `default`. */
export function podServiceAccount(podSpec: Json): string {
  return text(podSpec.serviceAccountName) || text(podSpec.serviceAccount) || "default";
}

export function spiffeId(trustDomain: string, namespace: string, serviceAccount: string): string {
  return `spiffe://${trustDomain}/ns/${namespace}/sa/${serviceAccount}`;
}

export function proxyIdentity(trustDomain: string, namespace: string, serviceAccount: string): ProxyIdentity {
  return { namespace, serviceAccount, trustDomain, spiffeId: spiffeId(trustDomain, namespace, serviceAccount) };
}

/** pilot-agent's DNS domain: the `--domain` flag, or `<namespace>.svc.cluster.local` when it is empty. */
export function dnsDomain(domainFlag: string, namespace: string): string {
  return domainFlag !== "" ? domainFlag : `${namespace}.svc.cluster.local`;
}
