// Proxyless gRPC end to end: `meshinject agent` runs as the grpc-agent template has it (DISABLE_ENVOY,
// GRPC_XDS_BOOTSTRAP, ISTIO_META_GENERATOR=grpc, OUTPUT_CERTS) against a fake istiod of ours over TLS
// (protoc + @bufbuild/protobuf on its side) that serves LDS, RDS, CDS and EDS for `xds:///` services;
// a @grpc/grpc-js-xds client, bootstrapped from the file the agent wrote, reaches an echo server
// through the agent's XDS proxy. The bootstrap names `unix:///etc/istio/proxy/XDS` as it would in a
// pod; the test points that path under its --root and changes nothing else.
//
// First in plaintext (the cluster carries no transport socket), then with mTLS as istiod configures
// it for an ISTIO_MUTUAL destination: a fake CA (protoc on its side) signs the agent's CSR, the agent
// writes key.pem, cert-chain.pem and root-cert.pem to OUTPUT_CERTS, the cluster's UpstreamTlsContext
// names the bootstrap's certificate provider `default` (file_watcher over those files) and the echo
// server's SPIFFE ID, and the echo server, a grpc-js server requiring client certificates from the
// same CA, sees the workload certificate the agent wrote.
import assert from "node:assert/strict";
import { type ChildProcess, execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import {
  status as grpcStatus,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
} from "@grpc/grpc-js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../src/agent/istiod-channel.js";
import { type FakeCa, startFakeCa } from "../src/agent/sds/testing/fake-ca.js";
import { createTestCa, type TestCa } from "../src/agent/testing/pki.js";
import { protocDecode } from "../src/agent/testing/protoc.js";
import { until } from "../src/agent/testing/until.js";
import { type FakeIstiod, type IstiodStream, startFakeIstiod } from "../src/agent/xds/testing/fake-istiod.js";
import {
  type AnyValue,
  type GrpcService,
  grpcServiceResources,
  upstreamTlsContext,
} from "../src/agent/xds/testing/grpc-resources.js";
import { freePort } from "./loopback.js";
import { repoRoot, spawnAgentSidecar } from "./meshinject-cli.js";

const run = promisify(execFile);
const HOST = "echo.shop.svc.cluster.local";
const PORT = 7070;
const CLIENT_ID = "spiffe://cluster.local/ns/shop/sa/client";
const ECHO_ID = "spiffe://cluster.local/ns/shop/sa/echo";

interface Peer {
  subjectaltname: string | undefined;
  fingerprint256: string | undefined;
}

interface Echo {
  server: Server;
  port: number;
  /** The certificate each caller presented (mTLS only). */
  peers: Peer[];
}

/** `/echo.Echo/Say`; with `tls`, only over mTLS, answering only the client identity `expect`. */
async function startEcho(tls?: { pki: TestCa; expect: string }): Promise<Echo> {
  const server = new Server();
  const peers: Peer[] = [];
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
      Say: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => {
        if (tls) {
          const cert = call.getAuthContext().sslPeerCertificate;
          peers.push({ subjectaltname: cert?.subjectaltname, fingerprint256: cert?.fingerprint256 });
          if (cert?.subjectaltname !== `URI:${tls.expect}`)
            return done({ code: grpcStatus.PERMISSION_DENIED, details: `peer ${cert?.subjectaltname}` });
        }
        done(null, Buffer.concat([Buffer.from("echo:"), call.request]));
      },
    },
  );
  const credentials = tls
    ? ServerCredentials.createSsl(
        Buffer.from(tls.pki.rootPem),
        [await tls.pki.issueWorkload([ECHO_ID])].map((c) => ({
          cert_chain: Buffer.from(c.certPem),
          private_key: Buffer.from(c.keyPem),
        })),
        true,
      )
    : ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { server, port, peers };
}

/** The parts of the gRPC bootstrap file the tests read. */
interface BootstrapFile {
  xds_servers: { server_uri: string }[];
  node: { id: string };
  certificate_providers: Record<string, { plugin_name: string; config: Record<string, string> }>;
}

interface Bed {
  root: string;
  istiod: FakeIstiod;
  agent: ChildProcess;
  output(): string;
  /** The bootstrap the agent wrote, with the XDS socket under the test's root. */
  bootstrap(): { value: BootstrapFile; clientPath: string };
  /** Polls `check` for up to a minute, failing with the agent's output. */
  waitFor(check: () => boolean, what: string): Promise<void>;
  close(): Promise<void>;
}

