/**
 * The SDS resource names Istio's secret cache answers besides `default` and `ROOTCA`, and the two
 * answered independently: `file-root:<bundle>`, `file-cert:<chain>~<key>` (watched: a change is
 * pushed), `file-root:system` (the OS bundle; without one, the workload certificate), and names it
 * does not know (the workload certificate under that name). Decoded by protoc.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { until } from "../testing/until.js";
import { startSdsServer } from "./server.js";
import { sdsBed } from "./testing/bed.js";
import { testPod } from "./testing/pod.js";
import { sdsClient } from "./testing/sds-client.js";

const SPIFFE = "URI:spiffe://cluster.local/ns/ns1/sa/sa1";

describe("SDS resource names", () => {
  const bed = sdsBed(600_000);
  const { pods, servers } = bed;

  async function start(env: Record<string, string> = {}, caRootPath = "") {
    const pod = testPod(bed.ca.pki.rootPem, bed.ca.address);
    pods.push(pod);
    const security = { ...pod.security(env), caRootPath };
    const sds = await startSdsServer({ security, warmInitialMs: 50 });
    servers.push(sds);
    return { pod, sds };
  }

  test("file-root:<path> and file-cert:<chain>~<key> come from those files, and a change is pushed", async () => {
    const { pod, sds } = await start();
    const bundle = pod.write("certs/bundle.pem", bed.other.rootPem);
    const chain = pod.write("certs/chain.pem", bed.other.serving.certPem);
    const key = pod.write("certs/key.pem", bed.other.serving.keyPem);
    const rootName = `file-root:${bundle}`;
    const certName = `file-cert:${chain}~${key}`;
    const client = sdsClient(sds.socketPath, [rootName, certName]);
    await client.waitFor(1);
    const [r, c] = client.responses[0]?.secrets ?? [];
    assert.equal(r?.name, rootName);
    assert.equal(r?.rootCertPem?.trim(), bed.other.rootPem.trim());
    assert.equal(r?.certChainPem, undefined);
    assert.equal(c?.name, certName);
    assert.equal(c?.certChainPem, bed.other.serving.certPem);
    assert.equal(c?.privateKeyPem, bed.other.serving.keyPem);
    // The bundle is replaced: the new content is pushed under its name.
    writeFileSync(bundle, bed.ca.pki.rootPem);
    await until(
      () =>
        client.responses.some((x) =>
          x.secrets.some((s) => s.name === rootName && s.rootCertPem?.trim() === bed.ca.pki.rootPem.trim()),
        ),
      "the changed bundle pushed",
    );
    client.close();
  });

  test("file-root:system is the OS bundle; unknown and malformed names get the workload certificate", async () => {
    const osBundle = join(pods[0]?.root ?? "/nonexistent", "os-ca.pem");
    writeFileSync(osBundle, `${bed.other.rootPem}${bed.ca.pki.rootPem}`);
    const { sds } = await start({}, osBundle);
    const client = sdsClient(sds.socketPath, ["file-root:system", "my-gateway-cert", "file-cert:only-one-part"]);
    await client.waitFor(1);
    const [system, unknown, malformed] = client.responses[0]?.secrets ?? [];
    assert.equal(system?.name, "file-root:system");
    assert.equal(system?.rootCertPem?.match(/BEGIN CERTIFICATE/g)?.length, 2);
    for (const s of [unknown, malformed]) {
      assert.ok(s?.certChainPem && s.privateKeyPem, `${s?.name} carries a key pair`);
      assert.equal(new X509Certificate(s.certChainPem).subjectAltName, SPIFFE);
    }
    assert.deepEqual([unknown?.name, malformed?.name], ["my-gateway-cert", "file-cert:only-one-part"]);
    client.close();
    // Without an OS bundle, file-root:system is not a file secret: the workload certificate answers.
    const bare = await start();
    const c2 = sdsClient(bare.sds.socketPath, ["file-root:system"]);
    await c2.waitFor(1);
    assert.equal(new X509Certificate(c2.responses[0]?.secrets[0]?.certChainPem ?? "").subjectAltName, SPIFFE);
    c2.close();
  });

  test("default and ROOTCA are resolved independently: a mounted root-cert.pem alone serves ROOTCA", async () => {
    const pod = testPod(bed.ca.pki.rootPem, bed.ca.address);
    pods.push(pod);
    pod.write("etc/certs/root-cert.pem", bed.other.rootPem);
    const sds = await startSdsServer({ security: pod.security(), warmInitialMs: 50 });
    servers.push(sds);
    const client = sdsClient(sds.socketPath, ["default", "ROOTCA"]);
    await client.waitFor(1);
    const [def, root] = client.responses[0]?.secrets ?? [];
    assert.equal(new X509Certificate(def?.certChainPem ?? "").subjectAltName, SPIFFE, "default from the CA");
    assert.equal(root?.rootCertPem?.trim(), bed.other.rootPem.trim(), "ROOTCA from the mounted file");
    client.close();
  });

  test("OUTPUT_CERTS naming etc/certs: the mounted files are not read back, the CA is asked and they are replaced", async () => {
    const pod = testPod(bed.ca.pki.rootPem, bed.ca.address);
    pods.push(pod);
    for (const [f, text] of [
      ["cert-chain.pem", bed.other.serving.certPem],
      ["key.pem", bed.other.serving.keyPem],
      ["root-cert.pem", bed.other.rootPem],
    ])
      pod.write(`etc/certs/${f}`, text as string);
    const calls = bed.ca.calls.length;
    const sds = await startSdsServer({
      security: pod.security({ OUTPUT_CERTS: join(pod.root, "etc/certs") }),
      warmInitialMs: 50,
    });
    servers.push(sds);
    const client = sdsClient(sds.socketPath, ["default"]);
    await client.waitFor(1);
    assert.equal(new X509Certificate(client.responses[0]?.secrets[0]?.certChainPem ?? "").subjectAltName, SPIFFE);
    assert.ok(bed.ca.calls.length > calls);
    const served = client.responses[0]?.secrets[0]?.certChainPem;
    await until(
      () => readFileSync(join(pod.root, "etc/certs/cert-chain.pem"), "utf8") === served,
      "OUTPUT_CERTS written",
    );
    client.close();
  });

  test("FILE_MOUNTED_CERTS: no CA at all; the three files serve default and ROOTCA", async () => {
    const pod = testPod(bed.ca.pki.rootPem, "127.0.0.1:1");
    pods.push(pod);
    pod.write("etc/certs/cert-chain.pem", bed.other.serving.certPem);
    pod.write("etc/certs/key.pem", bed.other.serving.keyPem);
    pod.write("etc/certs/root-cert.pem", bed.other.rootPem);
    const sds = await startSdsServer({ security: pod.security({ FILE_MOUNTED_CERTS: "true" }) });
    servers.push(sds);
    const client = sdsClient(sds.socketPath, ["default", "ROOTCA"]);
    await client.waitFor(1);
    assert.equal(client.responses[0]?.secrets[0]?.certChainPem, bed.other.serving.certPem);
    assert.equal(client.responses[0]?.secrets[1]?.rootCertPem?.trim(), bed.other.rootPem.trim());
    // An unknown name has nothing to fall back on without a CA: the stream ends with that error.
    const unknown = sdsClient(sds.socketPath, ["gateway-cert"]);
    assert.match((await unknown.waitForEnd()).details, /attempted to fetch secret, but ca client is nil/);
    client.close();
  });

  test("ProxyConfig trust anchors (PCDS): ROOTCA pushed with them merged, default re-signed", async () => {
    const { sds } = await start();
    const client = sdsClient(sds.socketPath, ["default", "ROOTCA"]);
    await client.waitFor(1);
    const before = client.responses.length;
    const firstSerial = new X509Certificate(client.responses[0]?.secrets[0]?.certChainPem ?? "").serialNumber;
    sds.secrets.updateConfigTrustBundle(bed.other.rootPem);
    const roots = () =>
      client.responses
        .slice(before)
        .flatMap((r) => r.secrets)
        .filter((s) => s.name === "ROOTCA")
        .map((s) => s.rootCertPem ?? "");
    // (The first signing's own ROOTCA announcement may still arrive: wait for the merged one.)
    await until(() => roots().some((r) => r.includes(bed.other.rootPem.trim())), "ROOTCA pushed with the anchors");
    const merged = roots().find((r) => r.includes(bed.other.rootPem.trim()));
    assert.equal(merged?.match(/BEGIN CERTIFICATE/g)?.length, 2);
    assert.ok(merged?.includes(bed.ca.pki.rootPem.trim()));
    await until(
      () =>
        client.responses
          .slice(before)
          .flatMap((r) => r.secrets)
          .some((s) => s.name === "default" && new X509Certificate(s.certChainPem ?? "").serialNumber !== firstSerial),
      "default re-signed",
    );
    client.close();
  });
});
