/**
 * Without Envoy (DISABLE_ENVOY, proxyless gRPC) pilot-agent runs no SDS server but keeps the workload
 * certificate fresh, so OUTPUT_CERTS always holds a valid key, chain and root: written at start and
 * rewritten at each rotation. And the CRL of a plugged-in CA reaches Envoy by file name with ROOTCA.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { until } from "../testing/until.js";
import { CA_CRL_PATH, SDS_SOCKET, type SdsServer, startSdsServer } from "./server.js";
import { type FakeCa, startFakeCa } from "./testing/fake-ca.js";
import { type TestPod, testPod } from "./testing/pod.js";
import { sdsClient } from "./testing/sds-client.js";

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

describe("SDS without Envoy, and the CA's CRL", () => {
  let ca: FakeCa;
  const pods: TestPod[] = [];
  const servers: SdsServer[] = [];
  before(async () => {
    ca = await startFakeCa({ ttlMs: 3000 });
  });
  after(async () => {
    for (const s of servers) await s.close();
    await ca.close();
    for (const p of pods) p.remove();
  });

  test("DISABLE_ENVOY: no socket; OUTPUT_CERTS written and rewritten at each rotation", async () => {
    const pod = testPod(ca.pki.rootPem, ca.address);
    pods.push(pod);
    const out = join(pod.root, "out");
    mkdirSync(out);
    const sds = await startSdsServer({
      security: pod.security({ OUTPUT_CERTS: out }),
      proxyless: true,
      warmInitialMs: 50,
      random: () => 0.5,
    });
    servers.push(sds);
    assert.ok(!existsSync(join(pod.root, SDS_SOCKET)));
    await until(() => read(join(out, "root-cert.pem")) !== "", "OUTPUT_CERTS written");
    const first = new X509Certificate(read(join(out, "cert-chain.pem"))).serialNumber;
    assert.ok(
      new X509Certificate(read(join(out, "cert-chain.pem"))).checkPrivateKey(
        (await import("node:crypto")).createPrivateKey(read(join(out, "key.pem"))),
      ),
    );
    await until(
      () => {
        const chain = read(join(out, "cert-chain.pem"));
        return chain !== "" && new X509Certificate(chain).serialNumber !== first;
      },
      "the rotated certificate written",
      15_000,
    );
  });

  test("a CRL at /var/run/secrets/istio/crl/ca-crl.pem is named in ROOTCA's validation context", async () => {
    const pod = testPod(ca.pki.rootPem, ca.address);
    pods.push(pod);
    pod.write(CA_CRL_PATH, "-----BEGIN X509 CRL-----\n-----END X509 CRL-----\n");
    const sds = await startSdsServer({ security: pod.security(), warmInitialMs: 50 });
    servers.push(sds);
    const client = sdsClient(sds.socketPath, ["ROOTCA"]);
    await client.waitFor(1);
    assert.equal(client.responses[0]?.secrets[0]?.crlFile, join(pod.root, CA_CRL_PATH));
    client.close();
    const pod2 = testPod(ca.pki.rootPem, ca.address);
    pods.push(pod2);
    pod2.write(CA_CRL_PATH, "-----BEGIN X509 CRL-----\n-----END X509 CRL-----\n");
    const off = await startSdsServer({ security: pod2.security({ PILOT_ENABLE_CA_CRL: "false" }), warmInitialMs: 50 });
    servers.push(off);
    const c2 = sdsClient(off.socketPath, ["ROOTCA"]);
    await c2.waitFor(1);
    assert.equal(c2.responses[0]?.secrets[0]?.crlFile, undefined);
    c2.close();
  });
});
