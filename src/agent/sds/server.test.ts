/**
 * The SDS server against a fake CA of ours over real TLS and an SDS client on the real Unix socket:
 * the first certificate carries the pod's SPIFFE ID and the token/ClusterID headers reach the CA;
 * rotation at the grace ratio is pushed without asking; a CA down at start is retried and readiness
 * waits; a CA answering garbage keeps the old certificate; file-mounted certificates win.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CA_ROOT_CERT, TOKEN_PATH } from "../istiod-channel.js";
import { SILENT_LOG } from "../process/log.js";
import { until } from "../testing/until.js";
import { type SdsServerOptions, startSdsServer } from "./server.js";
import { type FakeCa, startFakeCa } from "./testing/fake-ca.js";
import { sdsClient } from "./testing/sds-client.js";

const TOKEN = "header.payload.signature-secret-token";

function podRoot(rootPem: string): string {
  const root = mkdtempSync(join(tmpdir(), "meshinject-sds-"));
  for (const [rel, text] of [
    [TOKEN_PATH, TOKEN],
    [CA_ROOT_CERT, rootPem],
  ] as const) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

function options(root: string, ca: FakeCa, extra: Partial<SdsServerOptions> = {}): SdsServerOptions {
  return {
    root,
    ca: { address: ca.address, clusterId: "Kubernetes", serverName: "istiod.istio-system.svc" },
    trustDomain: "cluster.local",
    namespace: "ns1",
    serviceAccount: "sa1",
    retryInitialMs: 50,
    retryMaxMs: 400,
    ...extra,
  };
}

describe("SDS server with a fake CA", () => {
  let ca: FakeCa;
  const roots: string[] = [];
  before(async () => {
    ca = await startFakeCa({ ttlMs: 4000 });
  });
  after(async () => {
    await ca.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  test("serves default and ROOTCA, pushes the rotated certificate, socket owner-only", async () => {
    ca.mode = "sign";
    const root = podRoot(ca.pki.rootPem);
    roots.push(root);
    const logs: string[] = [];
    const sds = await startSdsServer(
      options(root, ca, {
        log: { ...SILENT_LOG, info: (m) => logs.push(m), warn: (m) => logs.push(m), debug: (m) => logs.push(m) },
        ttlSeconds: 4,
      }),
    );
    try {
      assert.equal(statSync(sds.socketPath).mode & 0o777, 0o600);
      const client = sdsClient(sds.socketPath, ["default", "ROOTCA"]);
      await client.waitFor(1);
      const first = client.responses[0];
      assert.ok(first);
      const def = first.secrets.find((s) => s.name === "default");
      const rootca = first.secrets.find((s) => s.name === "ROOTCA");
      assert.ok(def?.certChainPem && def.privateKeyPem);
      assert.match(def.privateKeyPem, /BEGIN EC PRIVATE KEY/);
      const leaf = new X509Certificate(def.certChainPem);
      assert.equal(leaf.subjectAltName, "URI:spiffe://cluster.local/ns/ns1/sa/sa1");
      assert.ok(leaf.checkPrivateKey((await import("node:crypto")).createPrivateKey(def.privateKeyPem)));
      assert.equal(rootca?.rootCertPem?.trim(), ca.pki.rootPem.trim());
      const call = ca.calls.at(-1);
      assert.equal(call?.authorization, `Bearer ${TOKEN}`);
      assert.equal(call?.clusterId, "Kubernetes");
      assert.equal(call?.validityDuration, "4");
      assert.ok(sds.ready());
      // Rotation at half the 4 s life: a second response arrives unasked, with a new leaf.
      await client.waitFor(2, 8000);
      const second = client.responses[1]?.secrets.find((s) => s.name === "default");
      assert.ok(second?.certChainPem);
      assert.notEqual(new X509Certificate(second.certChainPem).serialNumber, leaf.serialNumber);
      assert.ok(sds.stats().pushes >= 1);
      assert.ok(!logs.some((l) => l.includes(TOKEN)), "the token is never logged");
      client.close();
    } finally {
      await sds.close();
    }
  });

  test("delta: subscribed secrets arrive and rotate", async () => {
    ca.mode = "sign";
    const root = podRoot(ca.pki.rootPem);
    roots.push(root);
    const sds = await startSdsServer(options(root, ca, { ttlSeconds: 4, keyType: "RSA" }));
    try {
      const client = sdsClient(sds.socketPath, ["default", "ROOTCA"], "delta");
      await client.waitFor(1);
      assert.deepEqual(client.responses[0]?.secrets.map((s) => s.name).sort(), ["ROOTCA", "default"]);
      assert.match(
        client.responses[0]?.secrets.find((s) => s.name === "default")?.privateKeyPem ?? "",
        /RSA PRIVATE KEY/,
      );
      await client.waitFor(2, 8000);
      // The root did not change, so only `default` is resent.
      assert.deepEqual(
        client.responses[1]?.secrets.map((s) => s.name),
        ["default"],
      );
      client.close();
    } finally {
      await sds.close();
    }
  });

  test("CA down at start: not ready, retried with backoff, ready once the CA is up", async () => {
    const pki = ca.pki;
    const late = await startFakeCa({ pki });
    const port = late.port;
    await late.close();
    const root = podRoot(pki.rootPem);
    roots.push(root);
    const sds = await startSdsServer(
      options(root, late, {
        ca: { address: `127.0.0.1:${port}`, clusterId: "c1", serverName: "localhost", timeoutMs: 500 },
      }),
    );
    try {
      const client = sdsClient(sds.socketPath, ["default"]);
      await until(() => sds.secrets.failures >= 2, "two failed attempts");
      assert.equal(sds.ready(), false);
      assert.match(sds.notReadyReason() ?? "", /not ready: CA client: create certificate/);
      assert.equal(client.responses.length, 0);
      const up = await startFakeCa({ pki, port });
      try {
        await client.waitFor(1, 8000);
        assert.ok(sds.ready());
      } finally {
        client.close();
        await up.close();
      }
    } finally {
      await sds.close();
    }
  });

  test("CA answering garbage: clear error, the old certificate kept", async () => {
    ca.mode = "sign";
    const root = podRoot(ca.pki.rootPem);
    roots.push(root);
    const logs: string[] = [];
    const sds = await startSdsServer(
      options(root, ca, {
        ttlSeconds: 2,
        log: { ...SILENT_LOG, info: (m) => logs.push(m), warn: (m) => logs.push(m), debug: (m) => logs.push(m) },
      }),
    );
    try {
      await until(() => sds.ready(), "first certificate");
      const kept = sds.secrets.current()?.certChainPem;
      ca.mode = "garbage";
      await until(() => sds.secrets.failures >= 1, "a failed rotation");
      assert.ok(logs.some((l) => /cert_chain\[0\] is not a PEM certificate; keeping the current certificate/.test(l)));
      assert.equal(sds.secrets.current()?.certChainPem, kept);
      ca.mode = "one-cert";
      await until(() => logs.some((l) => l.includes("invalid empty CertChain")), "one-cert error");
      assert.equal(sds.secrets.current()?.certChainPem, kept);
      assert.ok(sds.ready());
    } finally {
      ca.mode = "sign";
      await sds.close();
    }
  });

  test("file-mounted certificates are served instead of the CA's, and re-read when they change", async () => {
    const root = podRoot(ca.pki.rootPem);
    roots.push(root);
    const dir = join(root, "etc/certs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "cert-chain.pem"), ca.pki.serving.certPem);
    writeFileSync(join(dir, "key.pem"), ca.pki.serving.keyPem);
    writeFileSync(join(dir, "root-cert.pem"), ca.pki.rootPem);
    const before = ca.calls.length;
    const sds = await startSdsServer(options(root, ca, { fileWatchIntervalMs: 50 }));
    try {
      const client = sdsClient(sds.socketPath, ["default"]);
      await client.waitFor(1);
      assert.equal(client.responses[0]?.secrets[0]?.certChainPem, ca.pki.serving.certPem);
      assert.equal(ca.calls.length, before, "the CA is not asked");
      // A renewed file is pushed without Envoy asking.
      const renewed = `${ca.pki.serving.certPem}\n${ca.pki.rootPem}`;
      writeFileSync(join(dir, "cert-chain.pem"), renewed);
      await client.waitFor(2);
      assert.equal(client.responses[1]?.secrets[0]?.certChainPem, renewed);
      client.close();
    } finally {
      await sds.close();
    }
  });
});
