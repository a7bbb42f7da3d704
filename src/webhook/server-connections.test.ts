// Connections below HTTP over real sockets: connections that never finish the TLS handshake (plain
// TCP that sends nothing, half a ClientHello) are closed and give their descriptors back; the
// connection cap refuses connections past it; shutdown closes what is left.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { describe, test } from "node:test";
import { call, metricValue, scrapeMetrics } from "./https-client.js";
import type { Limits } from "./limits.js";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";

const EXAMPLE = readFileSync(new URL("../../examples/admission-review.json", import.meta.url));
const silent = createLogger({ level: "silent" });

/** Descriptors this process holds now (client and server sides both live here). */
const openFds = () => readdirSync("/proc/self/fd").length;

/**
 * The start of a TLS ClientHello record that announces 512 bytes and sends 40: the server waits for
 * the rest of the handshake message.
 */
const HALF_CLIENT_HELLO = Buffer.concat([
  Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
  Buffer.alloc(29, 7),
]);

/** Opens a plain TCP connection and resolves once it is connected; `closed` resolves when the server closes it. */
async function rawConnection(port: number, send?: Buffer): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect({ host: "127.0.0.1", port });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  if (send) socket.write(send);
  socket.resume();
  return { socket, closed };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

/** A server on loopback for these tests (metrics on a free port only when asked). */
function startTestServer(limits: Partial<Limits>, withMetrics = false): Promise<RunningServer> {
  return startServer({
    port: 0,
    host: "127.0.0.1",
    ...(withMetrics ? { metricsPort: 0, metricsHost: "127.0.0.1" } : { metricsPort: null }),
    logger: silent,
    defaultMetrics: false,
    limits,
    timeoutCheckIntervalMs: 100,
  });
}

async function injects(server: RunningServer): Promise<void> {
  const answer = await call({ port: server.port, body: EXAMPLE, timeoutMs: 10_000 });
  assert.equal(answer.status, 200);
  assert.equal(JSON.parse(answer.body).response.allowed, true);
}

describe("connections that never finish the TLS handshake", () => {
  test("are closed on the handshake timeout and give their descriptors back; later requests succeed", {
    timeout: 60_000,
  }, async () => {
    const server = await startTestServer({ headersTimeoutMs: 1000 });
    try {
      await injects(server); // whatever the first request opens lazily is open before counting
      const before = openFds();
      const connections = await Promise.all(
        Array.from({ length: 120 }, (_, i) => rawConnection(server.port, i % 2 === 0 ? undefined : HALF_CLIENT_HELLO)),
      );
      assert.ok(openFds() >= before + 120, `the connections hold descriptors while open (${openFds()}, ${before})`);
      // The server closes every one of them (the client side then closes too).
      await within(Promise.all(connections.map((c) => c.closed)), 15_000, "the server to close the connections");
      // Give the server side's close callbacks a moment to run.
      for (let i = 0; i < 50 && openFds() > before + 2; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(openFds() <= before + 2, `descriptors came back: ${openFds()} open, ${before} before`);
      await injects(server);
    } finally {
      await server.close();
    }
  });

  test("--max-connections: a connection past the cap is closed at once and counted; served again below it", {
    timeout: 60_000,
  }, async () => {
    const server = await startTestServer({ maxConnections: 5, headersTimeoutMs: 20_000 }, true);
    try {
      const held = [];
      for (let i = 0; i < 5; i++) held.push(await rawConnection(server.port));
      await new Promise((r) => setTimeout(r, 100)); // the server has accepted them
      const extra = await rawConnection(server.port);
      await within(extra.closed, 5_000, "the connection past the cap to be closed");
      assert.equal(metricValue(await scrapeMetrics(server.metricsPort), "meshinject_connections_dropped_total"), 1);
      for (const c of held) c.socket.destroy();
      await Promise.all(held.map((c) => c.closed));
      await new Promise((r) => setTimeout(r, 100)); // the server has seen them close
      await injects(server);
    } finally {
      await server.close();
    }
  });

  test("close() ends within the shutdown timeout even with connections that never sent a byte", {
    timeout: 60_000,
  }, async () => {
    const server = await startTestServer({ headersTimeoutMs: 30_000, shutdownTimeoutMs: 200 });
    const idle = [];
    for (let i = 0; i < 10; i++) idle.push(await rawConnection(server.port, i === 0 ? HALF_CLIENT_HELLO : undefined));
    await within(server.close(), 5_000, "close()");
    await within(Promise.all(idle.map((c) => c.closed)), 5_000, "the idle connections to be closed");
  });
});
