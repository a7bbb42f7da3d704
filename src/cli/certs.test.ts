// `meshinject certs` and `meshinject webhook-config` end to end, run in process through main(argv, io).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { meshinject } from "../../test/meshinject-cli.js";
import { readYaml } from "../go/yaml/read.js";

/** webhook-config's stderr note about istiod's WebhookCertPatcher, for the configuration's istio.io/rev. */
const NOTE = (revision: string) =>
  new RegExp(
    `^meshinject: note: an istiod of revision "${revision}" .*caBundle .*istio\\.io/rev=${revision}\\b.*"Next to istiod"$`,
    "m",
  );

describe("meshinject certs / webhook-config", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-certs-"));
  after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, "certs");

  it("writes the CA and the serving pair, keys private, and keeps existing files", async () => {
    const r = await meshinject(
      "certs",
      "--service",
      "istio-sidecar-injector",
      "--namespace",
      "istio-system",
      "--out-dir",
      out,
      "--days",
      "7",
    );
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    assert.match(r.stdout, /kubectl -n istio-system create secret tls istio-sidecar-injector-certs/);
    for (const [name, mode] of [
      ["ca.crt", 0o644],
      ["ca.key", 0o600],
      ["tls.crt", 0o644],
      ["tls.key", 0o600],
    ] as const) {
      assert.equal((await stat(join(out, name))).mode & 0o777, mode, name);
    }
    const leaf = new X509Certificate(await readFile(join(out, "tls.crt")));
    const ca = new X509Certificate(await readFile(join(out, "ca.crt")));
    assert.ok(leaf.verify(ca.publicKey));
    assert.match(leaf.subjectAltName ?? "", /DNS:istio-sidecar-injector\.istio-system\.svc\.cluster\.local/);

    const again = await meshinject("certs", "--out-dir", out);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exist \(use --force/);

    const renewed = await meshinject(
      "certs",
      "--out-dir",
      join(dir, "renewed"),
      "--ca-cert",
      join(out, "ca.crt"),
      "--ca-key",
      join(out, "ca.key"),
      "--days",
      "1",
    );
    assert.equal(renewed.code, 0, renewed.stderr);
    assert.equal(await readFile(join(dir, "renewed", "ca.crt"), "utf8"), await readFile(join(out, "ca.crt"), "utf8"));
  });

  it("webhook-config embeds the CA bundle and takes the flags", async () => {
    const r = await meshinject(
      "webhook-config",
      "--service",
      "istio-sidecar-injector",
      "--ca-bundle-file",
      join(out, "ca.crt"),
      "--failure-policy",
      "Ignore",
      "--timeout-seconds",
      "5",
    );
    // Only the note about istiod's caBundle patcher, on one line; stdout is the configuration alone.
    assert.equal(r.stderr.split("\n").length, 2);
    assert.match(r.stderr, NOTE("default"));
    assert.equal(r.code, 0);
    const config = readYaml(r.stdout) as { webhooks: Record<string, unknown>[] };
    assert.equal(config.webhooks.length, 4);
    const client = config.webhooks[0]?.clientConfig as { caBundle: string; service: { name: string } };
    assert.equal(Buffer.from(client.caBundle, "base64").toString(), await readFile(join(out, "ca.crt"), "utf8"));
    assert.equal(client.service.name, "istio-sidecar-injector");
    assert.equal(config.webhooks[0]?.failurePolicy, "Ignore");
    assert.equal(config.webhooks[0]?.timeoutSeconds, 5);
  });

  it("certs and webhook-config agree on the Service when both use their defaults", async () => {
    const certsDir = join(dir, "defaults");
    const c = await meshinject("certs", "--out-dir", certsDir);
    assert.equal(c.code, 0, c.stderr);
    const leaf = new X509Certificate(await readFile(join(certsDir, "tls.crt")));
    const w = await meshinject("webhook-config", "--ca-bundle-file", join(certsDir, "ca.crt"));
    assert.equal(w.code, 0, w.stderr);
    const config = readYaml(w.stdout) as {
      webhooks: { clientConfig: { service: { name: string; namespace: string } } }[];
    };
    for (const webhook of config.webhooks) {
      const { name, namespace } = webhook.clientConfig.service;
      assert.match(leaf.subjectAltName ?? "", new RegExp(`DNS:${name}\\.${namespace}\\.svc(,|$)`));
    }
  });

  it("webhook-config without --ca-bundle-file warns on stderr, stdout unchanged", async () => {
    const r = await meshinject("webhook-config");
    assert.equal(r.code, 0);
    assert.match(
      r.stderr,
      /^meshinject: warning: no --ca-bundle-file: .*API server will not trust the webhook until caBundle is set; with failurePolicy Fail/,
    );
    assert.equal(r.stderr.trim().split("\n").length, 2);
    assert.match(r.stderr.trim().split("\n")[1] ?? "", NOTE("default"));
    const config = readYaml(r.stdout) as {
      webhooks: { clientConfig: Record<string, unknown>; failurePolicy: string }[];
    };
    assert.equal(config.webhooks.length, 4);
    for (const webhook of config.webhooks) {
      assert.equal(webhook.clientConfig.caBundle, undefined);
      assert.equal(webhook.failurePolicy, "Fail");
    }
    const ignore = await meshinject("webhook-config", "--failure-policy", "Ignore");
    assert.doesNotMatch(ignore.stderr, /failurePolicy Fail/);
    assert.match(ignore.stderr, /will not trust the webhook until caBundle is set/);
  });

  it("webhook-config notes istiod's caBundle patcher for the configuration's revision, stdout unchanged", async () => {
    for (const [args, revision] of [
      [[], "default"],
      [["--revision", "canary"], "canary"],
      [["--tag", "prod", "--revision", "canary"], "canary"],
    ] as const) {
      const r = await meshinject("webhook-config", "--ca-bundle-file", join(out, "ca.crt"), ...args);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, NOTE(revision));
      assert.equal(r.stderr.trim().split("\n").length, 1);
      const config = readYaml(r.stdout) as { metadata: { labels: Record<string, string> } };
      assert.equal(config.metadata.labels["istio.io/rev"], revision);
      assert.doesNotMatch(r.stdout, /note/);
    }
  });

  it("out-dir created 0700; CA 10 years, serving 90 days; renewal with the CA at the defaults works", async () => {
    const first = join(dir, "fresh", "certs");
    const c = await meshinject("certs", "--out-dir", first);
    assert.equal(c.code, 0, c.stderr);
    assert.equal((await stat(first)).mode & 0o777, 0o700);
    const days = async (file: string) =>
      Math.round((new Date(new X509Certificate(await readFile(file)).validTo).getTime() - Date.now()) / 86_400_000);
    assert.equal(await days(join(first, "ca.crt")), 3650);
    assert.equal(await days(join(first, "tls.crt")), 90);
    const renewed = join(dir, "fresh", "renewed");
    const r = await meshinject(
      "certs",
      "--out-dir",
      renewed,
      "--ca-cert",
      join(first, "ca.crt"),
      "--ca-key",
      join(first, "ca.key"),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /CA reused, valid until \d{4}-/);
    assert.equal(await days(join(renewed, "tls.crt")), 90);
    const both = await meshinject(
      "certs",
      "--out-dir",
      join(dir, "fresh", "x"),
      "--ca-cert",
      join(first, "ca.crt"),
      "--ca-key",
      join(first, "ca.key"),
      "--ca-days",
      "10",
    );
    assert.equal(both.code, 1);
    assert.match(both.stderr, /--ca-days is for a new CA/);
  });

  it("webhook-config: its own name, Istio's on request, exclusions, v1beta1 on request, cert-manager", async () => {
    type Config = {
      metadata: { name: string; annotations?: Record<string, string> };
      webhooks: { admissionReviewVersions: string[]; namespaceSelector: { matchExpressions: unknown[] } }[];
    };
    const get = async (...args: string[]) => {
      const r = await meshinject("webhook-config", ...args);
      assert.equal(r.code, 0, r.stderr);
      return readYaml(r.stdout) as Config;
    };
    const plain = await get("--ca-bundle-file", join(out, "ca.crt"));
    assert.equal(plain.metadata.name, "meshinject-sidecar-injector");
    for (const w of plain.webhooks) {
      assert.deepEqual(w.admissionReviewVersions, ["v1"]);
      assert.deepEqual(w.namespaceSelector.matchExpressions.at(-1), {
        key: "kubernetes.io/metadata.name",
        operator: "NotIn",
        values: ["kube-system", "kube-node-lease", "kube-public", "istio-system"],
      });
    }
    assert.equal((await get("--istio-name", "--revision", "canary")).metadata.name, "istio-sidecar-injector-canary");
    const old = await get("--admission-review-versions", "v1,v1beta1", "--no-exclude-system-namespaces");
    for (const w of old.webhooks) {
      assert.deepEqual(w.admissionReviewVersions, ["v1", "v1beta1"]);
      assert.ok(!JSON.stringify(w.namespaceSelector).includes("kubernetes.io/metadata.name"));
    }
    const cm = await meshinject("webhook-config", "--cert-manager", "istio-system/istio-sidecar-injector");
    assert.equal(cm.code, 0, cm.stderr);
    assert.doesNotMatch(cm.stderr, /warning/);
    assert.deepEqual((readYaml(cm.stdout) as Config).metadata.annotations, {
      "cert-manager.io/inject-ca-from": "istio-system/istio-sidecar-injector",
    });
    for (const [args, message] of [
      [["--cert-manager", "no-slash"], /--cert-manager must be NAMESPACE\/CERTIFICATE/],
      [["--cert-manager", "a/b", "--ca-bundle-file", join(out, "ca.crt")], /either --cert-manager or --ca-bundle-file/],
      [["--admission-review-versions", "v2"], /admissionReviewVersions must be v1/],
    ] as const) {
      const r = await meshinject("webhook-config", ...args);
      assert.equal(r.code, 1);
      assert.match(r.stderr, message);
    }
  });

  it("--host and --ip add names and addresses to the serving certificate; bad ones are refused", async () => {
    const local = join(dir, "local");
    const r = await meshinject("certs", "--out-dir", local, "--host", "localhost", "--ip", "127.0.0.1", "--ip", "::1");
    assert.equal(r.code, 0, r.stderr);
    const leaf = new X509Certificate(await readFile(join(local, "tls.crt")));
    const sans = (leaf.subjectAltName ?? "").split(", ");
    for (const san of [
      "DNS:istio-sidecar-injector.istio-system.svc",
      "DNS:localhost",
      "IP Address:127.0.0.1",
      "IP Address:0:0:0:0:0:0:0:1",
    ]) {
      assert.ok(sans.includes(san), `${san} not in ${leaf.subjectAltName}`);
    }
    assert.ok(leaf.checkIP("127.0.0.1"));
    assert.match(r.stdout, /serving certificate for .*localhost, 127\.0\.0\.1, ::1,/);
    assert.match(r.stdout, new RegExp(`meshinject serve --cert-dir ${local} --port 9443`));
    const bad = await meshinject("certs", "--out-dir", join(dir, "bad"), "--ip", "localhost");
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'meshinject: ip "localhost" is not an IPv4 or IPv6 address\n');
    const badHost = await meshinject("certs", "--out-dir", join(dir, "bad"), "--host", "Web_1");
    assert.equal(badHost.code, 1);
    assert.match(badHost.stderr, /^meshinject: host "Web_1" is not a DNS name/);
  });

  it("marks --out-dir as required in the help", async () => {
    const r = await meshinject("certs", "--help");
    assert.match(r.stdout, /--out-dir <dir>[^-]*\(required\)/);
  });

  it("names the path in write errors, without temporary files", async () => {
    const file = join(dir, "plain-file");
    await writeFile(file, "");
    const r = await meshinject("certs", "--out-dir", join(file, "sub"));
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `meshinject: --out-dir ${join(file, "sub")}: ${file} is not a folder\n`);
    const o = await meshinject("webhook-config", "--ca-bundle-file", join(out, "ca.crt"), "-o", dir);
    assert.equal(o.stderr, `meshinject: -o ${dir}: is a directory\n`);
  });

  it("reports bad flags in one line", async () => {
    for (const [args, message] of [
      [["webhook-config", "--timeout-seconds", "ten"], /--timeout-seconds must be a whole number/],
      [["webhook-config", "--ca-bundle-file", join(dir, "missing.pem")], /cannot read CA bundle file/],
      [["webhook-config", "--failure-policy", "Sometimes"], /failurePolicy must be Fail or Ignore/],
      [["certs", "--out-dir", join(dir, "x"), "--service", "Bad_Name"], /service "Bad_Name"/],
      [["certs", "--out-dir", join(dir, "y"), "--ca-cert", "a.pem"], /--ca-cert and --ca-key go together/],
    ] as const) {
      const r = await meshinject(...args);
      assert.equal(r.code, 1);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
  });
});
