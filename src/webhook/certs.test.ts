import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { once } from "node:events";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { CertsError, createWebhookCerts, serviceDnsNames } from "./certs.js";

const NOW = new Date("2026-01-15T12:00:00Z");
const DAY = 24 * 60 * 60 * 1000;
const NAMES = [
  "istio-sidecar-injector",
  "istio-sidecar-injector.istio-system",
  "istio-sidecar-injector.istio-system.svc",
  "istio-sidecar-injector.istio-system.svc.cluster.local",
];

function sans(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? "").split(", ").map((s) => s.replace(/^DNS:/, ""));
}

describe("createWebhookCerts", () => {
  for (const keyType of ["ecdsa", "rsa"] as const) {
    it(`${keyType}: a CA and a serving certificate for the Service names, chained`, async () => {
      const r = await createWebhookCerts({
        service: "istio-sidecar-injector",
        namespace: "istio-system",
        days: 90,
        now: NOW,
        keyType,
      });
      const ca = new X509Certificate(r.caCertPem);
      const leaf = new X509Certificate(r.certPem);
      assert.equal(ca.ca, true);
      assert.equal(leaf.ca, false);
      assert.deepEqual(sans(leaf), NAMES);
      assert.deepEqual(r.dnsNames, NAMES);
      assert.ok(leaf.checkIssued(ca));
      assert.ok(leaf.verify(ca.publicKey));
      assert.ok(ca.verify(ca.publicKey));
      assert.ok(leaf.checkPrivateKey(createPrivateKey(r.keyPem)));
      assert.ok(ca.checkPrivateKey(createPrivateKey(r.caKeyPem ?? "")));
      assert.equal(new Date(leaf.validFrom).getTime(), NOW.getTime() - 5 * 60 * 1000);
      assert.equal(new Date(leaf.validTo).getTime(), NOW.getTime() + 90 * DAY);
      assert.deepEqual(leaf.keyUsage, ["1.3.6.1.5.5.7.3.1"]);
      assert.match(r.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    });
  }

  it("the CA lives ten years, the serving certificate the days asked; a CA must outlive it", async () => {
    const c = await createWebhookCerts({ service: "svc", namespace: "ns", days: 90, now: NOW });
    const days = (pem: string) =>
      Math.round((new Date(new X509Certificate(pem).validTo).getTime() - NOW.getTime()) / 86_400_000);
    assert.equal(days(c.caCertPem), 3650);
    assert.equal(days(c.certPem), 90);
    assert.equal(Math.round((c.caNotAfter.getTime() - NOW.getTime()) / 86_400_000), 3650);
    await assert.rejects(
      createWebhookCerts({ service: "svc", namespace: "ns", days: 90, caDays: 30, now: NOW }),
      /must outlive/,
    );
  });

  it("reuses a CA: same issuer, no new CA key", async () => {
    const first = await createWebhookCerts({ service: "svc", namespace: "ns", days: 365, now: NOW });
    const second = await createWebhookCerts({
      service: "svc",
      namespace: "ns",
      days: 30,
      now: NOW,
      keyType: "rsa",
      ca: { certPem: first.caCertPem, keyPem: first.caKeyPem ?? "" },
    });
    assert.equal(second.caCertPem, first.caCertPem);
    assert.equal(second.caKeyPem, undefined);
    const ca = new X509Certificate(first.caCertPem);
    assert.ok(new X509Certificate(second.certPem).verify(ca.publicKey));
    await assert.rejects(
      createWebhookCerts({
        service: "svc",
        namespace: "ns",
        days: 3651,
        now: NOW,
        ca: { certPem: first.caCertPem, keyPem: first.caKeyPem ?? "" },
      }),
      /CA expires .* ask for at most 3650 days, or rotate the CA/,
    );
    // A CA kept for a year's certificate (as before CA lifetimes were split) cannot sign past itself.
    const short = await createWebhookCerts({ service: "svc", namespace: "ns", days: 365, caDays: 365, now: NOW });
    await assert.rejects(
      createWebhookCerts({
        service: "svc",
        namespace: "ns",
        days: 90,
        now: new Date(NOW.getTime() + 300 * 86_400_000),
        ca: { certPem: short.caCertPem, keyPem: short.caKeyPem ?? "" },
      }),
      /ask for at most 65 days/,
    );
    await assert.rejects(
      createWebhookCerts({
        service: "svc",
        namespace: "ns",
        days: 1,
        now: NOW,
        ca: { certPem: first.certPem, keyPem: first.keyPem },
      }),
      /not a CA/,
    );
  });

  it("a TLS client trusting only the CA accepts the server for the Service name", async () => {
    const r = await createWebhookCerts({ service: "svc", namespace: "ns", days: 1, now: new Date() });
    const server = createServer({ cert: r.certPem, key: r.keyPem }, (_req, res) => res.end("ok"));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port, servername: "svc.ns.svc", ca: r.caCertPem, path: "/" },
          (res) => {
            let text = "";
            res.on("data", (c: Buffer) => {
              text += c.toString();
            });
            res.on("end", () => resolve(text));
          },
        );
        req.on("error", reject);
        req.end();
      });
      assert.equal(body, "ok");
    } finally {
      server.close();
    }
  });

  it("refuses bad names and validity", async () => {
    assert.throws(() => serviceDnsNames("Svc", "ns"), CertsError);
    assert.throws(() => serviceDnsNames("svc", "ns", "bad_domain"), CertsError);
    assert.deepEqual(serviceDnsNames("a", "b", "example.org").at(-1), "a.b.svc.example.org");
    await assert.rejects(createWebhookCerts({ service: "svc", namespace: "ns", days: 0, now: NOW }), CertsError);
    await assert.rejects(
      createWebhookCerts({ service: "svc", namespace: "ns", days: 1, now: NOW, keyType: "dsa" as never }),
      CertsError,
    );
  });
});
