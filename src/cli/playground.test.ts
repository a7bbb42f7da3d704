import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type PlaygroundServer, startPlaygroundServer } from "./playground.js";
import { chooseEncoding } from "./static-files.js";

const run = promisify(execFile);

/** curl's response headers (lower-case names) from a `-D FILE` dump. */
function headers(dump: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of dump.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) out[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

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
    // A script the size of the playground's bundle: text that compresses.
    const lines = Array.from(
      { length: 20_000 },
      (_, i) => `export const value${i} = ${JSON.stringify(`item ${i % 97}`)};`,
    );
    writeFileSync(join(root, "big.js"), `${lines.join("\n")}\n`);
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

  it("serves brotli or gzip when the client asks (curl decodes it), identity otherwise, with caching headers", async () => {
    const original = readFileSync(join(root, "big.js"));
    const url = `${server.url}big.js`;
    const dir = join(root, "..");
    // curl --compressed asks for every coding it decodes (br among them) and decodes the answer.
    await run("curl", ["-sS", "--compressed", "-D", join(dir, "br.h"), "-o", join(dir, "br.out"), url]);
    const br = headers(readFileSync(join(dir, "br.h"), "utf8"));
    assert.equal(br["content-encoding"], "br");
    assert.ok(Number(br["content-length"]) < original.length / 4, `${br["content-length"]} bytes`);
    assert.deepEqual(readFileSync(join(dir, "br.out")), original);
    assert.equal(br.vary, "accept-encoding");
    assert.equal(br["cache-control"], "no-cache");
    assert.match(br.etag ?? "", /^"[\w-]+-br"$/);
    assert.ok(br["last-modified"]);
    // Only gzip asked for: gzip, which gzip(1) decodes.
    await run("curl", ["-sS", "-H", "Accept-Encoding: gzip", "-D", join(dir, "gz.h"), "-o", join(dir, "gz.out"), url]);
    assert.equal(headers(readFileSync(join(dir, "gz.h"), "utf8"))["content-encoding"], "gzip");
    const { stdout } = await run("gzip", ["-dc", join(dir, "gz.out")], { encoding: "buffer", maxBuffer: 1 << 26 });
    assert.deepEqual(stdout, original);
    // Nothing asked for (or br refused by q=0 and gzip not named): the file as it is.
    for (const accept of [[], ["-H", "Accept-Encoding: br;q=0, identity"]]) {
      await run("curl", ["-sS", ...accept, "-D", join(dir, "id.h"), "-o", join(dir, "id.out"), url]);
      assert.equal(headers(readFileSync(join(dir, "id.h"), "utf8"))["content-encoding"], undefined);
      assert.deepEqual(readFileSync(join(dir, "id.out")), original);
    }
    // Revalidation: the ETag of what the browser holds gives 304 and no body.
    const { stdout: status } = await run("curl", [
      "-sS",
      "--compressed",
      "-H",
      `If-None-Match: ${br.etag}`,
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      url,
    ]);
    assert.equal(status, "304");
    // A small file is not worth compressing.
    await run("curl", ["-sS", "--compressed", "-D", join(dir, "small.h"), "-o", "/dev/null", `${server.url}app.js`]);
    assert.equal(headers(readFileSync(join(dir, "small.h"), "utf8"))["content-encoding"], undefined);
  });

  it("chooseEncoding reads Accept-Encoding's q-values", () => {
    assert.equal(chooseEncoding(undefined), "identity");
    assert.equal(chooseEncoding("gzip, deflate, br"), "br");
    assert.equal(chooseEncoding("gzip;q=1, br;q=0.5"), "gzip");
    assert.equal(chooseEncoding("br;q=0, gzip;q=0"), "identity");
    assert.equal(chooseEncoding("*"), "br");
    assert.equal(chooseEncoding("*;q=0.1, br;q=0"), "gzip");
    assert.equal(chooseEncoding("identity"), "identity");
  });

  it("a port in use is a one-line error", async () => {
    const port = Number(new URL(server.url).port);
    await assert.rejects(
      startPlaygroundServer(root, port),
      /^PlaygroundError: playground: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE$/,
    );
  });
});