/** The fake istiod serving `services`, and the agent, started, with its XDS socket and bootstrap. */
async function startBed(pki: TestCa, services: GrpcService[], env: Record<string, string>): Promise<Bed> {
  const root = mkdtempSync(join(tmpdir(), "meshinject-grpc-xds-"));
  for (const [rel, text] of [
    [CA_ROOT_CERT, pki.rootPem],
    [TOKEN_PATH, "test-token"],
  ] as const) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  const istiod = await startFakeIstiod(pki);
  const byType = new Map<string, AnyValue[]>();
  for (const svc of services)
    for (const [typeUrl, r] of Object.entries(grpcServiceResources(svc)))
      byType.set(typeUrl, [...(byType.get(typeUrl) ?? []), r.any]);
  // Answer each new subscription (no nonce: not an ACK) with every resource of that type.
  let version = 0;
  istiod.onRequest = (stream: IstiodStream, request) => {
    const resources = byType.get(String(request.typeUrl));
    if (!resources || request.responseNonce) return;
    version++;
    void stream.push({ versionInfo: String(version), nonce: `n${version}`, typeUrl: request.typeUrl, resources });
  };
  const statusPort = await freePort();
  const agent = spawnAgentSidecar(root, {
    POD_NAME: "echo-client-1",
    POD_NAMESPACE: "shop",
    INSTANCE_IP: "127.0.0.1",
    DISABLE_ENVOY: "true",
    GRPC_XDS_BOOTSTRAP: "/etc/istio/proxy/grpc-bootstrap.json",
    ISTIO_META_GENERATOR: "grpc",
    ISTIO_META_CLUSTER_ID: "Kubernetes",
    PROXY_CONFIG: JSON.stringify({ discoveryAddress: istiod.address, statusPort }),
    ...env,
  });
  let output = "";
  agent.stdout?.on("data", (c) => {
    output += c;
  });
  agent.stderr?.on("data", (c) => {
    output += c;
  });
  const bed: Bed = {
    root,
    istiod,
    agent,
    output: () => output,
    bootstrap() {
      const value = JSON.parse(readFileSync(join(root, "etc/istio/proxy/grpc-bootstrap.json"), "utf8"));
      assert.equal(value.xds_servers[0].server_uri, "unix:///etc/istio/proxy/XDS");
      value.xds_servers[0].server_uri = `unix:${join(root, "etc/istio/proxy/XDS")}`;
      const clientPath = join(root, "client-bootstrap.json");
      writeFileSync(clientPath, JSON.stringify(value));
      return { value, clientPath };
    },
    async waitFor(check, what) {
      try {
        await until(check, what, 60_000);
      } catch (error) {
        throw new Error(`${(error as Error).message}; agent output:\n${output}`);
      }
    },
    async close() {
      if (agent.exitCode === null) agent.kill("SIGKILL");
      await istiod.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  await bed.waitFor(
    () =>
      existsSync(join(root, "etc/istio/proxy/XDS")) && existsSync(join(root, "etc/istio/proxy/grpc-bootstrap.json")),
    "the agent's XDS socket and gRPC bootstrap",
  );
  return bed;
}

/** One call from a @grpc/grpc-js-xds client process: `REPLY …` or `ERROR <code> …`. */
async function call(bootstrapPath: string, target: string, text: string, mode?: "xds"): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "test/grpc-xds-client.ts", target, text, ...(mode ? [mode] : [])],
    { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", GRPC_XDS_BOOTSTRAP: bootstrapPath }, timeout: 60_000 },
  );
  return stdout.trim();
}

