/**
 * The XDS proxy's dial to istiod as pilot-agent builds it (XdsProxy.buildUpstreamClientDialOpts and
 * Agent.startFileWatcher), against a fake istiod on loopback TLS that takes raw frames and decodes the
 * request with protoc: ISTIOD_SAN as the TLS name, XDS_ROOT_CA (incl. SYSTEM), XDS_HEADER_*, an empty
 * ClusterID when ISTIO_META_CLUSTER_ID is unset, and a replaced root file rebuilding the channel.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import {
  type Metadata,
  Server,
  ServerCredentials,
  type ServerDuplexStream,
  type ServiceDefinition,
} from "@grpc/grpc-js";
import { CA_ROOT_CERT } from "../istiod-channel.js";
import { xdsProxyOptions } from "../options/xds.js";
import { type TestPod, TOKEN, testPod } from "../sds/testing/pod.js";
import { createTestCa, type TestCa } from "../testing/pki.js";
import { field, parseTextFormat, protocDecode, protocEncode, SDS_PROTOS } from "../testing/protoc.js";
import type { XdsProxyOptions } from "./proxy.js";
import { dialUpstream, type UpstreamConnection, type UpstreamOptions } from "./upstream.js";

interface Seen {
  metadata: Record<string, string>;
  nodeId: string;
}

const raw = (b: Buffer) => b;
const ADS: ServiceDefinition = {
  StreamAggregatedResources: {
    path: "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources",
    requestStream: true,
    responseStream: true,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
};

async function fakeIstiod(pki: TestCa, port = 0) {
  const seen: Seen[] = [];
  const server = new Server();
  server.addService(ADS, {
    StreamAggregatedResources(call: ServerDuplexStream<Buffer, Buffer>) {
      const md: Metadata = call.metadata;
      call.on("data", (bytes: Buffer) => {
        const m = parseTextFormat(protocDecode("envoy.service.discovery.v3.DiscoveryRequest", SDS_PROTOS, bytes));
        const metadata: Record<string, string> = {};
        for (const [k, v] of Object.entries(md.getMap())) metadata[k] = String(v);
        seen.push({ metadata, nodeId: String(field(m, "node.id") ?? "") });
        call.end();
      });
    },
  });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `127.0.0.1:${port}`,
      ServerCredentials.createSsl(null, [
        { cert_chain: Buffer.from(pki.serving.certPem), private_key: Buffer.from(pki.serving.keyPem) },
      ]),
      (e, p) => (e ? reject(e) : resolve(p)),
    ),
  );
  return { seen, port: bound, close: () => server.forceShutdown() };
}

/** The dial the proxy resolves at start. */
function dialOf(options: XdsProxyOptions): UpstreamOptions["dial"] {
  return typeof options.dial === "function" ? options.dial() : options.dial;
}

/** Opens one stream with the agent's dial; resolves with what istiod saw, or rejects with the stream's error. */
function ask(env: Record<string, string>, pod: TestPod, address: string): Promise<void> {
  const options = xdsProxyOptions(env, { root: pod.root, discoveryAddress: address });
  const upstream = dialUpstream({ discoveryAddress: address, clusterId: options.clusterId, dial: dialOf(options) });
  return askWith(upstream);
}

function askWith(upstream: UpstreamConnection, close = true): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = upstream.open("sotw");
    stream.on("data", () => {});
    stream.on("status", (s: { code: number; details: string }) => {
      if (close) upstream.close();
      if (s.code === 0) resolve();
      else reject(new Error(`stream ended: ${s.code} ${s.details}`));
    });
    stream.on("error", () => {});
    // The upstream carries bytes (the proxy forwards Envoy's requests as they are): encoded by protoc.
    stream.write(
      protocEncode(
        "envoy.service.discovery.v3.DiscoveryRequest",
        SDS_PROTOS,
        'node { id: "sidecar~10.0.0.1~pod.ns1~ns1.svc.cluster.local" }',
      ),
    );
  });
}

describe("XDS proxy's dial to istiod", async () => {
  const pki = await createTestCa();
  const istiod = await fakeIstiod(pki);
  const address = `127.0.0.1:${istiod.port}`;
  const pods: TestPod[] = [];
  const pod = () => {
    const p = testPod(pki.rootPem, address);
    pods.push(p);
    return p;
  };
  after(() => {
    istiod.close();
    for (const p of pods) p.remove();
  });

  test("ClusterID (empty when unset), XDS_HEADER_* and the token on the stream", async () => {
    const p = pod();
    await ask({ XDS_HEADER_X_Zone: "z1" }, p, address);
    const s = istiod.seen.at(-1);
    assert.equal(s?.nodeId, "sidecar~10.0.0.1~pod.ns1~ns1.svc.cluster.local");
    assert.equal(s?.metadata.clusterid, "");
    assert.equal(s?.metadata.x_zone, "z1");
    assert.equal(s?.metadata.authorization, `Bearer ${TOKEN}`);
    await ask({ ISTIO_META_CLUSTER_ID: "c7" }, p, address);
    assert.equal(istiod.seen.at(-1)?.metadata.clusterid, "c7");
  });

  test("ISTIOD_SAN is the name verified; XDS_ROOT_CA names the root, SYSTEM the system pool", async () => {
    const p = pod();
    await ask({ ISTIOD_SAN: "istiod.istio-system.svc" }, p, address);
    await assert.rejects(ask({ ISTIOD_SAN: "elsewhere.example" }, p, address), /stream ended: 14/);
    const custom = p.write("custom/root.pem", pki.rootPem);
    p.write(CA_ROOT_CERT, (await createTestCa()).rootPem);
    await assert.rejects(ask({}, p, address), /stream ended: 14/);
    await ask({ XDS_ROOT_CA: custom }, p, address);
    await ask({ XDS_ROOT_CA: "SYSTEM", SSL_CERT_FILE: custom }, p, address);
    assert.throws(
      () =>
        dialOf(xdsProxyOptions({ XDS_ROOT_CA: "/nonexistent/root.pem" }, { root: p.root, discoveryAddress: address })),
      /root CA file for XDS does not exist/,
    );
    // The control plane auth policy NONE: plaintext, no root needed.
    const plain = xdsProxyOptions({}, { root: p.root, discoveryAddress: address, controlPlaneAuthPolicy: "NONE" });
    assert.equal(dialOf(plain)?.tls, undefined);
  });

  test("a replaced root file is read by the next dial: istiod's new root is trusted on the next stream", async () => {
    const p = pod();
    const first = await fakeIstiod(pki);
    const port = first.port;
    const at = `127.0.0.1:${port}`;
    await ask({}, p, at);
    first.close();
    const rotated = await createTestCa();
    const second = await fakeIstiod(rotated, port);
    try {
      await assert.rejects(ask({}, p, at), /stream ended: 14/, "the old root does not verify the new istiod");
      p.write(CA_ROOT_CERT, rotated.rootPem);
      await ask({}, p, at);
    } finally {
      second.close();
    }
  });
});
