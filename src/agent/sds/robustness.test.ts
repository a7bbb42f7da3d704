/**
 * Malformed input never takes the SDS side down: the CA-answer check turns any value into a chain or
 * a one-line CaResponseError (fast-check), and undecodable frames on the SDS socket end that stream
 * with an error and are counted while an SDS client is still served.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { createTestCa } from "../testing/pki.js";
import { sendRawFrames } from "../testing/raw-stream.js";
import { CaResponseError, checkCertChain } from "./ca-client.js";
import { startSdsServer } from "./server.js";
import { sdsClient } from "./testing/sds-client.js";

test("checkCertChain: any answer gives a chain or a CaResponseError", () => {
  const pem = fc.constantFrom("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "x", "");
  fc.assert(
    fc.property(
      fc.oneof(fc.anything(), fc.record({ certChain: fc.array(fc.oneof(pem, fc.string(), fc.integer())) })),
      (answer) => {
        try {
          checkCertChain(answer);
        } catch (error) {
          assert.ok(error instanceof CaResponseError, String(error));
        }
      },
    ),
    { numRuns: 1000 },
  );
});

test("undecodable SDS frames are counted; the server keeps serving", async () => {
  const pki = await createTestCa();
  const root = mkdtempSync(join(tmpdir(), "meshinject-sds-bad-"));
  const certs = join(root, "etc/certs");
  mkdirSync(certs, { recursive: true });
  writeFileSync(join(certs, "cert-chain.pem"), pki.serving.certPem);
  writeFileSync(join(certs, "key.pem"), pki.serving.keyPem);
  writeFileSync(join(certs, "root-cert.pem"), pki.rootPem);
  const sds = await startSdsServer({ root, trustDomain: "cluster.local", namespace: "ns1", serviceAccount: "sa1" });
  try {
    const frames = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 64 }), 20);
    frames.push(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    for (const method of ["StreamSecrets", "DeltaSecrets"])
      await sendRawFrames(
        `unix:${sds.socketPath}`,
        `/envoy.service.secret.v3.SecretDiscoveryService/${method}`,
        frames,
      );
    assert.ok(sds.stats().malformed >= 1);
    const client = sdsClient(sds.socketPath, ["ROOTCA"]);
    await client.waitFor(1);
    assert.equal(client.responses[0]?.secrets[0]?.rootCertPem, pki.rootPem);
    client.close();
  } finally {
    await sds.close();
    rmSync(root, { recursive: true, force: true });
  }
});
