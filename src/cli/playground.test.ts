import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type PlaygroundServer, startPlaygroundServer } from "./playground.js";

/** A raw request (the path as written, no URL normalization by the client). */
function get(url: string, path: string, method = "GET"): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(url), { method, path }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("meshinject playground server", () => {
  let root: string;
  let server: PlaygroundServer;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "meshinject-play-"));
    root = join(dir, "web");
    mkdirSync(root);
    writeFileSync(join(root, "index.html"), "<!doctype html><title>x</title>");
    writeFileSync(join(root, "app.js"), "export {};");
    writeFileSync(join(root, "style.css"), "body{}");
    writeFileSync(join(dir, "secret.txt"), "outside");
    server = await startPlaygroundServer(root, 0);
  });
  after(async () => {
    await server.close();
    rmSync(join(root, ".."), { recursive: true, force: true });
  });

  it("listens on loopback", () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it("serves the files with their content types", async () => {
    assert.deepEqual(await get(server.url, "/"), {
      status: 200,
      type: "text/html; charset=utf-8",
      body: "<!doctype html><title>x</title>",
    });
    assert.equal((await get(server.url, "/app.js")).type, "text/javascript; charset=utf-8");
    assert.equal((await get(server.url, "/style.css?v=1")).type, "text/css; charset=utf-8");
    const head = await get(server.url, "/app.js", "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
  });

  it("nothing outside the folder, no other methods", async () => {
    assert.equal((await get(server.url, "/../secret.txt")).status, 404);
    assert.equal((await get(server.url, "/%2e%2e/secret.txt")).status, 404);
    assert.equal((await get(server.url, "/%E0%A4%A")).status, 404);
    assert.equal((await get(server.url, "/missing.js")).status, 404);
    const post = await get(server.url, "/", "POST");
    assert.equal(post.status, 405);
  });

  it("a port in use is a one-line error", async () => {
    const port = Number(new URL(server.url).port);
    await assert.rejects(
      startPlaygroundServer(root, port),
      /^PlaygroundError: playground: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE$/,
    );
  });
});
