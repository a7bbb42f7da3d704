// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// Certificates are random, so they are checked by parsing them with node's X509Certificate; error
// texts were captured from the Go oracle (Go 1.19 + Sprig 3.2.3).
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { test } from "node:test";
import { GoError, typeName } from "../../go/value.js";
import { certsFuncs, type SprigCertificate } from "./certs.js";
import { cryptoFuncs } from "./crypto.js";

const call = (name: string, ...args: unknown[]) => certsFuncs[name]!.fn(...args) as SprigCertificate;
const x509 = (c: SprigCertificate) => new X509Certificate(c.goField("Cert") as string);
const goError = (message: string) => (e: unknown) => e instanceof GoError && e.message === message;
const DAY = 86_400_000;

test("declares Go signatures", () => {
  assert.deepEqual(certsFuncs.genCA!.params, ["string", "int"]);
  assert.deepEqual(certsFuncs.genSignedCertWithKey!.params, [
    "string",
    "[]interface {}",
    "[]interface {}",
    "int",
    "sprig.certificate",
    "string",
  ]);
});

const ca = call("genCA", "my-ca", 365n);

test("genCA: a self-signed CA with an RSA 2048 key", () => {
  assert.equal(typeName(ca), "sprig.certificate");
  assert.deepEqual(
    ca.goFields().map(([k]) => k),
    ["Cert", "Key"],
  );
  const cert = x509(ca);
  assert.equal(cert.subject, "CN=my-ca");
  assert.equal(cert.issuer, "CN=my-ca");
  assert.ok(cert.ca);
  assert.ok(cert.verify(cert.publicKey));
  const key = createPrivateKey(ca.goField("Key") as string);
  assert.ok((ca.goField("Key") as string).startsWith("-----BEGIN RSA PRIVATE KEY-----\n"));
  assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
  assert.ok(cert.checkPrivateKey(key));
  const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / DAY;
  assert.equal(days, 365);
});

test("genSignedCert: signed by the CA, with SANs and server/client usages", () => {
  const leaf = call(
    "genSignedCert",
    "leaf",
    ["10.0.0.1", "::1", "::ffff:1.2.3.4"],
    ["a.example", "b.example"],
    30n,
    ca,
  );
  const cert = x509(leaf);
  assert.equal(cert.subject, "CN=leaf");
  assert.equal(cert.issuer, "CN=my-ca");
  assert.equal(cert.ca, false);
  assert.ok(cert.checkIssued(x509(ca)));
  assert.ok(cert.verify(x509(ca).publicKey));
  assert.equal(
    cert.subjectAltName,
    "DNS:a.example, DNS:b.example, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:1.2.3.4",
  );
  assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
  assert.ok(cert.checkPrivateKey(createPrivateKey(leaf.goField("Key") as string)));
});

test("genSelfSignedCert", () => {
  const cert = x509(call("genSelfSignedCert", "self", ["1.2.3.4"], null, 10n));
  assert.equal(cert.subject, "CN=self");
  assert.equal(cert.issuer, "CN=self");
  assert.equal(cert.ca, false);
  assert.equal(cert.subjectAltName, "IP Address:1.2.3.4");
  assert.ok(cert.verify(cert.publicKey));
});

test("...WithKey variants keep the given key (ECDSA and Ed25519 too)", () => {
  for (const type of ["ecdsa", "ed25519"]) {
    const pem = cryptoFuncs.genPrivateKey!.fn(type) as string;
    const own = call("genCAWithKey", `ca-${type}`, 1n, pem);
    assert.equal(own.goField("Key"), pem);
    assert.ok(x509(own).verify(x509(own).publicKey));
    const self = call("genSelfSignedCertWithKey", "s", null, ["s.example"], 1n, pem);
    assert.equal(x509(self).subjectAltName, "DNS:s.example");
    const signed = call("genSignedCertWithKey", "l", null, null, 1n, ca, pem);
    assert.equal(signed.goField("Key"), pem);
    assert.ok(x509(signed).verify(x509(ca).publicKey));
  }
});

test("buildCustomCert wraps an existing pair", () => {
  const b64 = (s: unknown) => Buffer.from(s as string).toString("base64");
  const built = call("buildCustomCert", b64(ca.goField("Cert")), b64(ca.goField("Key")));
  assert.equal(built.goField("Cert"), ca.goField("Cert"));
  assert.equal(built.goField("Key"), ca.goField("Key"));
  assert.throws(() => call("buildCustomCert", "!", "eA=="), goError("unable to decode base64 certificate"));
  assert.throws(() => call("buildCustomCert", "eA==", "!"), goError("unable to decode base64 private key"));
  assert.throws(() => call("buildCustomCert", "eA==", "eA=="), goError("unable to decode certificate"));
});

test("errors match Sprig's", () => {
  assert.throws(() => call("genCAWithKey", "x", 1n, "junk"), goError("parsing private key: no PEM data in input"));
  assert.throws(
    () => call("genCAWithKey", "x", 1n, "-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n"),
    goError("parsing private key: no private key data in PEM block of type FOO"),
  );
  assert.throws(
    () => call("genCAWithKey", "x", 1n, "-----BEGIN XX PRIVATE KEY-----\nAAAA\n-----END XX PRIVATE KEY-----\n"),
    goError("parsing private key: invalid private key type XX PRIVATE KEY"),
  );
  assert.throws(() => call("genSelfSignedCert", "x", [1n], null, 1n), goError("error parsing ip: 1 is not a string"));
  assert.throws(() => call("genSelfSignedCert", "x", ["1.2.3.04"], null, 1n), goError("error parsing ip: 1.2.3.04"));
  assert.throws(
    () => call("genSelfSignedCert", "x", null, [1.5], 1n),
    goError("error processing alternate dns name: 1.5 is not a string"),
  );
  assert.throws(
    () => call("genSelfSignedCert", "x", null, ["é.com"], 1n),
    goError('error creating certificate: x509: "é.com" cannot be encoded as an IA5String'),
  );
  const other = call("genCA", "other", 1n);
  const mismatched = certsFuncs.buildCustomCert!.fn(
    Buffer.from(ca.goField("Cert") as string).toString("base64"),
    Buffer.from(other.goField("Key") as string).toString("base64"),
  );
  assert.throws(
    () => call("genSignedCert", "x", null, null, 1n, mismatched),
    goError("error creating certificate: x509: provided PrivateKey doesn't match parent's PublicKey"),
  );
  const dsa = cryptoFuncs.genPrivateKey!.fn("dsa") as string;
  assert.throws(
    () => call("genCAWithKey", "x", 1n, dsa),
    goError("error creating certificate: x509: certificate private key does not implement crypto.Signer"),
  );
  assert.throws(
    () => call("genSignedCertWithKey", "x", null, null, 1n, ca, dsa),
    goError("error creating certificate: x509: unsupported public key type: *dsa.PublicKey"),
  );
});

test("a day count that overflows Go's Duration wraps as in Go", () => {
  // 1e6 days * 24h overflows int64 nanoseconds; Go then writes a NotAfter in 1842.
  const cert = x509(call("genSelfSignedCert", "x", null, null, 1_000_000n));
  assert.equal(new Date(cert.validTo).getUTCFullYear(), 1842);
});
