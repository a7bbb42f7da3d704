// One webhook Service name for certs, webhook-config and serve, and the one deploy/ installs.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DEPLOY } from "../../scripts/gen-deploy-manifests.js";
import { readYaml } from "../go/yaml/read.js";
import { runCerts } from "./certs.js";
import { selfSignedHosts } from "./serve.js";
import { DEFAULT_NAMESPACE, DEFAULT_SERVICE } from "./service-defaults.js";
import { webhookConfigOptions } from "./webhook-config.js";

describe("the default webhook Service", () => {
  it("is the Service of deploy/service.yaml", async () => {
    const service = readYaml(await readFile(new URL("../../deploy/service.yaml", import.meta.url), "utf8")) as {
      metadata: { name: string; namespace: string };
    };
    assert.equal(DEFAULT_SERVICE, service.metadata.name);
    assert.equal(DEFAULT_NAMESPACE, service.metadata.namespace);
    assert.equal(DEFAULT_SERVICE, DEPLOY.name);
  });

  it("is what webhook-config points at (a named revision's own), unless --service or --url", async () => {
    const base = {
      namespace: DEFAULT_NAMESPACE,
      failurePolicy: "Fail",
      reinvocationPolicy: "Never",
      timeoutSeconds: "10",
    };
    assert.equal((await webhookConfigOptions({ ...base, revision: "" })).service, DEFAULT_SERVICE);
    assert.equal((await webhookConfigOptions({ ...base, revision: "default" })).service, DEFAULT_SERVICE);
    assert.equal((await webhookConfigOptions({ ...base, revision: "canary" })).service, `${DEFAULT_SERVICE}-canary`);
    assert.equal((await webhookConfigOptions({ ...base, revision: "", service: "other" })).service, "other");
    assert.equal((await webhookConfigOptions({ ...base, revision: "", url: "https://x/inject" })).service, undefined);
  });

  it("is named in serve's generated certificate (a named revision's own)", () => {
    const hosts = (revision: string) =>
      selfSignedHosts({ revision, namespace: DEFAULT_NAMESPACE } as Parameters<typeof selfSignedHosts>[0]);
    assert.ok(hosts("").includes(`${DEFAULT_SERVICE}.${DEFAULT_NAMESPACE}.svc`), hosts("").join(" "));
    assert.ok(
      hosts("canary").includes(`${DEFAULT_SERVICE}-canary.${DEFAULT_NAMESPACE}.svc`),
      hosts("canary").join(" "),
    );
  });

  it("is named in certs' serving certificate, and the next steps agree with it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "meshinject-certs-"));
    try {
      const base = { namespace: DEFAULT_NAMESPACE, days: "1", keyType: "ecdsa", clusterDomain: "cluster.local" };
      const plain = await runCerts({ ...base, outDir: join(dir, "a") });
      assert.match(plain, new RegExp(`for ${DEFAULT_SERVICE}, `));
      const canary = await runCerts({ ...base, revision: "canary", outDir: join(dir, "b") });
      assert.match(canary, new RegExp(`for ${DEFAULT_SERVICE}-canary, `));
      assert.match(canary, new RegExp(`webhook-config --revision canary .*--service ${DEFAULT_SERVICE}-canary `));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
