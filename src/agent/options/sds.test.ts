import assert from "node:assert/strict";
import { test } from "node:test";
import { sdsOptionsFromEnv } from "./sds.js";

test("sdsOptionsFromEnv: Istio's defaults", () => {
  const o = sdsOptionsFromEnv({}, { root: "/r", discoveryAddress: "istiod.istio-system.svc:15012" });
  assert.deepEqual(o.ca, { address: "istiod.istio-system.svc:15012", clusterId: "Kubernetes" });
  assert.equal(o.trustDomain, "cluster.local");
  assert.equal(o.keyType, "RSA");
  assert.equal(o.rsaBits, 2048);
  assert.equal(o.ttlSeconds, 86_400);
  assert.equal(o.graceRatio, 0.5);
  assert.equal(o.fileCertsDir, "/r/etc/certs");
});

test("sdsOptionsFromEnv: the variables, and bad values falling back", () => {
  const o = sdsOptionsFromEnv(
    {
      CA_ADDR: "ca:15012",
      TRUST_DOMAIN: "td",
      SERVICE_ACCOUNT: "sa1",
      ECC_SIGNATURE_ALGORITHM: "ECDSA",
      SECRET_TTL: "1h30m",
      SECRET_GRACE_PERIOD_RATIO: "0.2",
      OUTPUT_CERTS: "/out",
    },
    { discoveryAddress: "x:1", namespace: "ns1", clusterId: "c2" },
  );
  assert.deepEqual(
    [o.ca?.address, o.ca?.clusterId, o.trustDomain, o.namespace, o.serviceAccount],
    ["ca:15012", "c2", "td", "ns1", "sa1"],
  );
  assert.deepEqual([o.keyType, o.ttlSeconds, o.graceRatio, o.fileCertsDir], ["ECDSA", 5400, 0.2, "/out"]);
  const warnings: string[] = [];
  const bad = sdsOptionsFromEnv(
    { SECRET_TTL: "soon", SECRET_GRACE_PERIOD_RATIO: "2", WORKLOAD_RSA_KEY_SIZE: "512" },
    { discoveryAddress: "x:1", warn: (w) => warnings.push(w) },
  );
  assert.deepEqual([bad.ttlSeconds, bad.graceRatio, bad.rsaBits], [86_400, 0.5, 2048]);
  // As Istio's pkg/env: a value that does not parse is named in a warning; the default is used.
  assert.deepEqual(warnings, [
    'env SECRET_TTL: invalid environment variable value "soon", expecting a duration, defaulting to 24h0m0s',
  ]);
});
