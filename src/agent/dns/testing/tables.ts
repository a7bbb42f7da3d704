/** Name-table entries the DNS tests share: `productpage` of namespace ns1 at 9.9.9.9. */
export const PRODUCTPAGE = {
  "productpage.ns1.svc.cluster.local": {
    ips: ["9.9.9.9"],
    registry: "Kubernetes",
    shortname: "productpage",
    namespace: "ns1",
  },
};
