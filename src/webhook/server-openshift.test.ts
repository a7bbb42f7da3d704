// The server with `platform: "openshift"`: the pod's Namespace is looked up before review; a failed
// lookup is logged and the pod still injected with 1337.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { applyJsonPatch } from "../kube/json-patch.js";
import { postReview } from "./https-client.js";
import { createLogger } from "./logging.js";
import type { NamespaceSource } from "./namespaces.js";
import { type RunningServer, type ServerOptions, startServer } from "./server.js";

type Json = Record<string, unknown>;
const EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8")) as {
  request: { namespace: string; object: Json };
};

const NAMESPACE = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "default", annotations: { "openshift.io/sa.scc.uid-range": "1000620000/10000" } },
};

async function proxyUser(server: RunningServer, namespace = "default"): Promise<unknown> {
  const review = structuredClone(EXAMPLE);
  review.request.namespace = namespace;
  const answer = (await postReview({
    port: server.port,
    ca: server.generatedCertificate?.cert ?? "",
    review: JSON.stringify(review),
  })) as { response: { allowed: boolean; patch: string } };
  assert.equal(answer.response.allowed, true);
  const patch = JSON.parse(Buffer.from(answer.response.patch, "base64").toString("utf8"));
  const pod = applyJsonPatch(structuredClone(review.request.object), patch) as {
    spec: { containers: Array<{ name: string; securityContext?: Json }> };
  };
  const sc = pod.spec.containers.find((c) => c.name === "istio-proxy")?.securityContext ?? {};
  return [sc.runAsUser, sc.runAsGroup];
}

describe("webhook server on OpenShift", () => {
  const servers: RunningServer[] = [];
  const logLines: Json[] = [];
  const start = async (options: ServerOptions) => {
    const destination = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split("\n")) if (line) logLines.push(JSON.parse(line));
        done();
      },
    });
    const server = await startServer({
      port: 0,
      host: "127.0.0.1",
      metricsPort: null,
      defaultMetrics: false,
      logger: createLogger({ level: "info", destination }),
      ...options,
    });
    servers.push(server);
    return server;
  };
  let listed: RunningServer;

  before(async () => {
    listed = await start({ platform: "openshift", namespaces: [NAMESPACE] });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  test("takes the proxy UID/GID from a listed namespace", async () => {
    assert.deepEqual(await proxyUser(listed), [1000629999, 1000629999]);
  });

  test("an unknown namespace: 1337 and a warning", async () => {
    assert.deepEqual(await proxyUser(listed, "elsewhere"), [1337, 1337]);
    const warning = logLines.find((l) => l.msg === "namespace lookup failed; proxy UID/GID 1337");
    assert.equal(warning?.namespace, "elsewhere");
    assert.match(String(warning?.reason), /not in the list/);
  });

  test("a source that rejects does not fail the admission", async () => {
    const broken: NamespaceSource = { get: () => Promise.reject(new Error("boom")) };
    const server = await start({ platform: "openshift", namespaces: broken });
    assert.deepEqual(await proxyUser(server), [1337, 1337]);
  });

  test("without the platform the namespace is not read", async () => {
    let asked = 0;
    const counting: NamespaceSource = {
      get: async () => {
        asked++;
        return { namespace: NAMESPACE };
      },
    };
    const server = await start({ namespaces: counting });
    assert.deepEqual(await proxyUser(server), [1337, 1337]);
    assert.equal(asked, 0);
  });
});
