import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type InClusterApiServer, startInClusterApiServer } from "../../test/fake-apiserver.js";
import { type InClusterOptions, inClusterNamespaces, staticNamespaces } from "./namespaces.js";
import { selfSignedCertificate } from "./tls-self-signed.js";

describe("staticNamespaces", () => {
  it("finds a Namespace by name and says when it is missing", async () => {
    const a = { metadata: { name: "a", annotations: { x: "1" } } };
    const source = staticNamespaces([a, { metadata: { name: "a" } }, {}]);
    assert.deepEqual(await source.get("a"), { namespace: a });
    assert.deepEqual(await source.get("b"), { reason: 'namespace "b" is not in the list' });
  });
});

describe("inClusterNamespaces", () => {
  let api: InClusterApiServer;
  before(async () => {
    api = await startInClusterApiServer();
  });
  after(() => api.close());

  function source(extra: InClusterOptions = {}) {
    api.seen.length = 0;
    return inClusterNamespaces({ env: api.env(), tokenFile: api.tokenFile, caFile: api.caFile, ...extra });
  }

  const answerNamespace = (req: IncomingMessage, res: ServerResponse) => {
    const name = decodeURIComponent((req.url ?? "").split("/").pop() ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name, annotations: { a: "b" } } }));
  };

  it("GETs the Namespace with the token, verifying the CA, and caches it for the TTL", async () => {
    api.handler = answerNamespace;
    let t = 1000;
    const s = source({ now: () => t, ttlMs: 30_000 });
    const [first, concurrent] = await Promise.all([s.get("test-ns"), s.get("test-ns")]);
    assert.deepEqual(first, {
      namespace: { apiVersion: "v1", kind: "Namespace", metadata: { name: "test-ns", annotations: { a: "b" } } },
    });
    assert.equal(concurrent, first);
    assert.deepEqual(api.seen, [{ path: "/api/v1/namespaces/test-ns", auth: "Bearer secret-token" }]);
    t += 29_000;
    await s.get("test-ns");
    assert.equal(api.seen.length, 1);
    t += 2_000;
    await s.get("test-ns");
    assert.equal(api.seen.length, 2);
  });

  it("reports HTTP errors with the Status message and caches them briefly", async () => {
    api.handler = (_req, res) => {
      res.writeHead(403, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", message: 'namespaces "x" is forbidden' }));
    };
    let t = 0;
    const s = source({ now: () => t, failureTtlMs: 5_000 });
    const got = await s.get("x");
    assert.equal(got.namespace, undefined);
    assert.match("reason" in got ? got.reason : "", /HTTP 403 .*get.* on namespaces.*: namespaces "x" is forbidden/);
    t += 4_000;
    await s.get("x");
    assert.equal(api.seen.length, 1);
    t += 2_000;
    await s.get("x");
    assert.equal(api.seen.length, 2);
  });

  it("gives up after the timeout", async () => {
    api.handler = () => {}; // never answers
    const s = source({ timeoutMs: 100 });
    const started = Date.now();
    const got = await s.get("slow");
    assert.match("reason" in got ? got.reason : "", /no answer within 100 ms/);
    assert.ok(Date.now() - started < 2_000);
  });

  it("refuses a server whose certificate the CA does not sign", async () => {
    api.handler = answerNamespace;
    const other = selfSignedCertificate({ hosts: ["127.0.0.1"] });
    const caFile = join(api.dir, "other-ca.crt");
    await writeFile(caFile, other.cert);
    const got = await source({ caFile }).get("a");
    assert.equal(got.namespace, undefined);
    assert.equal(api.seen.length, 0);
  });

  it("answers without a request outside a cluster or without credentials", async () => {
    const outside = await inClusterNamespaces({ env: {} }).get("a");
    assert.match("reason" in outside ? outside.reason : "", /KUBERNETES_SERVICE_HOST/);
    const noToken = await source({ tokenFile: join(api.dir, "missing") }).get("a");
    assert.match("reason" in noToken ? noToken.reason : "", /service-account credentials/);
    assert.equal(api.seen.length, 0);
  });

  it("refuses an answer that is not a Namespace", async () => {
    api.handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"kind":"Pod"}');
    };
    const got = await source().get("a");
    assert.match("reason" in got ? got.reason : "", /not a Namespace/);
  });
});
