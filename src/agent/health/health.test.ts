import assert from "node:assert/strict";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { type LoopbackServer, serveLoopback } from "../../../test/loopback-server.js";
import { createTestCa } from "../testing/pki.js";
import { type ProbeEvent, WorkloadHealthChecker } from "./checker.js";
import { ExecProber, GRPCProber, HTTPProber, TCPProber } from "./probers.js";

/** Answers with the listed statuses in order, then `then` forever. */
function scripted(statuses: number[], then: number): Promise<LoopbackServer> {
  return serveLoopback((_req, res) => {
    res.writeHead(statuses.shift() ?? then);
    res.end();
  });
}

describe("health probers", () => {
  it("runs commands: exit 0 healthy, else the exit status, killed past the timeout", async () => {
    assert.deepEqual(await new ExecProber({ command: ["true"] }).probe(2000), { result: "HEALTHY" });
    assert.deepEqual(await new ExecProber({ command: ["false"] }).probe(2000), {
      result: "UNHEALTHY",
      error: "exit status 1",
    });
    assert.deepEqual(await new ExecProber({ command: ["sleep", "5"] }).probe(100), {
      result: "UNHEALTHY",
      error: "command timeout exceeded: signal: killed",
    });
  });

  it("counts 2xx and 3xx as healthy over HTTP, and a refused TCP connect as unhealthy", async () => {
    const app = await scripted([204, 302, 404], 200);
    try {
      const p = new HTTPProber({ port: app.port, host: "127.0.0.1", path: "/h" }, "127.0.0.6");
      assert.equal((await p.probe(1000)).result, "HEALTHY");
      assert.equal(
        (await p.probe(1000)).result,
        "HEALTHY",
        "a 3xx (here without Location, so not followed) is healthy",
      );
      assert.deepEqual(await p.probe(1000), {
        result: "UNHEALTHY",
        error: "status code was not from [200,400), bad code 404",
      });
    } finally {
      await app.close();
    }
    const closed = await new TCPProber({ host: "127.0.0.1", port: app.port }).probe(1000);
    assert.equal(closed.result, "UNHEALTHY");
    assert.match(closed.error ?? "", /ECONNREFUSED/);
  });
});

describe("health probers over the shared probe module, with Istio's health semantics", () => {
  it("checks an HTTPS application's certificate unless the scheme is exactly HTTPS (InsecureSkipVerify only then)", async () => {
    const { serving } = await createTestCa();
    const app = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (_req, res) => res.end("ok"));
    await new Promise<void>((r) => app.listen(0, "127.0.0.1", r));
    const port = (app.address() as AddressInfo).port;
    try {
      const skip = new HTTPProber({ port, host: "127.0.0.1", scheme: "HTTPS" }, "127.0.0.6");
      assert.deepEqual(await skip.probe(2000), { result: "HEALTHY" });
      // The checker lowercases the scheme first (fillInDefaults): the test root is no system root.
      const checked = await new HTTPProber({ port, host: "127.0.0.1", scheme: "https" }, "127.0.0.6").probe(2000);
      assert.equal(checked.result, "UNHEALTHY");
      assert.match(checked.error ?? "", new RegExp(`^Get "https://127\\.0\\.0\\.1:${port}/": .*certificate`));
    } finally {
      app.closeAllConnections();
      await new Promise((r) => app.close(r));
    }
  });

  it("names a gRPC application without the health service as Istio's GRPCProber does", async () => {
    // A @grpc/grpc-js server with no services: every call is UNIMPLEMENTED.
    const server = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    try {
      const o = await new GRPCProber({ port }, "127.0.0.1").probe(2000);
      assert.equal(o.result, "UNHEALTHY");
      assert.match(
        o.error ?? "",
        new RegExp(
          `^service on port ${port} doesn't implement the grpc health protocol grpc\\.health\\.v1\\.Health: rpc error: code = Unimplemented desc = `,
        ),
      );
    } finally {
      server.forceShutdown();
    }
  });
});

describe("WorkloadHealthChecker", () => {
  it("reports only state changes, after the thresholds", async () => {
    // healthy ×2 (threshold 2) → event; 500 ×1 (threshold 2, not reached); 200; 500 ×2 → event.
    const app = await scripted([200, 200, 500, 200, 500, 500], 200);
    const events: ProbeEvent[] = [];
    const checker = new WorkloadHealthChecker(
      { httpGet: { port: app.port, path: "/x" }, successThreshold: 2, failureThreshold: 2 },
      { proxyAddrs: ["127.0.0.1"], checkFrequencyMs: 1 },
    );
    const stop = checker.start((e) => events.push(e));
    try {
      for (let i = 0; i < 200 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    } finally {
      stop();
      await app.close();
    }
    assert.deepEqual(
      events.map((e) => e.healthy),
      [true, false, true],
    );
    assert.match(events[1].unhealthyMessage ?? "", /bad code 500/);
  });
});
