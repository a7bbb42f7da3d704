// Refusals that must reach the client, over real HTTPS: a 413 while the client is still uploading
// (the rest of the body is read and dropped, not reset), CONNECT (405 naming POST), and
// `Expect: 100-continue` with a body that will be refused (the final status, no 100 Continue).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { after, before, describe, test } from "node:test";
import { connect } from "node:tls";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";

const EXAMPLE = readFileSync(new URL("../../examples/admission-review.json", import.meta.url));
const MIB = 1024 * 1024;

interface Upload {
  status: number;
  body: string;
  /** Errors the client saw on the request (EPIPE, ECONNRESET...). */
  errors: string[];
}

/** POSTs `size` bytes with Node's https client, declared (content-length) or chunked. */
function upload(port: number, size: number, chunked: boolean, contentType = "application/json"): Promise<Upload> {
  return new Promise((resolve) => {
    const errors: string[] = [];
    let status = 0;
    let body = "";
    let answered = false;
    let sent = false;
    const done = () => {
      if (answered && sent) resolve({ status, body, errors });
    };
    const req = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/inject",
      agent: false,
      rejectUnauthorized: false,
      servername: "localhost",
      headers: { "content-type": contentType, ...(chunked ? {} : { "content-length": size }) },
    });
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
      });
      res.on("end", () => {
        answered = true;
        done();
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      errors.push(e.code ?? e.message);
      answered = true;
      sent = true;
      done();
    });
    req.on("finish", () => {
      sent = true;
      done();
    });
    const piece = Buffer.alloc(MIB, 0x20);
    for (let left = size; left > 0; left -= MIB) req.write(left >= MIB ? piece : piece.subarray(0, left));
    req.end();
  });
}

/** Sends raw bytes over TLS and collects what comes back until the server closes (or `until` matches). */
function raw(port: number, text: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false, servername: "localhost" });
    let got = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within 10 s, got ${JSON.stringify(got)}`));
    }, 10_000);
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      got += d;
      if (until?.test(got)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(got);
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.write(text);
  });
}

describe("refusals reach the client", () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({
      port: 0,
      host: "127.0.0.1",
      metricsPort: null,
      logger: createLogger({ level: "silent" }),
      defaultMetrics: false,
    });
  });
  after(() => server.close());

  test("413 for a 7 MiB and a 50 MiB upload, every time, without a broken pipe", { timeout: 120_000 }, async () => {
    for (const size of [7 * MIB, 50 * MIB]) {
      for (let i = 0; i < 3; i++) {
        const result = await upload(server.port, size, false);
        assert.deepEqual(result.errors, [], `${size / MIB} MiB, try ${i + 1}`);
        assert.equal(result.status, 413, `${size / MIB} MiB, try ${i + 1}`);
        assert.match(result.body, /exceeds the limit/);
      }
    }
    // Chunked: the limit is found while reading; the rest is dropped just the same.
    for (let i = 0; i < 3; i++) {
      const result = await upload(server.port, 7 * MIB, true);
      assert.deepEqual(result.errors, [], `chunked, try ${i + 1}`);
      assert.equal(result.status, 413);
    }
    // 415 with a large body: answered, not reset.
    const wrongType = await upload(server.port, 7 * MIB, false, "text/plain");
    assert.deepEqual(wrongType.errors, []);
    assert.equal(wrongType.status, 415);
  });

  test("CONNECT gets 405 with Allow: POST", async () => {
    const answer = await raw(server.port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    assert.match(answer, /^HTTP\/1\.1 405 /);
    assert.match(answer, /\r\nAllow: POST\r\n/i);
  });

  test("Expect: 100-continue with a body that will be refused gets the final status, no 100 Continue", async () => {
    const head = (contentType: string, length: number) =>
      `POST /inject HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
    const tooLarge = await raw(server.port, head("application/json", 7 * MIB), /\r\n\r\n/);
    assert.match(tooLarge, /^HTTP\/1\.1 413 /);
    const wrongType = await raw(server.port, head("text/plain", 100), /\r\n\r\n/);
    assert.match(wrongType, /^HTTP\/1\.1 415 /);
    // A body that will be read is asked for, and answered.
    const socket = connect({
      host: "127.0.0.1",
      port: server.port,
      rejectUnauthorized: false,
      servername: "localhost",
    });
    try {
      let got = "";
      socket.setEncoding("utf8");
      const arrived = (re: RegExp) =>
        new Promise<void>((resolve) => {
          const check = () => {
            if (re.test(got)) {
              socket.off("data", onData);
              resolve();
            }
          };
          const onData = (d: string) => {
            got += d;
            check();
          };
          socket.on("data", onData);
          check();
        });
      socket.write(head("application/json", EXAMPLE.length));
      await arrived(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
      socket.write(EXAMPLE);
      await arrived(/HTTP\/1\.1 200 [\s\S]*"allowed":true/);
    } finally {
      socket.destroy();
    }
  });
});
