// Proxyless gRPC end to end with mTLS as a mesh has it: two pods, each with `meshinject agent` as the
// grpc-agent template runs it (OUTPUT_CERTS set) and a fake istiod; a fake CA (protoc on its side)
// signs each agent's CSR and each agent writes key.pem, cert-chain.pem and root-cert.pem to its
// OUTPUT_CERTS. The server pod runs a @grpc/grpc-js-xds XdsServer whose inbound Listener carries
// istiod's STRICT DownstreamTlsContext (grpcgen/lds.go); the client pod's @grpc/grpc-js-xds client,
// with XdsChannelCredentials, gets an ISTIO_MUTUAL cluster whose UpstreamTlsContext is istiod's
// (grpcgen/cds.go): both take their certificates from the bootstrap's `default` file_watcher
// provider, that is from OUTPUT_CERTS. The bed: test/grpc-xds-bed.ts. Then a rotation: the agent
// rewrites OUTPUT_CERTS and a new client presents the new certificate (to a plain grpc-js mTLS
// server requiring client certificates from the same CA).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { PeerCertificate } from "node:tls";
import { type ChannelCredentials, Client, credentials, type ServiceError } from "@grpc/grpc-js";
import { type FakeCa, startFakeCa } from "../src/agent/sds/testing/fake-ca.js";
import { createTestCa } from "../src/agent/testing/pki.js";
import { protocDecode } from "../src/agent/testing/protoc.js";
import {
  downstreamTlsContext,
  grpcInboundListener,
  upstreamTlsContext,
} from "../src/agent/xds/testing/grpc-resources.js";
import { raw, SAY } from "./echo-service.js";
import {
  type Bed,
  CLIENT_ID,
  call,
  ECHO_ID,
  type Echo,
  HOST,
  PORT,
  serviceResources,
  startBed,
  startEcho,
  startXdsEcho,
  type XdsEcho,
} from "./grpc-xds-bed.js";
import { freePort } from "./loopback.js";

const TLS_PROTO = "envoy/extensions/transport_sockets/tls/v3/tls.proto";

/** `/echo.Echo/Say` straight to 127.0.0.1:`port` with grpc-js credentials (no xDS): `REPLY …` or `ERROR <code> …`. */
function directCall(port: number, creds: ChannelCredentials): Promise<string> {
  // (A host name for TLS's server name: an IP address there is deprecated. The server's identity is checked by SAN.)
  const client = new Client(`127.0.0.1:${port}`, creds, { "grpc.ssl_target_name_override": HOST });
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      SAY,
      raw,
      raw,
      Buffer.from("direct"),
      { deadline: new Date(Date.now() + 20_000) },
      (error: ServiceError | null, reply?: Buffer) => {
        client.close();
        resolve(error ? `ERROR ${error.code} ${error.details}` : `REPLY ${reply?.toString()}`);
      },
    ),
  );
}

/** key.pem, cert-chain.pem and root-cert.pem are in `dir`. */
function written(dir: string): boolean {
  return ["key.pem", "cert-chain.pem", "root-cert.pem"].every((f) => existsSync(join(dir, f)));
}

