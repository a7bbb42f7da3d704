/**
 * pilot-agent's `wait`, `request` and `version` as `meshinject agent` runs them, in process
 * (main(argv, io)), against real HTTP servers on 127.0.0.1: flags, output and exit codes as
 * pilot-agent's (cobra's `Error: ...` on stderr and 255 for a command's error, 0 and the help for -h).
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { after, describe, it } from "node:test";
import { runMeshinject } from "../../../test/meshinject-cli.js";

interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A server on 127.0.0.1 answering with `answer(n)` for its n-th request (from 1), recording each. */
async function server(
  answer: (n: number) => [number, string],
  port = 0,
): Promise<{ srv: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const srv = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", body });
      const [status, text] = answer(seen.length);
      res.writeHead(status).end(text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    srv.once("error", reject);
    srv.listen(port, "127.0.0.1", resolve);
  });
  return { srv, port: (srv.address() as { port: number }).port, seen };
}

/** A server on the first free port `request` may call (15004, 15021, 15020, 15000). */
async function adminServer(answer: (n: number) => [number, string]) {
  for (const port of [15004, 15021, 15020, 15000]) {
    try {
      return await server(answer, port);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    }
  }
  throw new Error("all of request's ports are in use on 127.0.0.1");
}

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

const agent = (...args: string[]) => runMeshinject(["agent", ...args], { env: {} });

describe("agent wait", () => {
  it("polls the URL until it answers 200, then exits 0", async () => {
    const s = await server((n) => (n < 3 ? [503, "not ready"] : [200, "ok"]));
    servers.push(s.srv);
    const url = `http://127.0.0.1:${s.port}/healthz/ready`;
    const r = await agent("wait", "--url", url, "--periodMillis=20", "--timeoutSeconds", "60");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.seen.length, 3);
    assert.deepEqual(s.seen[0], { method: "GET", url: "/healthz/ready", body: "" });
    assert.match(r.stdout, /\tinfo\tWaiting for Envoy proxy to be ready \(timeout: 60 seconds\)\.\.\.\n/);
    assert.match(r.stdout, /\tinfo\tEnvoy is ready!\n$/);
  });

  it("gives up after --timeoutSeconds with the last error, exit 255", async () => {
    const s = await server(() => [503, "not ready"]);
    servers.push(s.srv);
    const r = await agent(
      "wait",
      `--url=http://127.0.0.1:${s.port}/healthz/ready`,
      "--periodMillis",
      "50",
      "--timeoutSeconds=1",
    );
    assert.equal(r.code, 255);
    assert.equal(
      r.stderr,
      "Error: timeout waiting for Envoy proxy to become ready. Last error: HTTP status code 503\n",
    );
    assert.ok(s.seen.length >= 1);
  });

  it("names a refused connection as Go's client does", async () => {
    const s = await server(() => [200, ""]);
    const port = s.port;
    await new Promise((r) => s.srv.close(r));
    const r = await agent("wait", `--url=http://127.0.0.1:${port}/x`, "--periodMillis=10", "--timeoutSeconds=1");
    assert.equal(r.code, 255);
    assert.match(
      r.stderr,
      new RegExp(
        `Last error: Get "http://127\\.0\\.0\\.1:${port}/x": dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused\\n$`,
      ),
    );
  });

  it("refuses a flag value pflag refuses", async () => {
    const r = await agent("wait", "--timeoutSeconds", "soon");
    assert.equal(r.code, 255);
    assert.equal(
      r.stderr,
      'Error: invalid argument "soon" for "--timeoutSeconds" flag: strconv.ParseInt: parsing "soon": invalid syntax\n',
    );
  });

  it("prints cobra's help for -h", async () => {
    const r = await agent("wait", "-h");
    assert.equal(r.code, 0);
    assert.match(
      r.stdout,
      /^Waits until the Envoy proxy is ready\n\nUsage:\n {2}pilot-agent wait \[flags\]\n\nFlags:\n/,
    );
    assert.match(
      r.stdout,
      /^ {6}--url string {17}URL to use in requests \(default "http:\/\/localhost:15021\/healthz\/ready"\)$/m,
    );
    assert.match(
      r.stdout,
      /^ {6}--timeoutSeconds int {9}maximum number of seconds to wait for Envoy to be ready \(default 60\)$/m,
    );
  });
});

describe("agent request", () => {
  it("sends the method, path and body to localhost:<debug-port> and prints only the answer", async () => {
    const s = await adminServer(() => [200, '{"state":"DRAINING"}']);
    servers.push(s.srv);
    const r = await agent("request", `--debug-port=${s.port}`, "POST", "/drain_listeners?inboundonly", "x=1");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"state":"DRAINING"}\n');
    assert.deepEqual(s.seen, [{ method: "POST", url: "/drain_listeners?inboundonly", body: "x=1" }]);
  });

  it("fails on a status above 399 but not on 404", async () => {
    const s = await adminServer((n) => (n === 1 ? [503, "nope"] : [404, "no such page"]));
    servers.push(s.srv);
    const failed = await agent("request", "--debug-port", String(s.port), "GET", "stats");
    assert.equal(failed.code, 255);
    assert.equal(failed.stderr, "Error: received unsuccessful status code 503: nope\n");
    const missing = await agent("request", "--debug-port", String(s.port), "GET", "stats");
    assert.equal(missing.code, 0);
    assert.equal(missing.stdout, "no such page\n");
    assert.equal(s.seen[1]?.url, "/stats");
  });

  it("allows only the agent's and Envoy's local ports, and needs a method and a path", async () => {
    const r = await agent("request", "--debug-port=8080", "GET", "/");
    assert.equal(r.code, 255);
    assert.equal(r.stderr, "Error: debug port 8080 is not in allowed list [15000 15004 15020 15021]\n");
    const short = await agent("request", "GET");
    assert.equal(short.code, 255);
    assert.equal(short.stderr, "Error: requires at least 2 arg(s), only received 1\n");
  });
});

describe("agent version", () => {
  it("prints the build information in each of pilot-agent's forms", async () => {
    const long = await agent("version");
    assert.equal(long.code, 0);
    assert.match(
      long.stdout,
      /^client version: version\.BuildInfo\{Version:"\d+\.\d+\.\d+", GitRevision:"unknown", GolangVersion:"v[\d.]+", BuildStatus:"unknown", GitTag:"\d+\.\d+\.\d+"\}\n$/,
    );
    const short = await agent("version", "-s");
    assert.match(short.stdout, /^client version: \d+\.\d+\.\d+\n$/);
    const json = JSON.parse((await agent("version", "-o", "json")).stdout);
    assert.deepEqual(Object.keys(json.clientVersion), ["version", "revision", "golang_version", "status", "tag"]);
    const yaml = (await agent("version", "--output=yaml")).stdout;
    assert.match(
      yaml,
      /^clientVersion:\n {2}golang_version: v[\d.]+\n {2}revision: unknown\n {2}status: unknown\n {2}tag: [\d.]+\n {2}version: [\d.]+\n\n$/,
    );
    const bad = await agent("version", "-o", "xml");
    assert.equal(bad.code, 255);
    assert.equal(bad.stderr, "Error: --output must be 'yaml' or 'json'\n");
  });
});
