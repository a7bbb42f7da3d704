import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseInjectEnvs } from "./policy-inject-path.js";

describe("parseInjectEnvs", () => {
  it("reads key/value segments", () => {
    assert.deepEqual(parseInjectEnvs("/inject/net/n--slash--1/mesh_id/m1/odd"), {
      ISTIO_META_NETWORK: "n/1",
      MESH_ID: "m1",
    });
    assert.deepEqual(parseInjectEnvs("/inject"), {});
  });

  it("reads the :ENV: form, skipping entries without a name or '='", () => {
    assert.deepEqual(parseInjectEnvs("/inject/:ENV:net=a--slash--b:ENV:=x:ENV:novalue:ENV:empty="), {
      ISTIO_META_NETWORK: "a--slash--b",
      EMPTY: "",
    });
  });
});

// Istio pkg/kube/inject/webhook_test.go TestParseInjectEnvs: its table (URL-decoded paths as Go's
// http.NewRequest leaves them in req.URL.Path).
describe("parseInjectEnvs: Istio's TestParseInjectEnvs table", () => {
  const cases: Array<[string, string, Record<string, string>]> = [
    ["empty", "/", {}],
    ["no-kv", "/inject", {}],
    ["no-kv-with-tail", "/inject/", {}],
    ["one-kv", "/inject/cluster/cluster1", { ISTIO_META_CLUSTER_ID: "cluster1" }],
    [
      "two-kv",
      "/inject/cluster/cluster1/net/network1/",
      { ISTIO_META_CLUSTER_ID: "cluster1", ISTIO_META_NETWORK: "network1" },
    ],
    [
      "not-predefined-kv",
      "/inject/cluster/cluster1/custom_env/foo",
      { ISTIO_META_CLUSTER_ID: "cluster1", CUSTOM_ENV: "foo" },
    ],
    ["one-key-without-value", "/inject/cluster", {}],
    ["key-without-value", "/inject/cluster/cluster1/network", { ISTIO_META_CLUSTER_ID: "cluster1" }],
    [
      "key-with-values-contain-slashes",
      "/inject/:ENV:cluster=cluster2:ENV:rootpage=/foo/bar",
      { ISTIO_META_CLUSTER_ID: "cluster2", ROOTPAGE: "/foo/bar" },
    ],
    [
      "no-predefined-kv-with-values-contain-ENV-separator",
      "/inject/rootpage1/value1/rootpage2/:ENV:abcd=efgh",
      { ROOTPAGE1: "value1", ROOTPAGE2: ":ENV:abcd=efgh" },
    ],
    [
      "no-predefined-kv-with-values-contain-ENV-separator-invalid-format",
      "/inject/:ENV:rootpage1=efgh:ENV:=abb:ENV:=",
      { ROOTPAGE1: "efgh" },
    ],
    [
      "no-predefined-kv-with-mixed-values",
      decodeURIComponent("%2Finject%2Frootpage1%2Ffoo%2Frootpage2%2Fbar"),
      { ROOTPAGE1: "foo", ROOTPAGE2: "bar" },
    ],
    [
      "no-predefined-kv-with-slashes",
      decodeURIComponent("%2Finject%2F%3AENV%3Arootpage1%3D%2Ffoo%2Fbar%3AENV%3Arootpage2%3D%2Fbar%2Ftoe"),
      { ROOTPAGE1: "/foo/bar", ROOTPAGE2: "/bar/toe" },
    ],
  ];
  for (const [name, path, want] of cases) {
    it(name, () => assert.deepEqual(parseInjectEnvs(path), want));
  }
});
