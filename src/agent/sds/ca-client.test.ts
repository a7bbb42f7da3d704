/**
 * The CA connection as pilot-agent makes it, against the protoc-decoding fake CA over real TLS:
 * ISTIOD_SAN as the TLS name, CA_ROOT_CA (a file, or SYSTEM: Go's system pool, here SSL_CERT_FILE),
 * CA_HEADER_*, ISTIO_META_CERT_SIGNER, the token (none when the file is missing), PROV_CERT's client
 * certificate, the root file re-read when the channel is rebuilt after a failure, and the start-up
 * refusals of CA_PROVIDER / CREDENTIAL_FETCHER_TYPE values Istio does not register.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CA_ROOT_CERT, tlsServerName } from "../istiod-channel.js";
import { createTestCa } from "../testing/pki.js";
import { createCaClient } from "./ca-client.js";
import { credentialFetcher } from "./credential-fetcher.js";
import { generateCsr } from "./identity-key.js";
import { caTls } from "./root-ca.js";
import type { SecurityOptions } from "./security-options.js";
import { startSdsServer } from "./server.js";
import { type FakeCa, startFakeCa } from "./testing/fake-ca.js";
import { type TestPod, TOKEN, testPod } from "./testing/pod.js";

const CSR = { ecSignatureAlgorithm: "ECDSA", eccCurve: "P256", rsaKeySize: 2048, pkcs8: false };
const ID = "spiffe://cluster.local/ns/ns1/sa/sa1";

function client(o: SecurityOptions) {
  return createCaClient({
    endpoint: o.caEndpoint,
    tls: caTls(o),
    clusterId: o.clusterId,
    headers: o.caHeaders,
    certSigner: o.certSigner,
    credentials: credentialFetcher(o.credentialFetcherType, o.jwtPath),
    retryBaseMs: 10,
  });
}

async function sign(o: SecurityOptions): Promise<string[]> {
  const ca = client(o);
  try {
    return await ca.csrSign((await generateCsr({ ...CSR, spiffeId: ID })).csrPem, 60);
  } finally {
    ca.close();
  }
}

describe("CA client", () => {
  let ca: FakeCa;
  const pods: TestPod[] = [];
  before(async () => {
    ca = await startFakeCa({ ttlMs: 60_000 });
  });
  after(async () => {
    await ca.close();
    for (const p of pods) p.remove();
  });
  const pod = (address = ca.address) => {
    const p = testPod(ca.pki.rootPem, address);
    pods.push(p);
    return p;
  };

  test("the server name: the address's host, istiod.istio-system.svc for localhost, ISTIOD_SAN over both", () => {
    assert.equal(tlsServerName("istiod.istio-system.svc:15012"), "istiod.istio-system.svc");
    assert.equal(tlsServerName("localhost:15012"), "istiod.istio-system.svc");
    assert.equal(tlsServerName("[::1]:15012"), "::1");
    assert.equal(tlsServerName("10.0.0.1:15012", "istiod.example"), "istiod.example");
  });

  test("ISTIOD_SAN names the CA (when CA_ADDR is unset): a name the certificate lacks fails", async () => {
    const p = pod();
    await sign(p.security({ ISTIOD_SAN: "istiod.istio-system.svc" }));
    await assert.rejects(
      sign(p.security({ ISTIOD_SAN: "not-istiod.example" })),
      /create certificate: rpc error: code = Unavailable/,
    );
  });

  test("headers and request: ClusterID, CA_HEADER_*, the token, CertSigner, the validity", async () => {
    const p = pod();
    await sign(
      p.security({ ISTIO_META_CLUSTER_ID: "c1", CA_HEADER_X_Tenant: "t1", ISTIO_META_CERT_SIGNER: "signer-a" }),
    );
    const call = ca.calls.at(-1);
    assert.equal(call?.clusterId, "c1");
    assert.equal(call?.metadata.x_tenant, "t1");
    assert.equal(call?.authorization, `Bearer ${TOKEN}`);
    assert.equal(call?.certSigner, "signer-a");
    assert.equal(call?.validityDuration, "60");
    // No token file: the call goes out without authorization (DefaultTokenProvider), it does not fail.
    rmSync(join(p.root, "var/run/secrets/tokens/istio-token"));
    await sign(p.security());
    assert.equal(ca.calls.at(-1)?.authorization, undefined);
    await sign(p.security({ CREDENTIAL_FETCHER_TYPE: "Mock" }));
    assert.equal(ca.calls.at(-1)?.authorization, "Bearer test_token");
  });

  test("CA_ROOT_CA: a named file; SYSTEM uses the system pool (SSL_CERT_FILE here) and not the mounted root", async () => {
    const p = pod();
    const custom = p.write("custom/root.pem", ca.pki.rootPem);
    p.write(CA_ROOT_CERT, (await createTestCa()).rootPem); // the default root is now wrong
    await assert.rejects(sign(p.security()), /Unavailable/);
    await sign(p.security({ CA_ROOT_CA: custom }));
    await sign(p.security({ CA_ROOT_CA: "SYSTEM", SSL_CERT_FILE: custom }));
    const unrelated = p.write("custom/other.pem", (await createTestCa()).rootPem);
    await assert.rejects(sign(p.security({ CA_ROOT_CA: "SYSTEM", SSL_CERT_FILE: unrelated })), /Unavailable/);
    assert.throws(
      () => caTls(p.security({ CA_ROOT_CA: join(p.root, "missing.pem") })),
      /root CA file for CA does not exist/,
    );
    assert.throws(() => caTls(p.security({ PILOT_CERT_PROVIDER: "none" })), /configured provider as none/);
    assert.equal(caTls(p.security({ CA_ADDR: "istiod.istio-system.svc:15010" })), undefined, ":15010 is plaintext");
  });

  test("PROV_CERT: its key and chain authenticate the caller, its root-cert.pem verifies the CA", async () => {
    const strict = await startFakeCa({ pki: ca.pki, ttlMs: 60_000, requestClientCert: true });
    try {
      const p = pod(strict.address);
      const { csrPem, privateKeyPem } = await generateCsr({ ...CSR, spiffeId: "spiffe://cluster.local/ns/vm/sa/vm1" });
      p.write("prov/key.pem", privateKeyPem);
      p.write("prov/cert-chain.pem", await ca.pki.signCsr(csrPem, 60_000));
      p.write("prov/root-cert.pem", ca.pki.rootPem);
      await sign(p.security({ PROV_CERT: join(p.root, "prov") }));
      assert.equal(strict.calls.at(-1)?.clientCertSan, "URI:spiffe://cluster.local/ns/vm/sa/vm1");
      // An expired provisioning certificate is left out (the token alone is tried): this CA refuses.
      p.write("prov/cert-chain.pem", await ca.pki.signCsr(csrPem, -1));
      await assert.rejects(sign(p.security({ PROV_CERT: join(p.root, "prov") })), /Unavailable/);
    } finally {
      await strict.close();
    }
  });

  test("a rotated root file is used once a failed call rebuilds the channel", async () => {
    const first = await startFakeCa({ ttlMs: 60_000 });
    const port = first.port;
    const p = testPod(first.pki.rootPem, first.address);
    pods.push(p);
    const c = client(p.security());
    const csr = async () => (await generateCsr({ ...CSR, spiffeId: ID })).csrPem;
    try {
      await c.csrSign(await csr(), 60);
      await first.close();
      const second = await startFakeCa({ ttlMs: 60_000, port }); // a new root
      try {
        p.write(CA_ROOT_CERT, second.pki.rootPem);
        let ok = false;
        for (let i = 0; i < 3 && !ok; i++)
          ok = await c.csrSign(await csr(), 60).then(
            () => true,
            () => false,
          );
        assert.ok(ok, "signed through the rebuilt channel");
      } finally {
        await second.close();
      }
    } finally {
      c.close();
    }
  });

  test("start-up refusals: unregistered CA_PROVIDER, googleapis.com CA, CREDENTIAL_FETCHER_TYPE, PROV_CERT with FILE_MOUNTED_CERTS", async () => {
    const p = pod();
    const start = (env: Record<string, string>) => startSdsServer({ security: p.security(env) }).then((s) => s.close());
    await assert.rejects(start({ CA_PROVIDER: "Vault" }), /CA provider "Vault" not registered/);
    await assert.rejects(start({ CA_ADDR: "meshca.googleapis.com:443" }), /CA provider "GoogleCA" not registered/);
    await assert.rejects(start({ CREDENTIAL_FETCHER_TYPE: "Kerberos" }), /invalid credential fetcher type Kerberos/);
    await assert.rejects(start({ PROV_CERT: "/x", FILE_MOUNTED_CERTS: "true" }), /mutually exclusive/);
    await assert.rejects(
      start({ CA_PROVIDER: "GkeWorkloadCertificate" }),
      /GKE workload certificate files .* not present/,
    );
  });
});
