/**
 * `meshinject agent proxy` starts and stops its servers in pilot-agent's order (cmd.go,
 * istio-agent's Agent.Run and Close): Envoy is started only once the SDS server's and the XDS
 * proxy's sockets (and the DNS proxy) accept connections; on SIGTERM Envoy is drained first, and they
 * keep accepting until Envoy has exited, and close after. A server that cannot start stops the agent
 * before Envoy is started. Envoy cannot be installed here: the fake Envoy of ../envoy/testdata
 * (started as the agent starts Envoy) connects to the sockets itself at start, when the drain begins
 * and just before it exits, and prints what it saw. The agent runs as a process of its own.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { freePort } from "../../../test/loopback.js";
import { repoRoot } from "../../../test/meshinject-cli.js";
import { writePodSecrets } from "../../../test/pod-secrets.js";

const SDS_SOCKET = "var/run/secrets/workload-spiffe-uds/socket";
const XDS_SOCKET = "etc/istio/proxy/XDS";

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A pod's root with the CA root and token the SDS server needs, and the fake Envoy at binaryPath. */
function podRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "mi-order-"));
  roots.push(root);
  writePodSecrets(root);
  // The DNS proxy's upstreams (never asked here: no query is sent).
  mkdirSync(join(root, "etc"), { recursive: true });
  writeFileSync(join(root, "etc/resolv.conf"), "nameserver 127.0.0.1\n");
  mkdirSync(join(root, "usr/local/bin"), { recursive: true });
  copyFileSync(join(repoRoot, "src/agent/envoy/testdata/fake-envoy.mjs"), join(root, "usr/local/bin/envoy"));
  return root;
}

