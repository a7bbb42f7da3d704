import assert from "node:assert/strict";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type * as tls from "node:tls";
import { Registry } from "prom-client";
import { MAX_PROBE_BODY_BYTES } from "../probe/http-client.js";
import { createTestCa } from "../testing/pki.js";
import { type StatusServer, startStatusServer } from "./server.js";

/** An HTTPS application on loopback that counts the TCP connections it accepts and the protocol of each request. */
interface App {
  port: number;
  connections: number;
  protocols: string[];
  close(): Promise<void>;
}

async function listen(server: tls.Server, app: Omit<App, "port" | "close">): Promise<App> {
  server.on("connection", () => app.connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    ...app,
    get connections() {
      return app.connections;
    },
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        (server as https.Server).closeAllConnections?.();
        server.close(() => r());
        // http2 sessions are not closed by server.close(): the agent's own close ends them.
      }),
  };
}

/** The kubelet's probe: its status, and the size of the body it got. */
function get(port: number, path: string): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
        });
        res.on("end", () => resolve([res.statusCode ?? 0, size]));
      })
      .on("error", reject);
  });
}

const PROBES = 4;

describe("probe connections to an HTTPS application (ENABLE_PROBE_KEEPALIVE_CONNECTIONS)", () => {
  let serving: { certPem: string; keyPem: string };
  const apps: App[] = [];
  const agents: StatusServer[] = [];
  before(async () => {
    serving = (await createTestCa()).serving;
  });
  after(async () => {
    for (const a of agents) await a.close();
    for (const a of apps) await a.close();
  });

  async function app(kind: "h1" | "h2"): Promise<App> {
    const state = { connections: 0, protocols: [] as string[] };
    const handler = (
      req: http.IncomingMessage | http2.Http2ServerRequest,
      res: http.ServerResponse | http2.Http2ServerResponse,
    ) => {
      state.protocols.push(req.httpVersion);
      // More than the 10 KiB returned to the kubelet: the rest is drained, so a kept connection stays usable.
      res.end(Buffer.alloc(3 * MAX_PROBE_BODY_BYTES, "x"));
    };
    const server =
      kind === "h1"
        ? https.createServer({ cert: serving.certPem, key: serving.keyPem }, handler)
        : http2.createSecureServer({ cert: serving.certPem, key: serving.keyPem }, handler);
    const a = await listen(server, state);
    apps.push(a);
    return Object.assign(a, {
      get protocols() {
        return state.protocols;
      },
    });
  }

  /** An agent whose one prober GETs `/` on the HTTPS application at `appPort`. */
  async function agentFor(appPort: number, keepalive: boolean, timeoutSeconds: number): Promise<StatusServer> {
    const s = await startStatusServer({
      host: "127.0.0.1",
      port: 0,
      adminPort: 1,
      registry: new Registry(),
      probeKeepalive: keepalive,
      kubeAppProbers: JSON.stringify({
        "/app-health/web/readyz": { httpGet: { path: "/", port: appPort, scheme: "HTTPS" }, timeoutSeconds },
      }),
    });
    agents.push(s);
    return s;
  }

  async function probeTimes(appPort: number, keepalive: boolean): Promise<void> {
    const s = await agentFor(appPort, keepalive, 10);
    for (let i = 0; i < PROBES; i++)
      assert.deepEqual(await get(s.port, "/app-health/web/readyz"), [200, MAX_PROBE_BODY_BYTES]);
  }

  it("sends a probe again when its kept connection fails before any answer, as Go's transport retries", async () => {
    // h1: the application drops a connection when its second request arrives (it closed it idle as the
    // request went out); h2: it refuses every second stream of a session unprocessed (REFUSED_STREAM).
    const served = new WeakMap<object, number>();
    const count = (key: object) => {
      const n = (served.get(key) ?? 0) + 1;
      served.set(key, n);
      return n;
    };
    const h1 = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      if (count(req.socket) === 2) req.socket.destroy();
      else res.end("ok");
    });
    const h2 = http2.createSecureServer({ cert: serving.certPem, key: serving.keyPem });
    h2.on("stream", (stream: http2.ServerHttp2Stream) => {
      stream.on("error", () => {}); // the refused one's, on this side
      if (count(stream.session as object) === 2) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      else {
        stream.respond({ ":status": 200 });
        stream.end("ok");
      }
    });
    for (const server of [h2, h1]) {
      const a = await listen(server, { connections: 0, protocols: [] });
      apps.push(a);
      const s = await agentFor(a.port, true, 10);
      for (let i = 0; i < PROBES; i++) assert.deepEqual(await get(s.port, "/app-health/web/readyz"), [200, 2]);
    }
  });

  for (const kind of ["h1", "h2"] as const) {
    it(`${kind}: a probe that times out on a kept connection is abandoned, not sent again`, async () => {
      // The application answers its first request, then hangs: each later probe times out, and the
      // agent must let go of it (Go's transport returns the context's error and never retries it).
      let requests = 0;
      let closed = 0;
      const handler = (
        _req: http.IncomingMessage | http2.Http2ServerRequest,
        res: http.ServerResponse | http2.Http2ServerResponse,
      ) => {
        if (++requests === 1) res.end("ok");
        else res.on("close", () => closed++);
      };
      const server =
        kind === "h1"
          ? https.createServer({ cert: serving.certPem, key: serving.keyPem }, handler)
          : http2.createSecureServer({ cert: serving.certPem, key: serving.keyPem }, handler);
      const a = await listen(server, { connections: 0, protocols: [] });
      apps.push(a);
      const s = await agentFor(a.port, true, 1);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await get(s.port, "/app-health/web/readyz"))[0]);
      assert.deepEqual(statuses, [200, 500, 500]);
      // Every hung request is closed by the agent (bounded wait on the event, not a timing assertion).
      for (let waited = 0; closed < requests - 1 && waited < 10_000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal(requests, 3, "the application saw one request per probe");
      assert.equal(closed, 2, "the timed-out requests were closed");
    });

    it(`${kind}: one connection for ${PROBES} probes with keep-alive on`, async () => {
      const a = await app(kind);
      await probeTimes(a.port, true);
      assert.deepEqual(a.protocols, Array(PROBES).fill(kind === "h1" ? "1.1" : "2.0"));
      assert.equal(a.connections, 1);
    });

    it(`${kind}: a connection per probe with keep-alive off, as the kubelet`, async () => {
      const a = await app(kind);
      await probeTimes(a.port, false);
      assert.deepEqual(a.protocols, Array(PROBES).fill(kind === "h1" ? "1.1" : "2.0"));
      assert.equal(a.connections, PROBES);
    });
  }
});
