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