describe("proxyless gRPC with mTLS on both sides from the certificates each agent wrote to OUTPUT_CERTS", () => {
  const IMPOSTOR = "impostor.shop.svc.cluster.local";
  let client: Bed;
  let server: Bed;
  let ca: FakeCa;
  let echo: XdsEcho;
  let echoPort: number;
  const dirs: string[] = [];
  const outputCerts = () => {
    const dir = mkdtempSync(join(tmpdir(), "meshinject-output-certs-"));
    dirs.push(dir);
    return dir;
  };
  let clientCerts: string;

  before(async () => {
    const pki = await createTestCa();
    // Certificates that outlive the test: the one the echo server sees is the one on disk.
    ca = await startFakeCa({ pki, ttlMs: 3_600_000 });
    // The server pod: its agent, whose istiod serves the inbound Listener its bootstrap's template
    // names, and the xDS echo server on that port.
    echoPort = await freePort();
    const serverCerts = outputCerts();
    server = await startBed(pki, [grpcInboundListener("127.0.0.1", echoPort).any], {
      POD_NAME: "echo-1",
      SERVICE_ACCOUNT: "echo",
      CA_ADDR: ca.address,
      OUTPUT_CERTS: serverCerts,
    });
    await server.waitFor(() => written(serverCerts), "the echo pod's OUTPUT_CERTS");
    echo = await startXdsEcho(server.bootstrap().clientPath, echoPort);
    // The client pod.
    const endpoint = { address: "127.0.0.1", port: echoPort };
    clientCerts = outputCerts();
    client = await startBed(
      pki,
      [
        ...serviceResources({ host: HOST, port: PORT, endpoint, istioMutualSans: [ECHO_ID] }),
        // The same server behind a destination whose service account is another one.
        ...serviceResources({
          host: IMPOSTOR,
          port: PORT,
          endpoint,
          istioMutualSans: ["spiffe://cluster.local/ns/shop/sa/impostor"],
        }),
      ],
      { CA_ADDR: ca.address, SERVICE_ACCOUNT: "client", OUTPUT_CERTS: clientCerts },
    );
    await client.waitFor(() => written(clientCerts), "the client pod's OUTPUT_CERTS");
  });

  after(async () => {
    echo?.kill();
    await client?.close();
    await server?.close();
    await ca?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("the cluster's UpstreamTlsContext and the inbound DownstreamTlsContext are istiod's, as protoc reads them", () => {
    const decode = (type: string, bytes: Buffer) =>
      protocDecode(`envoy.extensions.transport_sockets.tls.v3.${type}`, [TLS_PROTO], bytes).replace(/\s+/g, " ").trim();
    const instance = (name: string, cert: string) => `${name} { instance_name: "default" certificate_name: "${cert}" }`;
    const common = (sans: string[]) =>
      [
        "common_tls_context {",
        "combined_validation_context {",
        "default_validation_context {",
        ...sans.map((san) => `match_subject_alt_names { exact: "${san}" }`),
        instance("ca_certificate_provider_instance", "ROOTCA"),
        "}",
        instance("validation_context_certificate_provider_instance", "ROOTCA"),
        "}",
        instance("tls_certificate_certificate_provider_instance", "default"),
        instance("tls_certificate_provider_instance", "default"),
        "}",
      ].join(" ");
    assert.equal(decode("UpstreamTlsContext", upstreamTlsContext([ECHO_ID])), common([ECHO_ID]));
    assert.equal(
      decode("DownstreamTlsContext", downstreamTlsContext()),
      `${common([])} require_client_certificate { value: true }`,
    );
  });

  it("the server asked its istiod for the inbound Listener its bootstrap's template names", () => {
    const lds = server.istiod.streams.flatMap((s) =>
      s.requests.filter((r) => String(r.typeUrl).endsWith(".Listener")).flatMap((r) => r.resourceNames as string[]),
    );
    assert.ok(lds.includes(`xds.istio.io/grpc/lds/inbound/127.0.0.1:${echoPort}`), `LDS names: ${lds}`);
  });

  it("the client presents the workload certificate from OUTPUT_CERTS with the SPIFFE ID its agent asked for", async () => {
    const { value: bootstrap, clientPath } = client.bootstrap();
    assert.deepEqual(bootstrap.certificate_providers, {
      default: {
        plugin_name: "file_watcher",
        config: {
          certificate_file: join(clientCerts, "cert-chain.pem"),
          private_key_file: join(clientCerts, "key.pem"),
          ca_certificate_file: join(clientCerts, "root-cert.pem"),
          refresh_interval: "900s",
        },
      },
    });
    const reply = await call(clientPath, `xds:///${HOST}:${PORT}`, "hello", "xds");
    assert.equal(
      reply,
      "REPLY echo:hello",
      `client: ${reply}\nclient agent:\n${client.output()}\nserver:\n${echo.output()}`,
    );

    const leaf = new X509Certificate(readFileSync(join(clientCerts, "cert-chain.pem")));
    assert.equal(leaf.subjectAltName, `URI:${CLIENT_ID}`);
    assert.ok(leaf.checkIssued(new X509Certificate(readFileSync(join(clientCerts, "root-cert.pem")))));
    assert.deepEqual(echo.peers(), [{ subjectaltname: `URI:${CLIENT_ID}`, fingerprint256: leaf.fingerprint256 }]);
    // One signing per agent, each with its pod's token.
    assert.equal(ca.calls.length, 2);
    assert.ok(ca.calls.every((c) => c.authorization === "Bearer test-token"));
  });

  it("without the certificates the call fails: plaintext credentials, or a provider over an empty folder", async () => {
    const { value: bootstrap, clientPath } = client.bootstrap();
    const before = echo.peers().length;
    const plaintext = await call(clientPath, `xds:///${HOST}:${PORT}`, "hello");
    assert.match(plaintext, /^ERROR 14 /, `plaintext: ${plaintext}`);

    const empty = join(client.root, "no-certs");
    mkdirSync(empty);
    const config = bootstrap.certificate_providers.default?.config ?? {};
    for (const [k, f] of [
      ["certificate_file", "cert-chain.pem"],
      ["private_key_file", "key.pem"],
      ["ca_certificate_file", "root-cert.pem"],
    ])
      config[k] = join(empty, f);
    const noCertsPath = join(client.root, "no-certs-bootstrap.json");
    writeFileSync(noCertsPath, JSON.stringify(bootstrap));
    const noCerts = await call(noCertsPath, `xds:///${HOST}:${PORT}`, "hello", "xds");
    assert.match(noCerts, /^ERROR 14 .*Failed to load credentials/, `no certificates: ${noCerts}`);
    assert.equal(echo.peers().length, before, "no call reached the echo service");
  });

  it("the server enforces its Listener's require_client_certificate: a TLS client without one fails, with the OUTPUT_CERTS files it gets through", async () => {
    const root = readFileSync(join(clientCerts, "root-cert.pem"));
    // The server's certificate names only its SPIFFE ID: check that, not a host name.
    const checkServerIdentity = (_host: string, cert: PeerCertificate) =>
      cert.subjectaltname === `URI:${ECHO_ID}` ? undefined : new Error(`server ${cert.subjectaltname}`);
    const before = echo.peers().length;
    const anonymous = await directCall(echoPort, credentials.createSsl(root, null, null, { checkServerIdentity }));
    assert.match(anonymous, /^ERROR 14 .*certificate required/, `without a client certificate: ${anonymous}`);
    assert.equal(echo.peers().length, before, "the call without a client certificate reached the echo service");
    const key = readFileSync(join(clientCerts, "key.pem"));
    const chain = readFileSync(join(clientCerts, "cert-chain.pem"));
    const mutual = await directCall(echoPort, credentials.createSsl(root, key, chain, { checkServerIdentity }));
    assert.equal(mutual, "REPLY echo:direct");
    assert.equal(echo.peers().at(-1)?.subjectaltname, `URI:${CLIENT_ID}`);
  });

  it("the client refuses a server whose SPIFFE ID is not the cluster's service account", async () => {
    const { clientPath } = client.bootstrap();
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
      serviceResources({
        host: HOST,
        port: PORT,
        endpoint: { address: "127.0.0.1", port: echo.port },
        istioMutualSans: [ECHO_ID],
      }),
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
