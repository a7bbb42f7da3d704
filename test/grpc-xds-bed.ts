// The test bed of the proxyless gRPC end-to-end tests (test/agent-grpc-xds*.test.ts): `meshinject
// agent` as the grpc-agent template runs it (DISABLE_ENVOY, GRPC_XDS_BOOTSTRAP, ISTIO_META_GENERATOR=grpc)
// against a fake istiod of ours over TLS (protoc + @bufbuild/protobuf on its side) serving the xDS
// resources a test gives (encoded with protobufjs from Envoy's protos; the agent's XDS proxy passes
// them through and @grpc/grpc-js-xds decodes them); @grpc/grpc-js-xds clients and servers as child
// processes bootstrapped from the file the agent wrote (which names `unix:///etc/istio/proxy/XDS` as
// in a pod: the bed points that path under its --root and changes nothing else); echo servers.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import {
  status as grpcStatus,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
} from "@grpc/grpc-js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../src/agent/istiod-channel.js";
import type { TestCa } from "../src/agent/testing/pki.js";
import { until } from "../src/agent/testing/until.js";
import { type FakeIstiod, type IstiodStream, startFakeIstiod } from "../src/agent/xds/testing/fake-istiod.js";
import { type AnyValue, type GrpcService, grpcServiceResources } from "../src/agent/xds/testing/grpc-resources.js";
import { ECHO_SERVICE, echoReply } from "./echo-service.js";
import { freePort } from "./loopback.js";
import { childOutput, repoRoot, spawnAgentSidecar } from "./meshinject-cli.js";

const run = promisify(execFile);
export const HOST = "echo.shop.svc.cluster.local";
export const PORT = 7070;
export const CLIENT_ID = "spiffe://cluster.local/ns/shop/sa/client";
export const ECHO_ID = "spiffe://cluster.local/ns/shop/sa/echo";

export interface Peer {
  subjectaltname: string | undefined;
  fingerprint256: string | undefined;
}

export interface Echo {
  server: Server;
  port: number;
  /** The certificate each caller presented (mTLS only). */
  peers: Peer[];
}

/** `/echo.Echo/Say`; with `tls`, only over mTLS, answering only the client identity `expect`. */
export async function startEcho(tls?: { pki: TestCa; expect: string }): Promise<Echo> {
  const server = new Server();
  const peers: Peer[] = [];
  server.addService(ECHO_SERVICE, {
    Say: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => {
      if (tls) {
        const cert = call.getAuthContext().sslPeerCertificate;
        peers.push({ subjectaltname: cert?.subjectaltname, fingerprint256: cert?.fingerprint256 });
        if (cert?.subjectaltname !== `URI:${tls.expect}`)
          return done({ code: grpcStatus.PERMISSION_DENIED, details: `peer ${cert?.subjectaltname}` });
      }
      done(null, echoReply(call.request));
    },
  });
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
export interface BootstrapFile {
  xds_servers: { server_uri: string }[];
  node: { id: string };
  certificate_providers: Record<string, { plugin_name: string; config: Record<string, string> }>;
}

export interface Bed {
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

/** Each of the four resources of `svc`, as a DiscoveryResponse carries them. */
export function serviceResources(svc: GrpcService): AnyValue[] {
  return Object.values(grpcServiceResources(svc)).map((r) => r.any);
}

/**
 * The fake istiod serving `resources`, and the agent (env: the grpc-agent template's, `env` on top),
 * started, with its XDS socket and bootstrap.
 */
export async function startBed(pki: TestCa, resources: AnyValue[], env: Record<string, string>): Promise<Bed> {
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
  for (const r of resources) byType.set(r.typeUrl, [...(byType.get(r.typeUrl) ?? []), r]);
  // Answer each new subscription (no nonce: not an ACK) with every resource of that type.
  let version = 0;
  istiod.onRequest = (stream: IstiodStream, request) => {
    const ofType = byType.get(String(request.typeUrl));
    if (!ofType || request.responseNonce) return;
    version++;
    void stream.push({
      versionInfo: String(version),
      nonce: `n${version}`,
      typeUrl: request.typeUrl,
      resources: ofType,
    });
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
  const agentOutput = childOutput(agent);
  const output = () => agentOutput.stdout + agentOutput.stderr;
  const bed: Bed = {
    root,
    istiod,
    agent,
    output,
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
        throw new Error(`${(error as Error).message}; agent output:\n${output()}`);
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
export async function call(bootstrapPath: string, target: string, text: string, mode?: "xds"): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "test/grpc-xds-client.ts", target, text, ...(mode ? [mode] : [])],
    { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", GRPC_XDS_BOOTSTRAP: bootstrapPath }, timeout: 60_000 },
  );
  return stdout.trim();
}

export interface XdsEcho {
  /** The certificate each caller presented, as the server saw it. */
  peers(): Peer[];
  output(): string;
  kill(): void;
}

/** test/grpc-xds-server.ts on 127.0.0.1:`port`, bootstrapped from `bootstrapPath`, once it serves. */
export async function startXdsEcho(bootstrapPath: string, port: number): Promise<XdsEcho> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "test/grpc-xds-server.ts", String(port)], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "", GRPC_XDS_BOOTSTRAP: bootstrapPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const childOut = childOutput(child);
  const output = () => childOut.stdout + childOut.stderr;
  const echo: XdsEcho = {
    peers: () =>
      childOut.stdout
        .split("\n")
        .filter((l) => l.startsWith("PEER "))
        .map((l) => {
          const [fp = "-", ...san] = l.slice("PEER ".length).split(" ");
          return {
            subjectaltname: san.join(" ") === "-" ? undefined : san.join(" "),
            fingerprint256: fp === "-" ? undefined : fp,
          };
        }),
    output,
    kill: () => {
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
  try {
    await until(
      () => /^(NOT_)?SERVING/m.test(childOut.stdout) || child.exitCode !== null,
      "the xDS echo server serving",
      60_000,
    );
  } catch (error) {
    echo.kill();
    throw new Error(`${(error as Error).message}; its output:\n${output()}`);
  }
  if (!/^SERVING$/m.test(childOut.stdout)) {
    echo.kill();
    assert.fail(`the xDS echo server: ${output()}`);
  }
  return echo;
}