describe("proxyless gRPC through the agent's bootstrap and XDS proxy", () => {
  let bed: Bed;
  let echo: Echo;

  before(async () => {
    const pki = await createTestCa();
    echo = await startEcho();
    bed = await startBed(pki, [{ host: HOST, port: PORT, endpoint: { address: "127.0.0.1", port: echo.port } }], {});
  });

  after(async () => {
    await bed?.close();
    echo?.server.forceShutdown();
  });

  it("a @grpc/grpc-js-xds client calls the echo server of an xds:/// target", async () => {
    const { value: bootstrap, clientPath } = bed.bootstrap();
    const reply = await call(clientPath, `xds:///${HOST}:${PORT}`, "hello");
    assert.equal(reply, "REPLY echo:hello", `client: ${reply}\nagent:\n${bed.output()}`);

    // What istiod saw, decoded by its own protobuf stack: one stream, the bootstrap's node, each
    // type asked for and ACKed.
    assert.equal(bed.istiod.streams.length, 1);
    const s = bed.istiod.streams[0];
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

describe("proxyless gRPC with mTLS from the certificates the agent wrote to OUTPUT_CERTS", () => {
  const IMPOSTOR = "impostor.shop.svc.cluster.local";
  let bed: Bed;
  let ca: FakeCa;
  let echo: Echo;
  let certs: string;

  before(async () => {
    const pki = await createTestCa();
    // A certificate that outlives the test: the one the echo server sees is the one on disk.
    ca = await startFakeCa({ pki, ttlMs: 3_600_000 });
    echo = await startEcho({ pki, expect: CLIENT_ID });
    const endpoint = { address: "127.0.0.1", port: echo.port };
    certs = mkdtempSync(join(tmpdir(), "meshinject-output-certs-"));
    bed = await startBed(
      pki,
      [
        { host: HOST, port: PORT, endpoint, istioMutualSans: [ECHO_ID] },
        // The same server behind a destination whose service account is another one.
        { host: IMPOSTOR, port: PORT, endpoint, istioMutualSans: ["spiffe://cluster.local/ns/shop/sa/impostor"] },
      ],
      { CA_ADDR: ca.address, SERVICE_ACCOUNT: "client", OUTPUT_CERTS: certs },
    );
    await bed.waitFor(
      () => ["key.pem", "cert-chain.pem", "root-cert.pem"].every((f) => existsSync(join(certs, f))),
      "key.pem, cert-chain.pem and root-cert.pem in OUTPUT_CERTS",
    );
  });

  after(async () => {
    await bed?.close();
    await ca?.close();
    echo?.server.forceShutdown();
    if (certs) rmSync(certs, { recursive: true, force: true });
  });

  it("the cluster's UpstreamTlsContext is istiod's for ISTIO_MUTUAL, as protoc reads it", () => {
    const text = protocDecode(
      "envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
      ["envoy/extensions/transport_sockets/tls/v3/tls.proto"],
      upstreamTlsContext([ECHO_ID]),
    );
    const flat = text.replace(/\s+/g, " ").trim();
    const instance = (name: string, cert: string) => `${name} { instance_name: "default" certificate_name: "${cert}" }`;
    assert.equal(
      flat,
      [
        "common_tls_context {",
        "combined_validation_context {",
        "default_validation_context {",
        `match_subject_alt_names { exact: "${ECHO_ID}" }`,
        instance("ca_certificate_provider_instance", "ROOTCA"),
        "}",
        instance("validation_context_certificate_provider_instance", "ROOTCA"),
        "}",
        instance("tls_certificate_certificate_provider_instance", "default"),
        instance("tls_certificate_provider_instance", "default"),
        "}",
      ].join(" "),
    );
  });

  it("the client presents the workload certificate from OUTPUT_CERTS with the SPIFFE ID the agent asked for", async () => {
    const { value: bootstrap, clientPath } = bed.bootstrap();
    assert.deepEqual(bootstrap.certificate_providers, {
      default: {
        plugin_name: "file_watcher",
        config: {
          certificate_file: join(certs, "cert-chain.pem"),
          private_key_file: join(certs, "key.pem"),
          ca_certificate_file: join(certs, "root-cert.pem"),
          refresh_interval: "900s",
        },
      },
    });
    const reply = await call(clientPath, `xds:///${HOST}:${PORT}`, "hello", "xds");
    assert.equal(reply, "REPLY echo:hello", `client: ${reply}\nagent:\n${bed.output()}`);

    const written = new X509Certificate(readFileSync(join(certs, "cert-chain.pem")));
    assert.equal(written.subjectAltName, `URI:${CLIENT_ID}`);
    assert.ok(written.checkIssued(new X509Certificate(readFileSync(join(certs, "root-cert.pem")))));
    assert.deepEqual(echo.peers, [{ subjectaltname: `URI:${CLIENT_ID}`, fingerprint256: written.fingerprint256 }]);
    // The CA signed the agent's CSR for that identity, once.
    assert.equal(ca.calls.length, 1);
    assert.equal(ca.calls[0]?.authorization, "Bearer test-token");
  });

  it("without the certificates the call fails: plaintext credentials, or a provider over an empty folder", async () => {
    const { value: bootstrap, clientPath } = bed.bootstrap();
    const plaintext = await call(clientPath, `xds:///${HOST}:${PORT}`, "hello");
    assert.match(plaintext, /^ERROR 14 /, `plaintext: ${plaintext}`);

    const empty = join(bed.root, "no-certs");
    mkdirSync(empty);
    const config = bootstrap.certificate_providers.default?.config ?? {};
    for (const [k, f] of [
      ["certificate_file", "cert-chain.pem"],
      ["private_key_file", "key.pem"],
      ["ca_certificate_file", "root-cert.pem"],
    ])
      config[k] = join(empty, f);
    const noCertsPath = join(bed.root, "no-certs-bootstrap.json");
    writeFileSync(noCertsPath, JSON.stringify(bootstrap));
    const noCerts = await call(noCertsPath, `xds:///${HOST}:${PORT}`, "hello", "xds");
    assert.match(noCerts, /^ERROR 14 .*Failed to load credentials/, `no certificates: ${noCerts}`);
    assert.deepEqual(echo.peers.length, 1, "no call reached the echo server");
  });

  it("the client refuses a server whose SPIFFE ID is not the cluster's service account", async () => {
    const { clientPath } = bed.bootstrap();
    const reply = await call(clientPath, `xds:///${IMPOSTOR}:${PORT}`, "hello", "xds");
    assert.match(reply, /^ERROR 14 .*No matching subject alternative name/, `impostor: ${reply}`);
  });
});

describe("proxyless gRPC after rotation: the agent rewrites OUTPUT_CERTS and a new client presents the new certificate", () => {
  let bed: Bed;
  let ca: FakeCa;
  let echo: Echo;
  let certs: string;

  before(async () => {
    const pki = await createTestCa();
    // Rotation at half the lifetime (SECRET_GRACE_PERIOD_RATIO 0.5): every ~5 s.
    ca = await startFakeCa({ pki, ttlMs: 10_000 });
    echo = await startEcho({ pki, expect: CLIENT_ID });
    certs = mkdtempSync(join(tmpdir(), "meshinject-output-certs-"));
    bed = await startBed(
      pki,
      [{ host: HOST, port: PORT, endpoint: { address: "127.0.0.1", port: echo.port }, istioMutualSans: [ECHO_ID] }],
      { CA_ADDR: ca.address, SERVICE_ACCOUNT: "client", OUTPUT_CERTS: certs },
    );
  });

  after(async () => {
    await bed?.close();
    await ca?.close();
    echo?.server.forceShutdown();
    if (certs) rmSync(certs, { recursive: true, force: true });
  });

  it("cert-chain.pem is replaced at rotation, and the next call presents the rotated certificate", async () => {
    const leaf = () => {
      try {
        return new X509Certificate(readFileSync(join(certs, "cert-chain.pem")));
      } catch {
        return undefined;
      }
    };
    await bed.waitFor(() => leaf() !== undefined, "the first certificate in OUTPUT_CERTS");
    const first = leaf()?.fingerprint256;
    await bed.waitFor(() => {
      const now = leaf();
      return now !== undefined && now.fingerprint256 !== first;
    }, "a rotated certificate in OUTPUT_CERTS");
    const rotated = leaf();
    assert.ok(rotated);
    assert.equal(rotated.subjectAltName, `URI:${CLIENT_ID}`);
    assert.ok(ca.calls.length >= 2, `CA calls: ${ca.calls.length}`);

    const { clientPath } = bed.bootstrap();
    const reply = await call(clientPath, `xds:///${HOST}:${PORT}`, "again", "xds");
    assert.equal(reply, "REPLY echo:again", `client: ${reply}\nagent:\n${bed.output()}`);
    assert.equal(echo.peers.length, 1);
    assert.equal(echo.peers[0]?.subjectaltname, `URI:${CLIENT_ID}`);
    // Whatever rotation the client loaded, it is not the first certificate (it started after that one was replaced).
    assert.notEqual(echo.peers[0]?.fingerprint256, first);
  });
});
