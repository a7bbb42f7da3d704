/**
 * Malformed input never takes the SDS side down: the CA-answer check turns any value into a chain or
 * a one-line CaResponseError (fast-check), and undecodable frames on the SDS socket end that stream
 * with an error and are counted while an SDS client is still served; a stream without a node id is
 * refused, and DeltaSecrets / FetchSecrets answer Unimplemented, as Istio's do.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import fc from "fast-check";
import { createTestCa } from "../testing/pki.js";
import { sendRawFrames } from "../testing/raw-stream.js";
import { CaResponseError, checkCertChain } from "./ca-client.js";
import { startSdsServer } from "./server.js";
import { testPod } from "./testing/pod.js";
import { encodeDiscoveryRequest, sdsClient } from "./testing/sds-client.js";

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
  const pod = testPod(pki.rootPem, "127.0.0.1:1");
  pod.write("etc/certs/cert-chain.pem", pki.serving.certPem);
  pod.write("etc/certs/key.pem", pki.serving.keyPem);
  pod.write("etc/certs/root-cert.pem", pki.rootPem);
  const sds = await startSdsServer({ security: pod.security({ FILE_MOUNTED_CERTS: "true" }) });
  try {
    // A string (version_info) whose length runs past the frame's end: Go's proto.Unmarshal refuses it.
    const truncated = Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    await sendRawFrames(`unix:${sds.socketPath}`, "/envoy.service.secret.v3.SecretDiscoveryService/StreamSecrets", [
      truncated,
    ]);
    assert.equal(sds.stats().malformed, 1, "the truncated string is malformed");
    const frames = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 64 }), 20);
    frames.push(truncated);
    for (const method of ["StreamSecrets", "DeltaSecrets"])
      await sendRawFrames(
        `unix:${sds.socketPath}`,
        `/envoy.service.secret.v3.SecretDiscoveryService/${method}`,
        frames,
      );
    assert.ok(sds.stats().malformed >= 1);
    const client = sdsClient(sds.socketPath, ["ROOTCA"]);
    await client.waitFor(1);
    assert.equal(client.responses[0]?.secrets[0]?.rootCertPem, pki.rootPem.trim());
    client.close();
    // Istio's xds.Receive: the first request must name the node.
    const noNode = await sendRawFrames(
      `unix:${sds.socketPath}`,
      "/envoy.service.secret.v3.SecretDiscoveryService/StreamSecrets",
      [encodeDiscoveryRequest({ names: ["ROOTCA"] })],
    );
    assert.equal(noNode, status.INVALID_ARGUMENT);
    for (const method of ["DeltaSecrets", "FetchSecrets"])
      assert.equal(
        await sendRawFrames(`unix:${sds.socketPath}`, `/envoy.service.secret.v3.SecretDiscoveryService/${method}`, [
          encodeDiscoveryRequest({ node: true, names: ["ROOTCA"] }),
        ]),
        status.UNIMPLEMENTED,
        method,
      );
  } finally {
    await sds.close();
    pod.remove();
  }
});
