// The certificate lifecycle deploy/README.md walks, end to end over real TLS: issue (`meshinject
// certs`), renew with the same CA, rotate the CA with old and new in the caBundle, drop the old CA.
// At each step the serving pair is put where the Secret volume would be, the running webhook server
// reloads it, and a TLS client that trusts exactly the caBundle of the webhook configuration
// (`meshinject webhook-config --ca-bundle-file`, base64-decoded as the API server does) connects by
// the Service's DNS name, as the API server would.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCerts } from "../src/cli/certs.js";
import { webhookConfigOptions } from "../src/cli/webhook-config.js";
import { call } from "../src/webhook/https-client.js";
import { createLogger } from "../src/webhook/logging.js";
import { startServer } from "../src/webhook/server.js";
import { webhookConfiguration } from "../src/webhook/webhook-config.js";

const SERVICE_NAME = "istio-sidecar-injector.istio-system.svc";

describe("certificate lifecycle: issue, renew, rotate the CA", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-lifecycle-"));
  after(() => rm(dir, { recursive: true, force: true }));
  const volume = join(dir, "secret-volume");
  const certs = (name: string) => join(dir, name);

  /** `meshinject certs` with the README's flags (and the CA, for a renewal). */
  const issue = (outDir: string, ca?: string) =>
    runCerts({
      namespace: "istio-system",
      outDir,
      days: "90",
      keyType: "ecdsa",
      clusterDomain: "cluster.local",
      ...(ca === undefined ? {} : { caCert: join(ca, "ca.crt"), caKey: join(ca, "ca.key") }),
    });

  /** The CA bundle the API server would trust: webhook-config's caBundle for this PEM file, decoded. */
  async function caBundleOf(file: string): Promise<string> {
    const options = await webhookConfigOptions({
      revision: "",
      namespace: "istio-system",
      failurePolicy: "Fail",
      reinvocationPolicy: "Never",
      timeoutSeconds: "10",
      caBundleFile: file,
    });
    const config = webhookConfiguration(options) as { webhooks: { clientConfig: { caBundle: string } }[] };
    const bundles = new Set(config.webhooks.map((w) => w.clientConfig.caBundle));
    assert.equal(bundles.size, 1);
    return Buffer.from([...bundles][0] as string, "base64").toString("utf8");
  }

  /** Serves this pair from the "Secret volume", as a Secret update would. */
  async function mount(from: string): Promise<string> {
    await copyFile(join(from, "tls.key"), join(volume, "tls.key.new"));
    await copyFile(join(from, "tls.crt"), join(volume, "tls.crt.new"));
    await rename(join(volume, "tls.key.new"), join(volume, "tls.key"));
    await rename(join(volume, "tls.crt.new"), join(volume, "tls.crt"));
    return new X509Certificate(await readFile(join(from, "tls.crt"))).fingerprint256.replaceAll(":", "").toLowerCase();
  }

  await issue(certs("certs"));
  await mkdir(volume);
  await mount(certs("certs"));
  const server = await startServer({
    port: 0,
    host: "127.0.0.1",
    metricsPort: null,
    tls: { certFile: join(volume, "tls.crt"), keyFile: join(volume, "tls.key") },
    logger: createLogger({ level: "silent" }),
    defaultMetrics: false,
    watchIntervalMs: 60_000,
  });
  after(() => server.close());

  /** Connects as the API server does: verify against `ca`, by the Service's name; the served cert's fingerprint. */
  async function connect(ca: string): Promise<string> {
    const r = await call({
      port: server.port,
      host: "127.0.0.1",
      method: "GET",
      path: "/healthz",
      ca,
      servername: SERVICE_NAME,
    });
    assert.equal(r.status, 200);
    return r.fingerprint.replaceAll(":", "").toLowerCase();
  }

  /** Mounts the pair and waits for the server to serve it. */
  async function rollOut(from: string): Promise<string> {
    const want = await mount(from);
    await server.checkFiles();
    return want;
  }

  it("issue: the client trusting the caBundle connects; the CA outlives the serving certificate", async () => {
    const bundle = await caBundleOf(join(certs("certs"), "ca.crt"));
    assert.equal(await connect(bundle), await rollOut(certs("certs")));
    const ca = new X509Certificate(await readFile(join(certs("certs"), "ca.crt")));
    const leaf = new X509Certificate(await readFile(join(certs("certs"), "tls.crt")));
    assert.ok(new Date(ca.validTo).getTime() - new Date(leaf.validTo).getTime() > 9 * 365 * 86_400_000);
  });

  it("renew with the same CA: new serving certificate, the same caBundle still verifies it", async () => {
    const bundle = await caBundleOf(join(certs("certs"), "ca.crt"));
    const before = await connect(bundle);
    await issue(certs("renewed"), certs("certs"));
    assert.equal(
      await readFile(join(certs("renewed"), "ca.crt"), "utf8"),
      await readFile(join(certs("certs"), "ca.crt"), "utf8"),
    );
    const served = await rollOut(certs("renewed"));
    assert.equal(await connect(bundle), served);
    assert.notEqual(served, before);
  });

  it("rotate the CA: both CAs in the bundle, then the new serving certificate, then only the new CA", async () => {
    await issue(certs("ca2"));
    const both = join(dir, "bundle.pem");
    await writeFile(
      both,
      (await readFile(join(certs("certs"), "ca.crt"), "utf8")) + (await readFile(join(certs("ca2"), "ca.crt"), "utf8")),
    );
    const bundleBoth = await caBundleOf(both);
    const bundleOld = await caBundleOf(join(certs("certs"), "ca.crt"));
    const bundleNew = await caBundleOf(join(certs("ca2"), "ca.crt"));

    // 1. The bundle with both CAs is registered while the old serving certificate is served.
    assert.equal(await connect(bundleBoth), await rollOut(certs("renewed")));
    // 2. The serving certificate of the new CA is rolled out: the two-CA bundle verifies it.
    const served = await rollOut(certs("ca2"));
    assert.equal(await connect(bundleBoth), served);
    // 3. The old CA is dropped from the bundle.
    assert.equal(await connect(bundleNew), served);
    // The check is real: a client that trusts only the old CA refuses the new certificate.
    await assert.rejects(connect(bundleOld), /certificate|signature|issuer/i);
  });
});
