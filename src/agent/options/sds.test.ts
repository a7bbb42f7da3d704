import assert from "node:assert/strict";
import { test } from "node:test";
import { securityOptionsFromEnv } from "./sds.js";

const agent = { root: "/r", discoveryAddress: "istiod.istio-system.svc:15012", exists: () => false };

test("securityOptionsFromEnv: Istio's defaults (an empty ClusterID, namespace and account)", () => {
  const o = securityOptionsFromEnv({}, agent);
  assert.equal(o.caEndpoint, "istiod.istio-system.svc:15012");
  assert.deepEqual(
    [o.clusterId, o.workloadNamespace, o.serviceAccount, o.outputKeyCertToDir, o.certSigner, o.caEndpointSan],
    ["", "", "", "", "", ""],
  );
  assert.deepEqual(
    [o.trustDomain, o.caProviderName, o.pilotCertProvider, o.credentialFetcherType, o.eccSigAlg, o.eccCurve],
    ["cluster.local", "Citadel", "istiod", "JWT", "", "P256"],
  );
  assert.deepEqual(
    [o.workloadRsaKeySize, o.pkcs8Keys, o.secretTtlSeconds, o.graceRatio, o.graceRatioJitter, o.fileDebounceMs],
    [2048, false, 86_400, 0.5, 0.01, 100],
  );
  assert.equal(o.jwtPath, "/r/var/run/secrets/tokens/istio-token");
  assert.equal(o.certChainFilePath, "/r/etc/certs/cert-chain.pem");
  assert.equal(o.enableCaCrl, true);
});

test("securityOptionsFromEnv: the variables; values that do not parse fall back as pkg/env does", () => {
  const o = securityOptionsFromEnv(
    {
      ISTIOD_SAN: "istiod.example",
      ISTIO_META_CLUSTER_ID: "c2",
      ECC_SIGNATURE_ALGORITHM: "ECDSA",
      ECC_CURVE: "P384",
      PKCS8_KEY: "true",
      SECRET_TTL: "1h30m",
      SECRET_GRACE_PERIOD_RATIO: "0.2",
      SECRET_GRACE_PERIOD_RATIO_JITTER: "0.05",
      CA_HEADER_X_Tenant: "t1",
      XDS_HEADER_X_Zone: "z1",
      CA_ROOT_CA: "SYSTEM",
      XDS_ROOT_CA: "/x/root.pem",
      ISTIO_META_CERT_SIGNER: "signer1",
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
    },
    agent,
  );
  assert.equal(o.caEndpointSan, "istiod.example", "CA_ADDR unset: the CA is istiod, named by ISTIOD_SAN");
  assert.deepEqual([o.clusterId, o.eccSigAlg, o.eccCurve, o.pkcs8Keys], ["c2", "ECDSA", "P384", true]);
  assert.deepEqual([o.secretTtlSeconds, o.graceRatio, o.graceRatioJitter], [5400, 0.2, 0.05]);
  assert.deepEqual(o.caHeaders, { X_Tenant: "t1" });
  assert.deepEqual(o.xdsHeaders, { X_Zone: "z1" });
  assert.deepEqual(
    [o.caRootCerts, o.xdsRootCerts, o.certSigner, o.onKubernetes],
    ["SYSTEM", "/x/root.pem", "signer1", true],
  );
  const ca = securityOptionsFromEnv({ CA_ADDR: "ca:15012", ISTIOD_SAN: "istiod.example" }, agent);
  assert.deepEqual([ca.caEndpoint, ca.caEndpointSan], ["ca:15012", ""]);
  const bad = securityOptionsFromEnv(
    { SECRET_TTL: "soon", SECRET_GRACE_PERIOD_RATIO: "half", WORKLOAD_RSA_KEY_SIZE: "big", PKCS8_KEY: "yes" },
    agent,
  );
  assert.deepEqual(
    [bad.secretTtlSeconds, bad.graceRatio, bad.workloadRsaKeySize, bad.pkcs8Keys],
    [86_400, 0.5, 2048, false],
  );
  // A parseable value is taken as is, even where it will fail later (as in Istio).
  assert.equal(securityOptionsFromEnv({ WORKLOAD_RSA_KEY_SIZE: "512" }, agent).workloadRsaKeySize, 512);
});
