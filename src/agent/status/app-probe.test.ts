import assert from "node:assert/strict";
import * as http from "node:http";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import * as net from "node:net";
import { after, before, describe, it } from "node:test";
import { type HealthServer, startHealthServer } from "../../../test/grpc-health.js";
import { createWebhookCerts } from "../../webhook/certs.js";
import { probeGRPC, probeHostHeader, probeHTTP } from "./app-probe.js";
import type { Prober } from "./probers.js";

const target = { destination: "", localAddress: "127.0.0.6", statusPort: 15020 };
const incoming = { host: "pod:15020", rawHeaders: ["User-Agent", "kube-probe/1.30"] };

function httpGet(port: number, path: string, scheme = "HTTP", timeoutSeconds = 2): Prober {
  return { httpGet: { path, port: { type: "int", value: port }, host: "", scheme, httpHeaders: [] }, timeoutSeconds };
}

describe("probeHostHeader", () => {
  it("replaces the status port of a Host that net.SplitHostPort splits, and keeps any other Host", () => {
    assert.equal(probeHostHeader("10.0.0.1:15020", 15020, 8080), "10.0.0.1:8080");
    assert.equal(probeHostHeader("[fd00::1]:15020", 15020, 8080), "[fd00::1]:8080");
    assert.equal(probeHostHeader("10.0.0.1:15021", 15020, 8080), "10.0.0.1:15021");
    for (const host of ["10.0.0.1", "fd00::1:15020", "[[fd00::1]:15020", "a]:15020", "[fd00::1]15020"]) {
      assert.equal(probeHostHeader(host, 15020, 8080), host);
    }
  });
});

describe("probe proxy over HTTPS", () => {
  let server: http2.Http2SecureServer;
  let port = 0;
  const seen: { protocol: string; host: string }[] = [];
  before(async () => {
    const certs = await createWebhookCerts({ service: "app", namespace: "ns", days: 1, now: new Date() });
    server = http2.createSecureServer({ cert: certs.certPem, key: certs.keyPem, allowHTTP1: true }, (req, res) => {
      seen.push({ protocol: req.httpVersion, host: String(req.headers[":authority"] ?? req.headers.host) });
      if (req.url === "/loop") res.writeHead(302, { Location: "/loop" });
      else if (req.url === "/away") res.writeHead(301, { Location: "https://elsewhere.example/" });
      else res.writeHead(req.url === "/teapot" ? 418 : 200);
      res.end("body");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it("speaks HTTP/2 when the application offers it, without checking its certificate", async () => {
    const r = await probeHTTP(httpGet(port, "/teapot", "HTTPS"), incoming, target);
    assert.equal(r.status, 418);
    assert.equal(r.body?.toString(), "body");
    assert.deepEqual(seen.at(-1), { protocol: "2.0", host: `pod:${port}` });
  });

  it("stays on HTTP/1.1 with HTTP/2 probing off", async () => {
    const r = await probeHTTP(httpGet(port, "/", "HTTPS"), incoming, { ...target, http2: false });
    assert.equal(r.status, 200);
    assert.equal(seen.at(-1)?.protocol, "1.1");
  });

  it("fails a redirect loop after 10 requests and counts a redirect elsewhere as success", async () => {
    const before = seen.length;
    assert.equal((await probeHTTP(httpGet(port, "/loop", "HTTPS"), incoming, target)).status, 500);
    assert.equal(seen.length - before, 10);
    assert.equal((await probeHTTP(httpGet(port, "/away", "HTTPS"), incoming, target)).status, 200);
  });
});

describe("probe proxy timeouts", () => {
  it("gives up after timeoutSeconds", async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const start = Date.now();
      const r = await probeHTTP(httpGet((silent.address() as AddressInfo).port, "/", "HTTP", 1), incoming, target);
      assert.equal(r.status, 500);
      assert.match(r.error ?? "", /timed out after 1s/);
      assert.ok(Date.now() - start < 3000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe("gRPC probe", () => {
  // The application's health server, encoded by @grpc/proto-loader rather than by grpc-health.ts.
  let server: HealthServer | undefined;
  let port = 0;
  before(async () => {
    const statuses: Record<string, number> = { "": 1, down: 2 };
    server = await startHealthServer((service) => statuses[service]);
    port = server.port;
  });
  after(() => server?.close());

  const grpcProber = (service: string | undefined, timeoutSeconds = 2): Prober => ({
    grpc: { port, service },
    timeoutSeconds,
  });

  it("answers 200 only for SERVING", async () => {
    assert.equal((await probeGRPC(grpcProber(undefined), incoming, target)).status, 200);
    assert.equal((await probeGRPC(grpcProber("down"), incoming, target)).status, 500);
    const unknown = await probeGRPC(grpcProber("nope"), incoming, target);
    assert.equal(unknown.status, 500);
    assert.match(unknown.error ?? "", /NotFound/);
  });

  it("answers 500 for a port that speaks HTTP/1.1 only or refuses, within the probe's timeout", async () => {
    const h1 = http.createServer((_req, res) => res.end("not grpc"));
    await new Promise<void>((r) => h1.listen(0, "127.0.0.1", r));
    const refused = net.createServer();
    await new Promise<void>((r) => refused.listen(0, "127.0.0.1", r));
    const closedPort = (refused.address() as AddressInfo).port;
    await new Promise<void>((r) => refused.close(() => r()));
    try {
      for (const p of [(h1.address() as AddressInfo).port, closedPort]) {
        const r = await probeGRPC({ grpc: { port: p, service: undefined }, timeoutSeconds: 1 }, incoming, target);
        assert.equal(r.status, 500, String(p));
        assert.match(r.error ?? "", /grpc probe failed/);
      }
    } finally {
      h1.closeAllConnections();
      await new Promise<void>((r) => h1.close(() => r()));
    }
  });

  it("fails at once with a 0 s timeout, as pilot-agent's deadline does", async () => {
    assert.equal((await probeGRPC(grpcProber(undefined, 0), incoming, target)).status, 500);
  });
});
