// Hot reload over real HTTPS: the serving certificate and the injector configuration (ConfigMap volume layout).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { defaultConfigFiles } from "../inject/defaults.js";
import { ConfigRejectedError } from "./config-watch.js";
import { call, postReview, metricValue as sample, scrapeMetrics as scrape } from "./https-client.js";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";
import { selfSignedCertificate } from "./tls-self-signed.js";

const EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8"));
const silent = createLogger({ level: "silent" });
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "meshinject-webhook-"));
  dirs.push(d);
  return d;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/**
 * Writes one version of a ConfigMap volume the way the kubelet does: new folder, `..data` swapped
 * atomically, links for new keys added, links of removed keys and the old folder deleted.
 */
let version = 0;
function writeConfigMapVolume(dir: string, files: Record<string, string>): void {
  version++;
  const stamp = `..2025_01_01_00_00_00.${version}`;
  const old = existsSync(join(dir, "..data")) ? readlinkSync(join(dir, "..data")) : undefined;
  mkdirSync(join(dir, stamp));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, stamp, name), text);
  symlinkSync(stamp, join(dir, "..data_tmp"));
  renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
  for (const name of Object.keys(files)) {
    if (!existsSync(join(dir, name))) symlinkSync(join("..data", name), join(dir, name));
  }
  for (const name of readdirSync(dir)) {
    if (!name.startsWith("..") && !(name in files)) rmSync(join(dir, name));
  }
  if (old !== undefined) rmSync(join(dir, old), { recursive: true });
}

async function outcomeOf(server: RunningServer): Promise<"injected" | "skipped" | "denied"> {
  const answer = await postReview({ port: server.port, review: EXAMPLE });
  const response = answer.response as { allowed: boolean; patch?: string };
  return !response.allowed ? "denied" : response.patch ? "injected" : "skipped";
}

const builtin = defaultConfigFiles();
const withPolicy = (policy: string) => builtin.config.replace(/^policy: enabled$/m, `policy: ${policy}`);

describe("config reload", () => {
  test("a ConfigMap volume update becomes active; bad ones are refused, counted, and the last good stays", async () => {
    const dir = tempDir();
    writeConfigMapVolume(dir, { config: builtin.config, values: builtin.values, mesh: builtin.mesh });
    // Polling effectively off: fs.watch on the folder must notice the `..data` swap by itself.
    const server = await startServer({
      port: 0,
      metricsPort: 0,
      logger: silent,
      defaultMetrics: false,
      config: { configDir: dir },
      watchIntervalMs: 60_000,
    });
    try {
      assert.equal(await outcomeOf(server), "injected");

      // Good: injection off by default → the example pod (no opt-in) is now skipped.
      writeConfigMapVolume(dir, { config: withPolicy("disabled"), values: builtin.values, mesh: builtin.mesh });
      await waitFor("the new config", async () => (await outcomeOf(server)) === "skipped");
      let metrics = await scrape(server.metricsPort);
      assert.equal(sample(metrics, "sidecar_injection_config_reloads_total"), 1);

      // Parses, but the sidecar template fails on every pod: the reference pods catch it.
      const failing = builtin.config.replace(/^( {2}sidecar: \|\n)/m, '$1    {{ fail "broken on purpose" }}\n');
      assert.notEqual(failing, builtin.config);
      writeConfigMapVolume(dir, { config: failing, values: builtin.values, mesh: builtin.mesh });
      await waitFor(
        "the reload error",
        async () => sample(await scrape(server.metricsPort), "sidecar_injection_config_reload_errors_total") === 1,
      );
      assert.equal(await outcomeOf(server), "skipped", "the last good config (policy disabled) is still active");

      // Does not parse at all.
      writeConfigMapVolume(dir, { config: "policy: [unclosed\n", values: builtin.values, mesh: builtin.mesh });
      await waitFor(
        "the second reload error",
        async () => sample(await scrape(server.metricsPort), "sidecar_injection_config_reload_errors_total") === 2,
      );
      assert.equal(await outcomeOf(server), "skipped");

      // Bad values and bad mesh config are refused too (checked without waiting for fs events).
      writeConfigMapVolume(dir, { config: builtin.config, values: "{not json", mesh: builtin.mesh });
      await server.checkFiles();
      writeConfigMapVolume(dir, { config: builtin.config, values: builtin.values, mesh: "defaultConfig: [1, 2" });
      await server.checkFiles();
      metrics = await scrape(server.metricsPort);
      assert.equal(sample(metrics, "sidecar_injection_config_reload_errors_total"), 4);
      assert.equal(await outcomeOf(server), "skipped");

      // Fixed: active again.
      writeConfigMapVolume(dir, { config: builtin.config, values: builtin.values, mesh: builtin.mesh });
      await server.checkFiles();
      assert.equal(await outcomeOf(server), "injected");
      metrics = await scrape(server.metricsPort);
      assert.equal(sample(metrics, "sidecar_injection_config_reloads_total"), 2);
    } finally {
      await server.close();
    }
  });

  test("a mesh key added to the ConfigMap later is used; removed, the start-up config is back", async () => {
    const dir = tempDir();
    writeConfigMapVolume(dir, { config: builtin.config, values: builtin.values });
    const server = await startServer({
      port: 0,
      metricsPort: 0,
      logger: silent,
      defaultMetrics: false,
      config: { configDir: dir },
      watchIntervalMs: 60_000,
    });
    const patch = async () => {
      const answer = await postReview({ port: server.port, review: EXAMPLE });
      return Buffer.from(String((answer.response as { patch?: string }).patch), "base64").toString("utf8");
    };
    try {
      const atStart = await patch();
      const mesh = 'defaultConfig:\n  proxyMetadata:\n    MESHINJECT_ADDED_MESH: "yes"\n';
      writeConfigMapVolume(dir, { config: builtin.config, values: builtin.values, mesh });
      await server.checkFiles();
      assert.match(await patch(), /MESHINJECT_ADDED_MESH/, "the new mesh key is active without a restart");

      writeConfigMapVolume(dir, { config: builtin.config, values: builtin.values });
      await server.checkFiles();
      assert.equal(await patch(), atStart, "no mesh key: the built-in mesh config, as at start-up");
      const metrics = await scrape(server.metricsPort);
      assert.equal(sample(metrics, "sidecar_injection_config_reloads_total"), 2);
      assert.equal(sample(metrics, "sidecar_injection_config_reload_errors_total"), 0);

      // A required key removed is refused like at start-up, and counted; the last good stays.
      writeConfigMapVolume(dir, { config: builtin.config });
      await server.checkFiles();
      assert.equal(sample(await scrape(server.metricsPort), "sidecar_injection_config_reload_errors_total"), 1);
      assert.equal(await patch(), atStart);
    } finally {
      await server.close();
    }
  });

  test("individual files (--injectConfigFile...) are watched; in-place writes are seen", async () => {
    const dir = tempDir();
    const configFile = join(dir, "inject.yaml");
    writeFileSync(configFile, builtin.config);
    const server = await startServer({
      port: 0,
      metricsPort: null,
      logger: silent,
      defaultMetrics: false,
      config: { injectConfigFile: configFile },
      watchIntervalMs: 50,
    });
    try {
      assert.equal(server.metricsPort, -1);
      writeFileSync(configFile, withPolicy("disabled"));
      await waitFor("the in-place change", async () => (await outcomeOf(server)) === "skipped");
    } finally {
      await server.close();
    }
  });

  test("a config that fails the reference pods at startup is an error", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "config"), builtin.config.replace(/^( {2}gateway: \|\n)/m, '$1    {{ fail "no" }}\n'));
    writeFileSync(join(dir, "values"), builtin.values);
    await assert.rejects(
      startServer({ port: 0, metricsPort: null, logger: silent, config: { configDir: dir } }),
      (e: unknown) => e instanceof ConfigRejectedError && /reference pod gateway-pod/.test(e.message),
    );
  });
});

