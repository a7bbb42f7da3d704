/**
 * A pod for the agent's footprint bench (bench/agent-footprint.ts), as an operator would set one up
 * on a workstation: a scratch root with the files the kubelet mounts (istiod's root certificate, the
 * token, the podinfo files, resolv.conf, the fake Envoy of src/agent/envoy/testdata at the default
 * binary path), a fake CA and a fake istiod of ours over real TLS on loopback (the test fakes of
 * src/agent/sds/testing and src/agent/xds/testing: protoc and @bufbuild/protobuf on their side), an
 * application behind an HTTP readiness probe, and the agent started exactly as the proxy image starts
 * it: deploy/proxy/pilot-agent (the image's /usr/local/bin/pilot-agent), with the folder it names
 * (/opt/meshinject) replaced by this checkout, running the built dist/cli/main.js.
 *
 * Envoy's part towards the agent is played here: an ADS client on the XDS socket (CDS and LDS, each
 * response ACKed, reconnecting after a second when the stream ends, as Envoy does when istiod goes
 * away) and an SDS client on the SDS socket (`default` and `ROOTCA`, ACKed). The fake istiod answers
 * CDS and LDS with a few opaque resources and the agent's NDS request with a name table, so that the
 * DNS proxy turns ready.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CA_ROOT_CERT, TOKEN_PATH } from "../src/agent/istiod-channel.js";
import { SDS_SOCKET } from "../src/agent/sds/server.js";
import { type FakeCa, startFakeCa } from "../src/agent/sds/testing/fake-ca.js";
import { type SdsTestClient, sdsClient } from "../src/agent/sds/testing/sds-client.js";
import { createTestCa, type TestCa } from "../src/agent/testing/pki.js";
import { XDS_SOCKET } from "../src/agent/xds/proxy.js";
import { type AdsTestClient, adsClient } from "../src/agent/xds/testing/ads-client.js";
import { encodeIstiodMessage, type FakeIstiod, startFakeIstiod } from "../src/agent/xds/testing/fake-istiod.js";
import { freePort } from "../test/loopback.js";
import { writeProxyWrapper } from "../test/proxy-wrapper.js";

export const repoRoot = fileURLToPath(new URL("../", import.meta.url));

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";
const NDS = "type.googleapis.com/istio.networking.nds.v1.NameTable";
const NODE = { id: "sidecar~127.0.0.1~web-1.shop~shop.svc.cluster.local", cluster: "web.shop" };

/** The shared setting: PKI, fake CA and istiod (restartable), the application, the scratch folder. */
export class Mesh {
  readonly dir: string;
  readonly pki: TestCa;
  ca!: FakeCa;
  istiod!: FakeIstiod;
  app!: Server;
  appPort = 0;
  /** What the fakes saw: NDS pushes, CA calls over restarts, istiod restarts. */
  ndsPushes = 0;
  caCalls = 0;
  restarts = 0;
  private caPort = 0;
  private istiodPort = 0;
  private ttlMs: number;

