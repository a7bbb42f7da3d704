/**
 * The SDS server against a fake CA over real TLS, and an SDS client on the real Unix socket whose
 * requests and responses are encoded and decoded by protoc against Envoy's protos (not by the
 * protobufjs code under test). The fake CA decodes with protoc too.
 */
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { createTestCa } from "../testing/pki.js";
import { until } from "../testing/until.js";
import { type SdsServer, type SdsServerOptions, startSdsServer } from "./server.js";
import { type FakeCa, startFakeCa } from "./testing/fake-ca.js";
import { type TestPod, TOKEN, testPod } from "./testing/pod.js";
import { SECRET_TYPE, sdsClient } from "./testing/sds-client.js";

function readable(path: string): boolean {
  try {
    return readFileSync(path, "utf8").length > 0;
  } catch {
    return false;
  }
}

describe("SDS server with a fake CA", () => {
  let ca: FakeCa;
  const pods: TestPod[] = [];
  const servers: SdsServer[] = [];
  before(async () => {
    ca = await startFakeCa({ ttlMs: 4000 });
  });
  after(async () => {
    for (const s of servers) await s.close();
    await ca.close();
    for (const p of pods) p.remove();
  });

  async function start(
    env: Record<string, string> | ((pod: TestPod) => Record<string, string>) = {},
    extra: Partial<SdsServerOptions> = {},
    fake = ca,
  ) {
    fake.mode = "sign";
    const pod = testPod(fake.pki.rootPem, fake.address);
    pods.push(pod);
    const logs: string[] = [];
    const sds = await startSdsServer({
      security: pod.security({ SECRET_TTL: "4s", ...(typeof env === "function" ? env(pod) : env) }),
      caRetryBaseMs: 10,
      warmInitialMs: 50,
      log: {
        debug: (m) => logs.push(m),
        info: (m) => logs.push(m),
        warn: (m) => logs.push(m),
        error: (m) => logs.push(m),
      },
      ...extra,
    });
    servers.push(sds);
    return { pod, sds, logs };
  }

  test("responses carry type_url on the response and on every Any (protoc reads them as Secrets)", async () => {
    const { pod, sds, logs } = await start((p) => {
      mkdirSync(join(p.root, "out"));
      return { ECC_SIGNATURE_ALGORITHM: "ECDSA", OUTPUT_CERTS: join(p.root, "out") };
    });
    assert.equal(statSync(sds.socketPath).mode & 0o777, 0o600);
    const client = sdsClient(sds.socketPath, ["default", "ROOTCA"]);
    await client.waitFor(1);
    const first = client.responses[0];
    assert.ok(first);
    assert.equal(first.typeUrl, SECRET_TYPE);
    assert.deepEqual(
      first.secrets.map((s) => s.typeUrl),
      [SECRET_TYPE, SECRET_TYPE],
    );
    const def = first.secrets.find((s) => s.name === "default");
    const rootca = first.secrets.find((s) => s.name === "ROOTCA");
    assert.ok(def?.certChainPem && def.privateKeyPem);
    assert.match(def.privateKeyPem, /BEGIN EC PRIVATE KEY/);
    const leaf = new X509Certificate(def.certChainPem);
    assert.equal(leaf.subjectAltName, "URI:spiffe://cluster.local/ns/ns1/sa/sa1");
    assert.ok(leaf.checkPrivateKey(createPrivateKey(def.privateKeyPem)));
    assert.equal(rootca?.rootCertPem?.trim(), ca.pki.rootPem.trim());
    assert.match(first.version, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)\/\d+$/);
    const call = ca.calls.at(-1);
    assert.equal(call?.authorization, `Bearer ${TOKEN}`);
    assert.equal(call?.clusterId, "", "ISTIO_META_CLUSTER_ID unset: an empty ClusterID, as Istio sends");
    assert.equal(call?.certSigner, "", "metadata.CertSigner is always sent");
    assert.equal(call?.validityDuration, "4");
    assert.ok(!logs.some((l) => l.includes(TOKEN)), "the token is never logged");
    client.close();
    // OUTPUT_CERTS holds what was issued: the key and chain served, and the CA's root; owner-only off Kubernetes.
    const out = join(pod.root, "out");
    await until(() => readable(join(out, "root-cert.pem")), "OUTPUT_CERTS written");
    assert.equal(readFileSync(join(out, "cert-chain.pem"), "utf8"), def.certChainPem);
    assert.equal(readFileSync(join(out, "key.pem"), "utf8"), def.privateKeyPem);
    assert.equal(readFileSync(join(out, "root-cert.pem"), "utf8").trim(), ca.pki.rootPem.trim());
    assert.equal(statSync(join(out, "key.pem")).mode & 0o777, 0o600);
  });

  test("rotation clears the cache and pushes default; ROOTCA only when the root changed", async () => {
    const { sds } = await start({}, { random: () => 0.5 });
    const both = sdsClient(sds.socketPath, ["default", "ROOTCA"]);
    const rootOnly = sdsClient(sds.socketPath, ["ROOTCA"]);
    await both.waitFor(1);
    await rootOnly.waitFor(1);
    const serials = () =>
      both.responses.flatMap((r) =>
        r.secrets
          .filter((s) => s.name === "default")
          .map((s) => new X509Certificate(s.certChainPem ?? "").serialNumber),
      );
    // At half the 4 s life the cache is cleared and `default` pushed unasked, alone.
    await until(() => new Set(serials()).size >= 2, "a rotated certificate pushed", 10_000);
    const rotated = both.responses.at(-1);
    assert.deepEqual(
      rotated?.secrets.map((s) => s.name),
      ["default"],
    );
    const rootPushes = rootOnly.responses.length;
    await until(() => new Set(serials()).size >= 3, "a second rotation", 10_000);
    assert.equal(rootOnly.responses.length, rootPushes, "an unchanged root is not pushed");
    // A new root at the next rotation is pushed to the ROOTCA subscriber.
    const old = ca.pki;
    ca.pki = await createTestCa();
    try {
      await rootOnly.waitFor(rootPushes + 1, 10_000);
      assert.equal(rootOnly.responses.at(-1)?.secrets[0]?.rootCertPem?.trim(), ca.pki.rootPem.trim());
    } finally {
      ca.pki = old;
    }
    both.close();
    rootOnly.close();
  });

  test("CA down: the stream ends with the CA's error instead of waiting; served once the CA is up", async () => {
    const late = await startFakeCa({ pki: ca.pki });
    const port = late.port;
    await late.close();
    const { sds } = await start({}, {}, { ...late, address: `127.0.0.1:${port}` } as FakeCa);
    const client = sdsClient(sds.socketPath, ["default"]);
    const end = await client.waitForEnd();
    assert.equal(end.code, status.UNKNOWN);
    assert.match(
      end.details,
      /failed to generate secret for default: failed to generate workload certificate: create certificate: rpc error: code = Unavailable/,
    );
    assert.equal(client.responses.length, 0);
    const up = await startFakeCa({ pki: ca.pki, port });
    try {
      await until(() => sds.secrets.cachedWorkload() !== undefined, "the start-up retry got a certificate", 20_000);
      const again = sdsClient(sds.socketPath, ["default"]);
      await again.waitFor(1);
      again.close();
    } finally {
      client.close();
      await up.close();
    }
  });

  test("CA slow: no deadline on the call; streams opened meanwhile share one CSR", async () => {
    const slow = await startFakeCa({ pki: ca.pki, ttlMs: 60_000 });
    try {
      const { sds } = await start({}, {}, slow);
      slow.mode = "hold";
      await until(() => slow.calls.length === 1, "the start-up CSR reached the CA");
      const clients = Array.from({ length: 5 }, () => sdsClient(sds.socketPath, ["default"]));
      // Longer than any client-side deadline the agent could have (Istio sets none).
      await new Promise((r) => setTimeout(r, 11_000));
      slow.mode = "sign";
      slow.release();
      for (const c of clients) await c.waitFor(1, 20_000);
      assert.equal(slow.calls.length, 1, "one CSR for all of them");
      for (const c of clients) c.close();
    } finally {
      await slow.close();
    }
  });

  test("CA answering garbage at rotation: streams end with the error, nothing stale is served", async () => {
    const { sds } = await start({}, { random: () => 0.5 });
    const client = sdsClient(sds.socketPath, ["default"]);
    await client.waitFor(1);
    ca.mode = "garbage";
    try {
      const end = await client.waitForEnd();
      assert.match(end.details, /failed to extract expire time from server certificate in CSR response/);
      const fresh = sdsClient(sds.socketPath, ["default"]);
      const freshEnd = await fresh.waitForEnd();
      assert.equal(fresh.responses.length, 0, "the old certificate is not handed out after its rotation point");
      assert.match(freshEnd.details, /failed to generate secret for default/);
      ca.mode = "one-cert";
      const lone = sdsClient(sds.socketPath, ["default"]);
      assert.match((await lone.waitForEnd()).details, /invalid empty CertChain/);
    } finally {
      ca.mode = "sign";
    }
  });

  test("expiry while the CA is failing: no stream is ever served an expired certificate", async () => {
    const short = await startFakeCa({ pki: ca.pki, ttlMs: 2500 });
    try {
      const { sds } = await start({}, { random: () => 0.5 }, short);
      const first = sdsClient(sds.socketPath, ["default"]);
      await first.waitFor(1);
      const expiry = Date.parse(new X509Certificate(first.responses[0]?.secrets[0]?.certChainPem ?? "").validTo);
      short.mode = "refuse";
      while (Date.now() <= expiry + 1000) await new Promise((r) => setTimeout(r, 200));
      const late = sdsClient(sds.socketPath, ["default"]);
      const end = await late.waitForEnd();
      assert.match(end.details, /Unavailable/);
      for (const c of [first, late])
        for (const r of c.responses)
          for (const s of r.secrets) {
            const validTo = Date.parse(new X509Certificate(s.certChainPem ?? "").validTo);
            assert.ok(validTo > Date.now() - 60_000 || r === first.responses[0], "an expired certificate was served");
          }
      assert.equal(late.responses.length, 0);
      first.close();
    } finally {
      await short.close();
    }
  });
});
