import assert from "node:assert/strict";
import { test } from "node:test";
import { addressesForProxy, buildNameTable, type NameTableInput, type TableService } from "./build-name-table.js";

const kube = (hostname: string, extra: Partial<TableService> = {}): TableService => ({
  hostname,
  ports: [{ port: 80 }],
  attributes: { name: hostname.split(".")[0], namespace: "ns1", serviceRegistry: "Kubernetes" },
  ...extra,
});

const input = (services: TableService[], extra: Partial<NameTableInput> = {}): NameTableInput => ({
  proxy: { ipAddresses: ["10.1.1.1"], clusterID: "c1" },
  services,
  ...extra,
});

test("a single-stack proxy sees one family of cluster VIPs; without VIPs for its cluster, the default address", () => {
  const svc = kube("a.ns1.svc.cluster.local", {
    defaultAddress: "10.0.0.1",
    clusterVIPs: { addresses: { c1: ["2001:db8::1", "10.0.0.9"], c2: ["10.0.0.2"] } },
  });
  assert.deepEqual(addressesForProxy(svc, input([svc])), ["10.0.0.9"]);
  const v6 = input([svc], { proxy: { ipAddresses: ["2001:db8::5"], clusterID: "c1" } });
  assert.deepEqual(addressesForProxy(svc, v6), ["2001:db8::1"]);
  const elsewhere = input([svc], { proxy: { ipAddresses: ["10.1.1.1"], clusterID: "c3" } });
  assert.deepEqual(addressesForProxy(svc, elsewhere), ["10.0.0.1"]);
  // Dual-stack proxy without the dual-stack feature: the first address's family.
  const dual = input([svc], { proxy: { ipAddresses: ["10.1.1.1", "2001:db8::5"], clusterID: "c1" } });
  assert.deepEqual(addressesForProxy(svc, dual), ["2001:db8::1"]);
});

test("MCS hosts (clusterset.local) carry no short name; unready endpoints are left out unless published", () => {
  const mcs = kube("a.ns1.svc.clusterset.local", { defaultAddress: "10.0.0.3" });
  const headless = kube("h.ns1.svc.cluster.local", { defaultAddress: "0.0.0.0", resolution: "Passthrough" });
  const table = buildNameTable(
    input([mcs, headless], {
      endpoints: {
        "ns1/h.ns1.svc.cluster.local": {
          "80": [
            { addresses: ["10.2.0.1"], healthStatus: "Healthy" },
            { addresses: ["10.2.0.2"], healthStatus: "UnHealthy" },
            { addresses: ["not-an-ip"], healthStatus: "Healthy" },
          ],
        },
      },
    }),
  );
  assert.deepEqual(table.table, {
    "a.ns1.svc.clusterset.local": { ips: ["10.0.0.3"], registry: "Kubernetes" },
    "h.ns1.svc.cluster.local": { ips: ["10.2.0.1"], registry: "Kubernetes", shortname: "h", namespace: "ns1" },
  });
});

test("a headless service with no usable endpoint has no entry; nor has one without ports", () => {
  const headless = kube("h.ns1.svc.cluster.local", { defaultAddress: "0.0.0.0", resolution: "Passthrough" });
  assert.deepEqual(buildNameTable(input([headless])).table, {});
  const portless = { ...headless, ports: [] };
  const endpoints = { "ns1/h.ns1.svc.cluster.local": { "80": [{ addresses: ["10.2.0.1"] }] } };
  assert.deepEqual(buildNameTable(input([portless], { endpoints })).table, {});
});
