// `meshinject agent` runs the DNS proxy when the pod asks for DNS capture (ISTIO_META_DNS_CAPTURE),
// as pilot-agent does: it answers on DNS_PROXY_ADDR (queried with node:dns), keeps the agent unready
// until istiod's name table arrives, and the status server's /debug/ndsz has nothing to show yet.
// The agent runs without Envoy (DISABLE_ENVOY, as the grpc-agent template sets); its SDS server and
// XDS proxy run too, with no istiod to reach.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { Resolver } from "node:dns/promises";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DNS_NOT_READY } from "../src/agent/dns/server.js";
import { freePort } from "./loopback.js";
import { spawnAgentSidecar } from "./meshinject-cli.js";
import { writePodSecrets } from "./pod-secrets.js";

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = get({ host: "127.0.0.1", port, path, timeout: 2_000 }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", () => resolve({ status: 0, body: "" }));
    req.on("timeout", () => req.destroy());
  });
}

describe("meshinject agent with DNS capture", () => {
  let agent: ChildProcess;
  let root: string;
  let output = "";
  let statusPort = 0;
  let dnsPort = 0;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "meshinject-agent-dns-"));
    writePodSecrets(root);
    mkdirSync(join(root, "etc"), { recursive: true });
    // Nothing listens on port 53 here: forwarded queries fail fast and are answered SERVFAIL.
    writeFileSync(join(root, "etc/resolv.conf"), "nameserver 127.0.0.1\nsearch shop.svc.cluster.local\n");
    statusPort = await freePort();
    dnsPort = await freePort();
    agent = spawnAgentSidecar(root, {
      POD_NAME: "web-1",
      POD_NAMESPACE: "shop",
      INSTANCE_IP: "127.0.0.1",
      DISABLE_ENVOY: "true",
      ISTIO_META_DNS_CAPTURE: "true",
      DNS_PROXY_ADDR: `127.0.0.1:${dnsPort}`,
      PROXY_CONFIG: JSON.stringify({ statusPort }),
    });
    agent.stdout?.on("data", (c) => {
      output += c;
    });
    agent.stderr?.on("data", (c) => {
      output += c;
    });
    for (let i = 0; i < 600; i++) {
      if ((await httpGet(statusPort, "/healthz/ready")).status > 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the agent's status server never answered:\n${output}`);
  });

  after(() => {
    if (agent.exitCode === null) agent.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("answers on DNS_PROXY_ADDR: a name nobody can resolve is answered, not dropped", async () => {
    const resolver = new Resolver({ timeout: 3_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${dnsPort}`]);
    await assert.rejects(resolver.resolve4("nowhere.example."), (e: NodeJS.ErrnoException) => {
      assert.equal(e.code, "ESERVFAIL", `${e.code}\n${output}`);
      return true;
    });
  });

  it("serves XDS on an owner-only Unix socket under the root; no SDS socket with DISABLE_ENVOY", () => {
    const stat = statSync(join(root, "etc/istio/proxy/XDS"));
    assert.ok(stat.isSocket());
    assert.equal(stat.mode & 0o777, 0o600);
    // pilot-agent's initSdsServer: without Envoy there is no SDS server, only certificate refresh.
    assert.ok(!existsSync(join(root, "var/run/secrets/workload-spiffe-uds/socket")));
  });

  it("stays unready until istiod's name table arrives, and says why", async () => {
    const ready = await httpGet(statusPort, "/healthz/ready");
    assert.equal(ready.status, 503, output);
    assert.match(ready.body + output, new RegExp(DNS_NOT_READY));
    assert.equal((await httpGet(statusPort, "/debug/ndsz")).status, 404);
  });
});
