// Proxyless gRPC end to end: `meshinject agent` runs as the grpc-agent template has it (DISABLE_ENVOY,
// GRPC_XDS_BOOTSTRAP, ISTIO_META_GENERATOR=grpc) against a fake istiod of ours over TLS (protoc +
// @bufbuild/protobuf on its side) that serves LDS, RDS, CDS and EDS for one `xds:///` service; a
// @grpc/grpc-js-xds client, bootstrapped from the file the agent wrote, reaches an echo server through
// the agent's XDS proxy. The bootstrap names `unix:///etc/istio/proxy/XDS` as it would in a pod; the
// test points that path under its --root and changes nothing else. The call is plaintext: no
// certificates are in OUTPUT_CERTS on this branch (the agent does not write them yet), so the
// resources carry no transport socket.
import assert from "node:assert/strict";
import { type ChildProcess, execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from "@grpc/grpc-js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../src/agent/istiod-channel.js";
import { createTestCa } from "../src/agent/testing/pki.js";
import { until } from "../src/agent/testing/until.js";
import { type FakeIstiod, type IstiodStream, startFakeIstiod } from "../src/agent/xds/testing/fake-istiod.js";
import { grpcServiceResources } from "../src/agent/xds/testing/grpc-resources.js";
import { freePort } from "./loopback.js";
import { repoRoot, spawnAgentSidecar } from "./meshinject-cli.js";

const run = promisify(execFile);
const HOST = "echo.shop.svc.cluster.local";
const PORT = 7070;

async function startEcho(): Promise<{ server: Server; port: number }> {
  const server = new Server();
  const identity = (b: Buffer) => b;
  server.addService(
    {
      Say: {
        path: "/echo.Echo/Say",
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    {
      Say: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) =>
        done(null, Buffer.concat([Buffer.from("echo:"), call.request])),
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { server, port };
}

describe("proxyless gRPC through the agent's bootstrap and XDS proxy", () => {
  let root: string;
  let istiod: FakeIstiod;
  let echo: { server: Server; port: number };
  let agent: ChildProcess;
  let output = "";

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "meshinject-grpc-xds-"));
    const pki = await createTestCa();
    for (const [rel, text] of [
      [CA_ROOT_CERT, pki.rootPem],
      [TOKEN_PATH, "test-token"],
    ] as const) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    echo = await startEcho();
    istiod = await startFakeIstiod(pki);
    const resources = grpcServiceResources({
      host: HOST,
      port: PORT,
      endpoint: { address: "127.0.0.1", port: echo.port },
    });
    // Answer each new subscription (no nonce: not an ACK) with the resource of that type.
    let version = 0;
    istiod.onRequest = (stream: IstiodStream, request) => {
      const r = resources[String(request.typeUrl)];
      if (!r || request.responseNonce) return;
      version++;
      void stream.push({
        versionInfo: String(version),
        nonce: `n${version}`,
        typeUrl: request.typeUrl,
        resources: [r.any],
      });
    };
    const statusPort = await freePort();
    agent = spawnAgentSidecar(root, {
      POD_NAME: "echo-client-1",
      POD_NAMESPACE: "shop",
      INSTANCE_IP: "127.0.0.1",
      DISABLE_ENVOY: "true",
      GRPC_XDS_BOOTSTRAP: "/etc/istio/proxy/grpc-bootstrap.json",
      ISTIO_META_GENERATOR: "grpc",
      ISTIO_META_CLUSTER_ID: "Kubernetes",
      PROXY_CONFIG: JSON.stringify({ discoveryAddress: istiod.address, statusPort }),
    });
    agent.stdout?.on("data", (c) => {
      output += c;
    });
    agent.stderr?.on("data", (c) => {
      output += c;
    });
    await until(
      () =>
        existsSync(join(root, "etc/istio/proxy/XDS")) && existsSync(join(root, "etc/istio/proxy/grpc-bootstrap.json")),
      `the agent's XDS socket and gRPC bootstrap (agent output:\n${output})`,
      60_000,
    );
  });

  after(async () => {
    if (agent && agent.exitCode === null) agent.kill("SIGKILL");
    await istiod?.close();
    echo?.server.forceShutdown();
    rmSync(root, { recursive: true, force: true });
  });

  it("a @grpc/grpc-js-xds client calls the echo server of an xds:/// target", async () => {
    const bootstrap = JSON.parse(readFileSync(join(root, "etc/istio/proxy/grpc-bootstrap.json"), "utf8"));
    assert.equal(bootstrap.xds_servers[0].server_uri, "unix:///etc/istio/proxy/XDS");
    bootstrap.xds_servers[0].server_uri = `unix:${join(root, "etc/istio/proxy/XDS")}`;
    const clientBootstrap = join(root, "client-bootstrap.json");
    writeFileSync(clientBootstrap, JSON.stringify(bootstrap));
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "test/grpc-xds-client.ts", `xds:///${HOST}:${PORT}`, "hello"],
      { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", GRPC_XDS_BOOTSTRAP: clientBootstrap }, timeout: 60_000 },
    );
    assert.equal(stdout.trim(), "REPLY echo:hello", `client: ${stdout}\nagent:\n${output}`);

    // What istiod saw, decoded by its own protobuf stack: one stream, the bootstrap's node, each
    // type asked for and ACKed.
    assert.equal(istiod.streams.length, 1);
    const s = istiod.streams[0];
    assert.ok(s);
    assert.equal(s.authorization, "Bearer test-token");
    assert.equal(s.clusterId, "Kubernetes");
    assert.equal((s.requests[0]?.node as { id?: string } | undefined)?.id, bootstrap.node.id);
    assert.match(bootstrap.node.id, /^sidecar~127\.0\.0\.1~echo-client-1\.shop~shop\.svc\.cluster\.local$/);
    const types = ["Listener", "RouteConfiguration", "Cluster", "ClusterLoadAssignment"];
    await until(
      () =>
        types.every((t) =>
          s.requests.some((r) => String(r.typeUrl).endsWith(`.${t}`) && r.responseNonce && !r.errorDetail),
        ),
      "an ACK for each of LDS, RDS, CDS, EDS",
    );
  });
});
