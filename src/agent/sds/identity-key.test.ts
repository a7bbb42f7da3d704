/**
 * The workload key and CSR as Istio's GenCSR makes them, read back by `openssl` (not by the x509
 * library that wrote them): ECC_SIGNATURE_ALGORITHM / ECC_CURVE, PKCS8_KEY, WORKLOAD_RSA_KEY_SIZE
 * and their errors; and the rotation delay with SECRET_GRACE_PERIOD_RATIO_JITTER.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { generateCsr } from "./identity-key.js";
import { rotateTime } from "./workload-secrets.js";

const ID = "spiffe://cluster.local/ns/ns1/sa/sa1";
const openssl = (args: string[], input: string) =>
  execFileSync("openssl", args, { input, stdio: ["pipe", "pipe", "ignore"] }).toString();

test("ECDSA on P384 (signed with SHA-384), P-256 otherwise; the SAN is critical", async () => {
  for (const [curve, oid, hash] of [
    ["P384", "secp384r1", "ecdsa-with-SHA384"],
    ["P256", "prime256v1", "ecdsa-with-SHA256"],
    ["P521", "prime256v1", "ecdsa-with-SHA256"],
  ] as const) {
    const { csrPem, privateKeyPem } = await generateCsr({
      spiffeId: ID,
      ecSignatureAlgorithm: "ECDSA",
      eccCurve: curve,
      rsaKeySize: 2048,
      pkcs8: false,
    });
    const text = openssl(["req", "-noout", "-text", "-verify"], csrPem);
    assert.match(text, new RegExp(`ASN1 OID: ${oid}`), curve);
    assert.match(text, new RegExp(`Signature Algorithm: ${hash}`), curve);
    assert.match(text, /X509v3 Subject Alternative Name: critical\s+URI:spiffe:\/\/cluster.local\/ns\/ns1\/sa\/sa1/);
    assert.match(openssl(["req", "-noout", "-subject"], csrPem), /^subject=O = \s*$/);
    assert.match(privateKeyPem, /^-----BEGIN EC PRIVATE KEY-----/);
  }
});

test("RSA by default (PKCS#1, or PKCS#8 with PKCS8_KEY); below 2048 bits and unknown algorithms fail", async () => {
  const rsa = await generateCsr({
    spiffeId: ID,
    ecSignatureAlgorithm: "",
    eccCurve: "P256",
    rsaKeySize: 3072,
    pkcs8: false,
  });
  assert.match(openssl(["req", "-noout", "-text"], rsa.csrPem), /Public-Key: \(3072 bit\)/);
  assert.match(rsa.privateKeyPem, /^-----BEGIN RSA PRIVATE KEY-----/);
  const p8 = await generateCsr({
    spiffeId: ID,
    ecSignatureAlgorithm: "ECDSA",
    eccCurve: "P256",
    rsaKeySize: 2048,
    pkcs8: true,
  });
  assert.match(p8.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/);
  assert.match(openssl(["pkey", "-noout", "-text"], p8.privateKeyPem), /prime256v1/);
  await assert.rejects(
    generateCsr({ spiffeId: ID, ecSignatureAlgorithm: "", eccCurve: "", rsaKeySize: 1024, pkcs8: false }),
    /requested key size does not meet the minimum required size of 2048 \(requested: 1024\)/,
  );
  await assert.rejects(
    generateCsr({ spiffeId: ID, ecSignatureAlgorithm: "ED25519", eccCurve: "", rsaKeySize: 2048, pkcs8: false }),
    /unsupported EC signature algorithm/,
  );
});

test("rotateTime: the grace ratio moved by up to ± the jitter, clamped to [0, 1]", () => {
  const item = { createdTime: 0, expireTime: 100_000 };
  // random() draws: the jitter's size, then its sign (< 0.5 down, ≥ 0.5 up).
  const draws =
    (...v: number[]) =>
    () =>
      v.shift() ?? 0;
  assert.equal(rotateTime(item, 0.5, 0, 0, draws(0.9, 0.9)), 50_000);
  assert.equal(rotateTime(item, 0.5, 0.1, 0, draws(1, 0.9)), 40_000); // ratio 0.6: rotate earlier
  assert.equal(rotateTime(item, 0.5, 0.1, 0, draws(1, 0.1)), 60_000); // ratio 0.4: later
  assert.equal(rotateTime(item, 0.95, 0.1, 0, draws(1, 0.9)), 0); // clamped at 1
  assert.equal(rotateTime(item, 0.5, 0, 70_000, draws(0, 0)), 0, "past the point: now");
});