describe("certificate reload", () => {
  test("new files: new connections get the new certificate, open connections stay; bad files are refused", async () => {
    const dir = tempDir();
    const certFile = join(dir, "tls.crt");
    const keyFile = join(dir, "tls.key");
    const first = selfSignedCertificate({ hosts: ["localhost"] });
    const second = selfSignedCertificate({ hosts: ["localhost"] });
    const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const server = await startServer({
      port: 0,
      metricsPort: 0,
      logger: silent,
      defaultMetrics: false,
      tls: { certFile, keyFile },
      watchIntervalMs: 60_000,
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    try {
      const healthz = { port: server.port, method: "GET", path: "/healthz" } as const;
      const kept = await call({ ...healthz, agent });
      assert.equal(kept.fingerprint, fingerprint(first.cert));

      // Written one after the other, in place, key first (a moment where they do not match).
      writeFileSync(keyFile, second.key);
      writeFileSync(certFile, second.cert);
      await waitFor("the new certificate", async () => (await call(healthz)).fingerprint === fingerprint(second.cert));

      // The connection opened before the reload is still open and still works.
      const again = await call({ ...healthz, agent });
      assert.equal(again.reusedSocket, true);
      assert.equal(again.status, 200);
      assert.equal(again.fingerprint, fingerprint(first.cert));

      let metrics = await scrape(server.metricsPort);
      assert.ok(sample(metrics, "sidecar_injection_cert_reloads_total") >= 1);
      const errorsBefore = sample(metrics, "sidecar_injection_cert_reload_errors_total");

      // Garbage certificate: refused, the second certificate stays.
      writeFileSync(certFile, "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n");
      await server.checkFiles();
      // A valid certificate with the wrong key: refused too.
      writeFileSync(certFile, first.cert);
      await server.checkFiles();
      metrics = await scrape(server.metricsPort);
      assert.equal(sample(metrics, "sidecar_injection_cert_reload_errors_total"), errorsBefore + 2);
      assert.equal((await call(healthz)).fingerprint, fingerprint(second.cert));
      assert.equal((await postReview({ port: server.port, review: EXAMPLE })).kind, "AdmissionReview");
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});
