// The serving certificate: the self-signed generator and the checks a new certificate/key pair must pass.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { SecureContextOptions } from "node:tls";
import { checkPair, PAIR_RETRY, TlsError, type TlsPair, watchCertificate } from "./tls.js";
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
  assert.equal(checked.context.minVersion, "TLSv1.2");
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

/** A certificate watch on real files with a stand-in server that records what it was given. */
function certWatch(initial: TlsPair, onRetry?: (files: { certFile: string; keyFile: string }) => void) {
  const dir = mkdtempSync(join(tmpdir(), "meshinject-tls-"));
  const files = { certFile: join(dir, "tls.crt"), keyFile: join(dir, "tls.key") };
  writeFileSync(files.certFile, initial.cert);
  writeFileSync(files.keyFile, initial.key);
  const installed: string[] = [];
  const errors: string[] = [];
  let retries = 0;
  const server = { setSecureContext: (c: SecureContextOptions) => installed.push(String(c.cert)) };
  const watch = watchCertificate(
    server,
    files,
    initial,
    {
      onReload: () => {},
      onError: (e) => errors.push(e.message),
      onRetry: () => {
        retries++;
        onRetry?.(files);
      },
    },
    60_000,
  );
  const done = () => {
    watch.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { files, watch, installed, errors, retries: () => retries, done };
}

test("a new key read before its certificate is written is read again, not counted as an error", async () => {
  const first = selfSignedCertificate({ hosts: ["localhost"] });
  const second = selfSignedCertificate({ hosts: ["localhost"] });
  // The certificate lands while the watcher waits to re-read: the writer was caught half-way.
  const w = certWatch(first, (files) => writeFileSync(files.certFile, second.cert));
  try {
    writeFileSync(w.files.keyFile, second.key);
    await w.watch.check();
    assert.deepEqual(w.errors, []);
    assert.equal(w.retries(), 1);
    assert.deepEqual(w.installed, [second.cert]);
    await w.watch.check(); // the watcher now sees the settled files: already served, nothing to do
    assert.deepEqual(w.installed, [second.cert]);
    assert.deepEqual(w.errors, []);
  } finally {
    w.done();
  }
});

test("a pair that stays mismatched is refused once, after a bounded number of re-reads", async () => {
  const first = selfSignedCertificate({ hosts: ["localhost"] });
  const second = selfSignedCertificate({ hosts: ["localhost"] });
  const w = certWatch(first);
  try {
    writeFileSync(w.files.keyFile, second.key);
    await w.watch.check();
    assert.equal(w.retries(), PAIR_RETRY.attempts);
    assert.equal(w.errors.length, 1);
    assert.match(w.errors[0] ?? "", /does not belong/);
    assert.deepEqual(w.installed, [], "the old certificate keeps serving");
    await w.watch.check();
    assert.equal(w.errors.length, 1, "the same bad files are not counted again");
    // Fixed by writing the matching certificate: installed.
    writeFileSync(w.files.certFile, second.cert);
    await w.watch.check();
    assert.deepEqual(w.installed, [second.cert]);
    assert.equal(w.errors.length, 1);
  } finally {
    w.done();
  }
});
