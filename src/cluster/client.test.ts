// The cluster client against our fake API server (test/fake-apiserver.ts: real HTTPS, bearer
// tokens; kube-apiserver cannot be installed here): reads, and one clear line for every failure.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type FakeApiServer, startFakeApiServer } from "../../test/fake-apiserver.js";
import { ClusterError, connectCluster } from "./client.js";
import { configMapNames, readClusterConfig } from "./istio-config.js";

const injectorCm = (name: string, config: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "istio-system" },
  data: { config, values: '{"global": {}}' },
});

describe("cluster client", () => {
  let api: FakeApiServer;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "meshinject-cluster-"));
    api = await startFakeApiServer([
      injectorCm("istio-sidecar-injector", "policy: enabled"),
      injectorCm("istio-sidecar-injector-canary", "policy: disabled"),
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "istio", namespace: "istio-system" },
        data: { mesh: "trustDomain: a" },
      },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "istio-canary", namespace: "istio-system" }, data: {} },
    ]);
    kubeconfig = await api.kubeconfig(dir);
  });
  after(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("reads ConfigMaps with istioctl's revision naming", async () => {
    const cluster = await connectCluster({ kubeconfig });
    const want = { config: true, values: true, mesh: true };
    const plain = await readClusterConfig(cluster, { istioNamespace: "istio-system", revision: "", want });
    assert.equal(plain.config, "policy: enabled");
    assert.equal(plain.mesh, "trustDomain: a");
    assert.equal(plain.names.values, "ConfigMap istio-system/istio-sidecar-injector key values");
    assert.deepEqual(configMapNames({ istioNamespace: "x", revision: "canary", injectConfigMapName: "custom", want }), {
      config: "custom",
      values: "istio-sidecar-injector-canary",
      mesh: "istio-canary",
    });
    await assert.rejects(
      readClusterConfig(cluster, { istioNamespace: "istio-system", revision: "canary", want }),
      /^ClusterError: ConfigMap istio-system\/istio-canary \(from https:\/\/127\.0\.0\.1:\d+, context fake\) has no key "mesh"$/,
    );
  });

  it("says in one line what was tried and why it failed: 401, 403, 404, 500, slow, unreachable, bad context", async () => {
    const path = "/api/v1/namespaces/istio-system/configmaps/istio";
    const expectFailure = async (options: Parameters<typeof connectCluster>[0], re: RegExp, status?: number) => {
      const cluster = await connectCluster(options);
      await assert.rejects(cluster.get(path, "ConfigMap istio-system/istio"), (e: Error) => {
        assert.ok(e instanceof ClusterError);
        assert.equal(e.status, status);
        assert.doesNotMatch(e.message, /\n/);
        assert.match(e.message, re);
        return true;
      });
    };
    const where = "cannot read ConfigMap istio-system/istio from https://127\\.0\\.0\\.1:\\d+, context fake: ";
    await expectFailure(
      { kubeconfig: await api.kubeconfig(dir, "wrong") },
      new RegExp(`^${where}unauthorized: the cluster refused the credentials \\(401: Unauthorized\\)$`),
      401,
    );
    api.failOn("/api/v1/namespaces/istio-system/configmaps/istio", 403);
    await expectFailure(
      { kubeconfig },
      new RegExp(`^${where}forbidden: the credentials may not read it \\(403: scripted 403\\)$`),
      403,
    );
    api.failOn("/api/v1/namespaces/istio-system/configmaps/istio", 500);
    await expectFailure({ kubeconfig }, new RegExp(`^${where}the API server failed \\(500: scripted 500\\)$`), 500);
    api.reset();
    const cluster = await connectCluster({ kubeconfig });
    await assert.rejects(
      cluster.get("/api/v1/namespaces/istio-system/configmaps/nope", "ConfigMap istio-system/nope"),
      /not found \(404: configmaps "nope" not found\)$/,
    );
    api.delayOn("/api/v1/namespaces/slow", 2_000);
    const quick = await connectCluster({ kubeconfig, timeoutMs: 200 });
    await assert.rejects(quick.get("/api/v1/namespaces/slow", "Namespace slow"), /: no answer within 0\.2 s$/);
    // A port nothing listens on.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const unreachable = await connectCluster({
      kubeconfig: await writeKubeconfigFor(dir, `https://127.0.0.1:${port}`),
    });
    await assert.rejects(unreachable.get(path, "ConfigMap istio-system/istio"), /ECONNREFUSED/);
    await assert.rejects(
      connectCluster({ kubeconfig, context: "prod" }),
      /^ClusterError: context "prod" is not in the kubeconfig \(contexts: fake\)$/,
    );
    await assert.rejects(connectCluster({ kubeconfig: join(dir, "missing") }), /^ClusterError: cannot load .*missing/);
  });
});

async function writeKubeconfigFor(dir: string, server: string): Promise<string> {
  const { writeFile } = await import("node:fs/promises");
  const path = join(dir, "unreachable");
  await writeFile(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster: {server: "${server}", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: x, user: u}\ncurrent-context: x\n`,
  );
  return path;
}
