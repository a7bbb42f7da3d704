// The serving certificate: the self-signed generator and the checks a new certificate/key pair must pass.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { test } from "node:test";
import { checkPair, TLS_MIN_VERSION, TlsError } from "./tls.js";
import { selfSignedCertificate } from "./tls-self-signed.js";

test("self-signed certificate: names, validity, serverAuth, verifies against itself", () => {
  const pair = selfSignedCertificate({ hosts: ["localhost", "127.0.0.1", "::1", "istiod.istio-system.svc"], days: 10 });
  const cert = new X509Certificate(pair.cert);
  assert.equal(cert.subject, "CN=localhost");
  assert.equal(
    cert.subjectAltName,
    "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:istiod.istio-system.svc",
  );
  assert.ok(cert.verify(cert.publicKey));
  assert.ok(cert.checkHost("istiod.istio-system.svc"));
  assert.ok(cert.checkIP("127.0.0.1"));
  const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
  assert.equal(Math.round(days), 10);
  assert.ok(Date.parse(cert.validFrom) <= Date.now());
});

test("self-signed certificate: dates past 2049 use GeneralizedTime", () => {
  const pair = selfSignedCertificate({ hosts: ["a.example"], now: new Date("2049-12-01T00:00:00Z"), days: 90 });
  const cert = new X509Certificate(pair.cert);
  assert.equal(new Date(cert.validTo).getUTCFullYear(), 2050);
});

test("checkPair accepts a matching pair and sets TLS 1.2 as the minimum", () => {
  const pair = selfSignedCertificate({ hosts: ["localhost"] });
  const checked = checkPair(pair);
  assert.equal(checked.context.minVersion, TLS_MIN_VERSION);
  assert.equal(TLS_MIN_VERSION, "TLSv1.2");
});

test("checkPair refuses garbage, a key of another certificate, and an expired certificate", () => {
  const a = selfSignedCertificate({ hosts: ["localhost"] });
  const b = selfSignedCertificate({ hosts: ["localhost"] });
  assert.throws(
    () => checkPair({ cert: "nope", key: a.key }, "x"),
    (e) => e instanceof TlsError && /does not parse/.test(e.message),
  );
  assert.throws(() => checkPair({ cert: a.cert, key: "nope" }, "x"), /private key does not parse/);
  assert.throws(() => checkPair({ cert: a.cert, key: b.key }, "x"), /does not belong/);
  const old = selfSignedCertificate({ hosts: ["localhost"], now: new Date("2020-01-01T00:00:00Z"), days: 1 });
  assert.throws(() => checkPair(old, "x"), /expired/);
});