function startAgent(
  root: string,
  env: Record<string, string>,
): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/main.ts", "agent", "proxy", "sidecar", "--root", root, "--status-host", "127.0.0.1"],
    {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", POD_NAME: "web-1", POD_NAMESPACE: "shop", INSTANCE_IP: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let text = "";
  child.stdout?.on("data", (c) => {
    text += c;
  });
  child.stderr?.on("data", (c) => {
    text += c;
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exit };
}

/** Waits (bounded, and no longer than the agent runs) until `output()` matches. */
async function until(child: ChildProcess, output: () => string, pattern: RegExp, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!pattern.test(output())) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${what}: not seen in\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function accepts(endpoint: { path: string } | { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(endpoint as never);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(5000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

describe("agent proxy: pilot-agent's start and stop order", () => {
  it("starts Envoy after the SDS, XDS and DNS sockets accept; on SIGTERM closes them after Envoy exits", async () => {
    const root = podRoot();
    const [status, admin, dnsPort] = [await freePort(), await freePort(), await freePort()];
    const dns = `tcp:127.0.0.1:${dnsPort}`;
    const agent = startAgent(root, {
      PROXY_CONFIG: JSON.stringify({ statusPort: status, proxyAdminPort: admin, terminationDrainDuration: "30s" }),
      ISTIO_META_DNS_CAPTURE: "true",
      DNS_PROXY_ADDR: `127.0.0.1:${dnsPort}`,
      FAKE_ENVOY_PROBE: [SDS_SOCKET, XDS_SOCKET, dns].join(","),
      FAKE_ENVOY_EXIT_AFTER_DRAIN_MS: "500",
    });
    try {
      await until(agent.child, agent.output, /admin listening on/, "the fake Envoy's start");
      for (const endpoint of [SDS_SOCKET, XDS_SOCKET, dns]) {
        assert.match(agent.output(), new RegExp(`probe start ${endpoint} accepts`), agent.output());
      }
      agent.child.kill("SIGTERM");
      assert.equal(await agent.exit, 0, agent.output());
      const out = agent.output();
      // The drain comes first, with every server still serving, until Envoy is gone.
      for (const when of ["drain", "exit"]) {
        for (const endpoint of [SDS_SOCKET, XDS_SOCKET, dns]) {
          assert.match(out, new RegExp(`probe ${when} ${endpoint} accepts`), out);
        }
      }
      assert.ok(out.indexOf("drained, exiting with 0") < out.indexOf("Envoy exited"), out);
      // ...and after the agent is gone, none of them accepts.
      assert.equal(await accepts({ path: join(root, SDS_SOCKET) }), false);
      assert.equal(await accepts({ path: join(root, XDS_SOCKET) }), false);
      assert.equal(await accepts({ host: "127.0.0.1", port: dnsPort }), false);
    } finally {
      if (agent.child.exitCode === null) agent.child.kill("SIGKILL");
    }
  });

  it("stops before Envoy is started when the DNS proxy cannot start", async () => {
    const root = podRoot();
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
    const port = (busy.address() as { port: number }).port;
    try {
      const agent = startAgent(root, {
        PROXY_CONFIG: JSON.stringify({ statusPort: await freePort(), proxyAdminPort: await freePort() }),
        ISTIO_META_DNS_CAPTURE: "true",
        DNS_PROXY_ADDR: `127.0.0.1:${port}`,
      });
      assert.equal(await agent.exit, 1, agent.output());
      assert.match(agent.output(), /meshinject agent: dns proxy: .*EADDRINUSE/);
      assert.doesNotMatch(agent.output(), /fake-envoy|Envoy command/);
    } finally {
      busy.close();
    }
  });

  it("stops before Envoy is started when the SDS server cannot start", async () => {
    const root = podRoot();
    rmSync(join(root, "var/run/secrets/istio"), { recursive: true });
    const agent = startAgent(root, {
      PROXY_CONFIG: JSON.stringify({ statusPort: await freePort(), proxyAdminPort: await freePort() }),
    });
    assert.equal(await agent.exit, 1, agent.output());
    assert.match(agent.output(), /meshinject agent: sds server: /);
    assert.doesNotMatch(agent.output(), /fake-envoy|Envoy command/);
  });

  it("writes the gRPC bootstrap to ./etc/istio/proxy/grpc-bootstrap.json by default, ready once its cert files exist", async () => {
    const root = podRoot();
    const status = await freePort();
    const agent = startAgent(root, {
      PROXY_CONFIG: JSON.stringify({ statusPort: status }),
      DISABLE_ENVOY: "true",
      OUTPUT_CERTS: "/certs",
    });
    const ready = () =>
      new Promise<number>((resolve, reject) => {
        get({ host: "127.0.0.1", port: status, path: "/healthz/ready", agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on("error", reject);
      });
    try {
      await until(
        agent.child,
        agent.output,
        /gRPC bootstrap written to \.\/etc\/istio\/proxy\/grpc-bootstrap\.json/,
        "bootstrap",
      );
      const b = JSON.parse(readFileSync(join(root, "etc/istio/proxy/grpc-bootstrap.json"), "utf8"));
      assert.equal(b.certificate_providers.default.config.certificate_file, "/certs/cert-chain.pem");
      // grpcready: the file_watcher provider's files do not exist yet.
      assert.equal(await ready(), 503);
      await until(agent.child, agent.output, /\/certs\/cert-chain\.pem does not exist/, "grpcready's reason");
      mkdirSync(join(root, "certs"));
      for (const f of ["cert-chain.pem", "key.pem", "root-cert.pem"]) writeFileSync(join(root, "certs", f), "x");
      assert.equal(await ready(), 200);
    } finally {
      agent.child.kill("SIGTERM");
      await agent.exit;
    }
  });

  it("runs the proxy config's readinessProbe (a VM's workload health check)", async () => {
    const root = podRoot();
    const marker = join(root, "probed");
    const status = await freePort();
    const agent = startAgent(root, {
      PROXY_CONFIG: JSON.stringify({ statusPort: status, readinessProbe: { exec: { command: ["touch", marker] } } }),
      DISABLE_ENVOY: "true",
    });
    try {
      await until(agent.child, agent.output, /gRPC bootstrap written/, "start");
      for (let i = 0; i < 200 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(existsSync(marker), agent.output());
    } finally {
      agent.child.kill("SIGTERM");
      await agent.exit;
    }
  });
});
