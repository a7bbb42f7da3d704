/**
 * Who the proxy is: from its namespace and service account (as the pod gives them: ../pod-env.ts), the SPIFFE identity
 * istiod issues its certificate for (`spiffe://<trustDomain>/ns/<namespace>/sa/<serviceAccount>`),
 * the DNS domain pilot-agent uses (`--domain`, else `<namespace>.svc.cluster.local`), and the
 * node ID it gives Envoy and proxyless gRPC (Proxy.ServiceNode).
 */
export interface ProxyIdentity {
  namespace: string;
  serviceAccount: string;
  trustDomain: string;
  spiffeId: string;
}

/** spiffe.Identity.String(): the pod's SPIFFE identity as Istio spells it (no checks, as there). */
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

/** Proxy.ServiceNode: `Type~firstIP~ID~DNSDomain`, the node ID of the Envoy and gRPC bootstraps. */
export function serviceNode(proxy: {
  type: string;
  ipAddresses: readonly string[];
  id: string;
  dnsDomain: string;
}): string {
  return [proxy.type, proxy.ipAddresses[0] ?? "", proxy.id, proxy.dnsDomain].join("~");
}