  private constructor(pki: TestCa, ttlMs: number) {
    this.dir = join(tmpdir(), `meshinject-footprint-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    mkdirSync(this.dir, { recursive: true });
    this.pki = pki;
    this.ttlMs = ttlMs;
  }

  static async start(ttlMs: number): Promise<Mesh> {
    const mesh = new Mesh(await createTestCa(), ttlMs);
    await mesh.startIstiod();
    mesh.app = createServer((req, res) => {
      res.writeHead(req.url === "/ready" ? 200 : 404);
      res.end("ok");
    });
    mesh.app.keepAliveTimeout = 1000;
    await new Promise<void>((r) => mesh.app.listen(0, "127.0.0.1", r));
    mesh.appPort = (mesh.app.address() as { port: number }).port;
    return mesh;
  }

  /** istiod (its CA and its ADS server), on the same ports as before when restarted. */
  private async startIstiod(): Promise<void> {
    this.ca = await startFakeCa({ pki: this.pki, ttlMs: this.ttlMs, port: this.caPort });
    this.caPort = this.ca.port;
    const istiod = await startFakeIstiod(this.pki, this.istiodPort);
    this.istiodPort = istiod.port;
    istiod.onRequest = (stream, request) => {
      if (request.responseNonce) return; // an ACK
      const typeUrl = String(request.typeUrl);
      this.ndsPushes += typeUrl === NDS ? 1 : 0;
      const resources =
        typeUrl === NDS
          ? [
              {
                typeUrl: NDS,
                value: encodeIstiodMessage("istio.networking.nds.v1.NameTable", {
                  table: {
                    "api.shop.svc.cluster.local": {
                      ips: ["10.96.0.10"],
                      shortname: "api",
                      namespace: "shop",
                      registry: "Kubernetes",
                    },
                  },
                }),
              },
            ]
          : typeUrl === CDS || typeUrl === LDS
            ? Array.from({ length: 20 }, (_, i) => ({ typeUrl, value: Buffer.alloc(512, i) }))
            : [];
      void stream.push({
        versionInfo: "1",
        nonce: `${typeUrl.slice(-3)}-${stream.requests.length}`,
        typeUrl,
        resources,
      });
    };
    this.istiod = istiod;
  }

  /** Stops istiod (CA and ADS) and starts it again after `downMs`, as a rollout of istiod does. */
  async restartIstiod(downMs: number): Promise<void> {
    this.caCalls += this.ca.calls.length;
    await this.istiod.close();
    await this.ca.close();
    await new Promise((r) => setTimeout(r, downMs));
    await this.startIstiod();
    this.restarts++;
  }

  /** The lifetime of the certificates signed from now on. */
  setCertTtl(ms: number): void {
    this.ttlMs = ms;
    this.ca.ttlMs = ms;
  }

  /** CA calls so far, over restarts. */
  get certificatesSigned(): number {
    return this.caCalls + this.ca.calls.length;
  }

  /** A new pod's root folder with the kubelet's files. */
  podRoot(name: string): string {
    const root = join(this.dir, name);
    for (const [rel, text] of [
      [CA_ROOT_CERT, this.pki.rootPem],
      [TOKEN_PATH, "bench-token"],
      ["etc/istio/pod/labels", 'app="web"\nversion="v1"\n'],
      ["etc/istio/pod/annotations", ""],
      // Nothing listens on 127.0.0.1:53 here: forwarded queries fail fast.
      ["etc/resolv.conf", "nameserver 127.0.0.1\nsearch shop.svc.cluster.local\n"],
    ] as const) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    mkdirSync(join(root, "tmp"), { recursive: true });
    mkdirSync(join(root, "usr/local/bin"), { recursive: true });
    copyFileSync(join(repoRoot, "src/agent/envoy/testdata/fake-envoy.mjs"), join(root, "usr/local/bin/envoy"));
    chmodSync(join(root, "usr/local/bin/envoy"), 0o755);
    return root;
  }

  /** The image's wrapper, runnable here. */
  agentWrapper(): string {
    return writeProxyWrapper(join(this.dir, "pilot-agent"));
  }

  /**
   * The same wrapper running a bare Node HTTP server instead of the agent: the baseline "started the
   * same way" (the same node command line, flags included), listening on the port given as its argument.
   */
  baselineWrapper(): string {
    const server = join(this.dir, "bare-http-server.cjs");
    writeFileSync(
      server,
      'require("node:http").createServer((q, s) => s.end("ok")).listen(Number(process.argv[2]), "127.0.0.1");\n',
    );
    return writeProxyWrapper(join(this.dir, "bare-http-server"), server);
  }

  async close(): Promise<void> {
    await this.istiod.close();
    await this.ca.close();
    await new Promise<void>((r) => this.app.close(() => r()));
    this.app.closeAllConnections();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The environment of a child: PATH with this Node first (the wrapper runs `node`). */
export function childPath(): string {
  return `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`;
}

export interface AgentPod {
  child: ChildProcess;
  pid: number;
  root: string;
  statusPort: number;
  output(): string;
  /** Envoy's part: the ADS and SDS streams (started by `connectEnvoy`). */
  ads?: AdsTestClient;
  sds?: SdsTestClient;
  adsReconnects: number;
  /** Stops the Envoy stand-ins and the agent (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Starts the agent of a new pod as the image does, with DNS capture, SDS and the XDS proxy. */
export async function startAgentPod(
  mesh: Mesh,
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<AgentPod> {
  const root = mesh.podRoot(name);
  const [statusPort, adminPort, dnsPort] = [await freePort(), await freePort(), await freePort()];
  let output = "";
  const child = tracked(
    spawn(
      mesh.agentWrapper(),
      ["proxy", "sidecar", "--domain", "shop.svc.cluster.local", "--root", root, "--status-host", "127.0.0.1"],
      {
        cwd: root,
        env: {
          PATH: childPath(),
          POD_NAME: "web-1",
          POD_NAMESPACE: "shop",
          INSTANCE_IP: "127.0.0.1",
          SERVICE_ACCOUNT: "web",
          ISTIO_META_CLUSTER_ID: "Kubernetes",
          ISTIO_META_DNS_CAPTURE: "true",
          DNS_PROXY_ADDR: `127.0.0.1:${dnsPort}`,
          CA_ADDR: mesh.ca.address,
          PROXY_CONFIG: JSON.stringify({
            discoveryAddress: mesh.istiod.address,
            statusPort,
            proxyAdminPort: adminPort,
            terminationDrainDuration: "1s",
          }),
          ISTIO_KUBE_APP_PROBERS: JSON.stringify({
            "/app-health/web/readyz": { httpGet: { path: "/ready", port: mesh.appPort }, timeoutSeconds: 1 },
          }),
          FAKE_ENVOY_READY: "true",
          // A container's /tmp is its own and empty at each start: no compiled code of an earlier run
          // (scripts/cli-entry.cjs keeps V8's code cache under the temporary folder).
          TMPDIR: join(root, "tmp"),
          ...extraEnv,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    ),
  );
  child.stdout?.on("data", (c) => {
    output = (output + c).slice(-20_000);
  });
  child.stderr?.on("data", (c) => {
    output = (output + c).slice(-20_000);
  });
  if (child.pid === undefined) throw new Error("the agent did not start");
  const pod: AgentPod = {
    child,
    pid: child.pid,
    root,
    statusPort,
    output: () => output,
    adsReconnects: 0,
    async stop() {
      stopEnvoy(pod);
      await endChild(child);
    },
  };
  return pod;
}

/** The children still running, ended if the bench is interrupted (Ctrl-C). */
const running = new Set<ChildProcess>();

/** Keeps `child` in the set of children to end on an interruption; returns it. */
export function tracked(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    // SIGTERM: the agent drains and ends the Envoy it started.
    for (const child of running) child.kill("SIGTERM");
    process.exit(130);
  });

/** Ends a child (SIGTERM, SIGKILL after 10 s). */
export async function endChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

const stopped = new WeakSet<AgentPod>();

function stopEnvoy(pod: AgentPod): void {
  stopped.add(pod);
  pod.ads?.close();
  pod.sds?.close();
}

/** Polls `check` every `everyMs` until it holds; fails naming `what` after `timeoutMs`. */
export async function poll(check: () => boolean, what: string, timeoutMs: number, everyMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Envoy's streams to the agent: ADS on the XDS socket as soon as it exists (CDS with the node, then
 * LDS, every response ACKed; reconnecting a second after the stream ends), SDS once its socket exists.
 */
export async function connectEnvoy(pod: AgentPod, timeoutMs = 60_000): Promise<void> {
  const xds = join(pod.root, XDS_SOCKET);
  const sds = join(pod.root, SDS_SOCKET);
  await poll(() => existsSync(xds) || pod.child.exitCode !== null, "the XDS socket", timeoutMs);
  if (pod.child.exitCode !== null) throw new Error(`the agent exited with ${pod.child.exitCode}:\n${pod.output()}`);
  const dial = () => {
    if (stopped.has(pod)) return;
    const ads = adsClient(`unix:${xds}`);
    pod.ads = ads;
    ads.call.on("data", (r: Record<string, unknown>) => {
      ads.send({ typeUrl: r.typeUrl, versionInfo: r.versionInfo, responseNonce: r.nonce });
    });
    ads.call.on("status", () => {
      ads.close();
      if (stopped.has(pod)) return;
      pod.adsReconnects++;
      setTimeout(dial, 1000).unref();
    });
    ads.send({ node: NODE, typeUrl: CDS });
    ads.send({ typeUrl: LDS });
  };
  dial();
  await poll(() => existsSync(sds) || pod.child.exitCode !== null, "the SDS socket", timeoutMs);
  pod.sds = sdsClient(sds, ["default", "ROOTCA"]);
}
