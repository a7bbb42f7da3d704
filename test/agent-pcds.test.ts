/**
 * The dynamic trust bundle end to end (issue 22 §6, Istio's initXdsProxy ProxyConfig handler and the
 * secret cache's UpdateConfigTrustBundle): `meshinject agent proxy sidecar` runs as its own process
 * with a fake istiod (ADS over TLS), a fake CA and the fake Envoy of src/agent/envoy/testdata (Envoy
 * cannot be installed here). An ADS client standing in for Envoy asks for listeners through the
 * agent's XDS socket; with PROXY_CONFIG_XDS_AGENT the agent then asks istiod for the ProxyConfig,
 * istiod pushes one carrying an extra trust anchor, and an SDS client on the agent's SDS socket gets a
 * ROOTCA holding the CA's root and that anchor. Without PROXY_CONFIG_XDS_AGENT the ProxyConfig is
 * never asked for. Nothing here decodes with the agent's code: istiod's side and the ADS client use
 * protoc's descriptors with @bufbuild/protobuf, the SDS client `protoc --decode`.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type FakeCa, startFakeCa } from "../src/agent/sds/testing/fake-ca.js";
import { sdsClient } from "../src/agent/sds/testing/sds-client.js";
import { createTestCa, type TestCa } from "../src/agent/testing/pki.js";
import { until } from "../src/agent/testing/until.js";
import { adsClient } from "../src/agent/xds/testing/ads-client.js";
import { encodeIstiodMessage, type FakeIstiod, startFakeIstiod } from "../src/agent/xds/testing/fake-istiod.js";
import { freePort } from "./loopback.js";
import { childOutput, repoRoot, spawnAgentSidecar } from "./meshinject-cli.js";
import { writePodSecrets } from "./pod-secrets.js";

const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";
const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const PCDS = "type.googleapis.com/istio.mesh.v1alpha1.ProxyConfig";
const SDS_SOCKET = "var/run/secrets/workload-spiffe-uds/socket";
const XDS_SOCKET = "etc/istio/proxy/XDS";
const NODE = { id: "sidecar~127.0.0.1~web-1.shop~shop.svc.cluster.local" };

const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;

describe("agent: the ProxyConfig's trust anchors (PCDS) reach Envoy's ROOTCA", () => {
  let pki: TestCa;
  let anchor: TestCa;
  let ca: FakeCa;
  const cleanup: (() => Promise<void> | void)[] = [];
  before(async () => {
    pki = await createTestCa();
    anchor = await createTestCa();
    ca = await startFakeCa({ pki, ttlMs: 3_600_000 });
  });
  after(async () => {
    for (const c of cleanup.reverse()) await c();
    await ca.close();
  });

  /** A pod root (CA root, token, the fake Envoy) and the agent running in it against `istiod`. */
  async function startPod(istiod: FakeIstiod, env: Record<string, string>) {
    const root = mkdtempSync(join(tmpdir(), "meshinject-pcds-"));
    writePodSecrets(root, pki.rootPem);
    mkdirSync(join(root, "usr/local/bin"), { recursive: true });
    copyFileSync(join(repoRoot, "src/agent/envoy/testdata/fake-envoy.mjs"), join(root, "usr/local/bin/envoy"));
    const agent: ChildProcess = spawnAgentSidecar(root, {
      POD_NAME: "web-1",
      POD_NAMESPACE: "shop",
      INSTANCE_IP: "127.0.0.1",
      CA_ADDR: ca.address,
      PROXY_CONFIG: JSON.stringify({
        discoveryAddress: istiod.address,
        statusPort: await freePort(),
        proxyAdminPort: await freePort(),
        terminationDrainDuration: "1s",
      }),
      // The fake Envoy leaves soon after the agent's drain begins, so the agent exits by itself.
      FAKE_ENVOY_EXIT_AFTER_DRAIN_MS: "100",
      ...env,
    });
    const output = childOutput(agent);
    const exited = new Promise<void>((resolve) => agent.once("exit", () => resolve()));
    cleanup.push(async () => {
      if (agent.exitCode === null && agent.signalCode === null) {
        agent.kill("SIGTERM");
        const killer = setTimeout(() => agent.kill("SIGKILL"), 20_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(root, { recursive: true, force: true });
    });
    const text = () => output.stdout + output.stderr;
    await until(
      () => agent.exitCode === null && existsSync(join(root, XDS_SOCKET)) && existsSync(join(root, SDS_SOCKET)),
      `the agent's XDS and SDS sockets (agent output:\n${text()})`,
      60_000,
    );
    return { root, text };
  }

  it("asks for the ProxyConfig after Envoy's LDS request; its anchor is merged into ROOTCA and ACKed", async () => {
    const istiod = await startFakeIstiod(pki);
    cleanup.push(() => istiod.close());
    const pod = await startPod(istiod, { PROXY_CONFIG_XDS_AGENT: "true" });
    const envoy = adsClient(`unix:${join(pod.root, XDS_SOCKET)}`);
    const sds = sdsClient(join(pod.root, SDS_SOCKET), ["ROOTCA"]);
    cleanup.push(() => {
      envoy.close();
      sds.close();
    });
    await sds.waitFor(1, 30_000);
    const first = sds.responses[0]?.secrets.find((s) => s.name === "ROOTCA")?.rootCertPem ?? "";
    assert.equal(first.trim(), pki.rootPem.trim(), "before the ProxyConfig: the CA's root alone");

    envoy.send({ node: NODE, typeUrl: LDS });
    const stream = () => istiod.streams[0];
    await until(() => (stream()?.requests.length ?? 0) >= 2, `LDS and PCDS at istiod (agent output:\n${pod.text()})`);
    const s = stream();
    assert.ok(s);
    assert.deepEqual(
      s.requests.map((r) => r.typeUrl),
      [LDS, PCDS],
    );
    const value = encodeIstiodMessage("istio.mesh.v1alpha1.ProxyConfig", { caCertificatesPem: [anchor.rootPem] });
    await s.push({ versionInfo: "pc1", nonce: "pc-1", typeUrl: PCDS, resources: [{ typeUrl: PCDS, value }] });

    const roots = () =>
      sds.responses.flatMap((r) => r.secrets).flatMap((x) => (x.name === "ROOTCA" ? [x.rootCertPem ?? ""] : []));
    await until(
      () => roots().some((r) => r.includes(anchor.rootPem.trim())),
      `a ROOTCA with the anchor (agent output:\n${pod.text()})`,
      30_000,
    );
    const merged = roots().find((r) => r.includes(anchor.rootPem.trim())) ?? "";
    assert.equal(certificates(merged), 2, merged);
    assert.ok(merged.includes(pki.rootPem.trim()), "the CA's root stays");
    await until(() => s.requests.some((r) => r.responseNonce === "pc-1"), "the PCDS ACK");
    const ack = s.requests.find((r) => r.responseNonce === "pc-1");
    assert.equal(ack?.typeUrl, PCDS);
    assert.equal(ack?.versionInfo, "pc1");
    assert.equal(ack?.errorDetail, undefined);
    assert.deepEqual(envoy.responses, [], "the ProxyConfig is the agent's, not Envoy's");
  });

  it("without PROXY_CONFIG_XDS_AGENT the ProxyConfig is never asked for", async () => {
    const istiod = await startFakeIstiod(pki);
    cleanup.push(() => istiod.close());
    const pod = await startPod(istiod, {});
    const envoy = adsClient(`unix:${join(pod.root, XDS_SOCKET)}`);
    cleanup.push(() => envoy.close());
    envoy.send({ node: NODE, typeUrl: LDS });
    envoy.send({ typeUrl: CDS });
    // The agent's own requests follow the LDS request on the same stream, so they would come before CDS.
    await until(
      () => istiod.streams[0]?.requests.some((r) => r.typeUrl === CDS) ?? false,
      `CDS at istiod (agent output:\n${pod.text()})`,
    );
    assert.deepEqual(
      istiod.streams[0]?.requests.map((r) => r.typeUrl),
      [LDS, CDS],
    );
  });
});
