/**
 * The XDS proxy between an ADS client standing in for Envoy (on the real Unix socket) and a fake
 * istiod over real TLS, both speaking through protoc's descriptors and @bufbuild/protobuf (not the
 * proxy's loader): headers and order, NDS and PCDS asked after Envoy's first LDS request and
 * answered with ACK or NACK, non-Envoy types kept from Envoy, istiod going away or restarting (Envoy's
 * stream closed with istiod's status), one upstream stream however many Envoy streams come, 1,000
 * resources, delta, and a slow Envoy (no unbounded buffering).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, credentials, status as Status } from "@grpc/grpc-js";
import type { NameTable } from "../dns/name-table.js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../istiod-channel.js";
import { SILENT_LOG } from "../process/log.js";
import { createTestCa, type TestCa } from "../testing/pki.js";
import { until } from "../testing/until.js";
import { startXdsProxy, type XdsProxy, type XdsProxyOptions } from "./proxy.js";
import { adsClient } from "./testing/ads-client.js";
import { encodeIstiodMessage, type FakeIstiod, startFakeIstiod } from "./testing/fake-istiod.js";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";
const NDS = "type.googleapis.com/istio.networking.nds.v1.NameTable";
const PCDS = "type.googleapis.com/istio.mesh.v1alpha1.ProxyConfig";
const TOKEN = "istio-token-value";
const NODE = { id: "sidecar~10.0.0.1~pod.ns1~ns1.svc.cluster.local", cluster: "pod.ns1" };

function cluster(i: number, size = 32): { typeUrl: string; value: Buffer } {
  return { typeUrl: CDS, value: Buffer.alloc(size, i % 251) };
}

function nameTableAny(table: NameTable): { typeUrl: string; value: Buffer } {
  return { typeUrl: NDS, value: encodeIstiodMessage("istio.networking.nds.v1.NameTable", table as never) };
}

const TABLE: NameTable = {
  table: {
    "a.ns1.svc.cluster.local": { ips: ["10.1.1.1"], shortname: "a", namespace: "ns1", registry: "Kubernetes" },
  },
};

describe("XDS proxy with a fake istiod", () => {
  let pki: TestCa;
  let root: string;
  before(async () => {
    pki = await createTestCa();
    root = mkdtempSync(join(tmpdir(), "meshinject-xds-"));
    for (const [rel, text] of [
      [TOKEN_PATH, TOKEN],
      [CA_ROOT_CERT, pki.rootPem],
    ] as const) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  async function proxyFor(istiod: FakeIstiod, extra: Partial<XdsProxyOptions> = {}): Promise<XdsProxy> {
    return startXdsProxy({
      root,
      socketPath: join(root, `xds-${Math.random().toString(36).slice(2)}`, "XDS"),
      discoveryAddress: istiod.address,
      serverName: "istiod.istio-system.svc",
      clusterId: "Kubernetes",
      ...extra,
    });
  }

  test("headers and order; NDS asked after Envoy's first LDS request, taken for the DNS proxy and ACKed", async () => {
    const istiod = await startFakeIstiod(pki);
    const tables: NameTable[] = [];
    const logs: string[] = [];
    const proxy = await proxyFor(istiod, {
      onNameTable: (t) => tables.push(t),
      log: { ...SILENT_LOG, info: (m) => logs.push(m), warn: (m) => logs.push(m), debug: (m) => logs.push(m) },
    });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      assert.equal(statSync(proxy.socketPath).mode & 0o777, 0o600);
      envoy.send({ node: NODE, typeUrl: CDS });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 1, "CDS request");
      const s = istiod.streams[0];
      assert.ok(s);
      envoy.send({ typeUrl: LDS });
      envoy.send({ typeUrl: LDS, versionInfo: "l1", responseNonce: "x" });
      await until(() => s.requests.length >= 4, "LDS, NDS and the second LDS");
      assert.equal(s.authorization, `Bearer ${TOKEN}`);
      assert.equal(s.clusterId, "Kubernetes");
      assert.deepEqual(
        s.requests.map((r) => r.typeUrl),
        [CDS, LDS, NDS, LDS],
      );
      assert.equal((s.requests[0]?.node as { id: string } | undefined)?.id, NODE.id);
      await s.push({ versionInfo: "n1", nonce: "nds-1", typeUrl: NDS, resources: [nameTableAny(TABLE)] });
      for (let i = 0; i < 5; i++)
        await s.push({ versionInfo: `v${i}`, nonce: `c${i}`, typeUrl: CDS, resources: [cluster(i)] });
      await envoy.waitFor(5);
      assert.deepEqual(
        envoy.responses.map((r) => r.nonce),
        ["c0", "c1", "c2", "c3", "c4"],
      );
      assert.deepEqual(tables, [
        {
          table: {
            "a.ns1.svc.cluster.local": { ips: ["10.1.1.1"], registry: "Kubernetes", shortname: "a", namespace: "ns1" },
          },
        },
      ]);
      await until(() => s.requests.some((r) => r.typeUrl === NDS && r.responseNonce === "nds-1"), "NDS ACK");
      const ack = s.requests.find((r) => r.typeUrl === NDS && r.responseNonce === "nds-1");
      assert.equal(ack?.versionInfo, "n1");
      assert.equal(ack?.errorDetail, undefined);
      assert.ok(proxy.ready());
      assert.ok(!logs.some((l) => l.includes(TOKEN)));
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("a corrupt name table is NACKed with Internal and the error; an empty one is left unanswered", async () => {
    const istiod = await startFakeIstiod(pki);
    const tables: NameTable[] = [];
    const proxy = await proxyFor(istiod, { onNameTable: (t) => tables.push(t) });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: LDS });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 2, "LDS and NDS");
      const s = istiod.streams[0];
      assert.ok(s);
      await s.push({ versionInfo: "e", nonce: "empty", typeUrl: NDS, resources: [] });
      await s.push({
        versionInfo: "bad",
        nonce: "nds-bad",
        typeUrl: NDS,
        resources: [{ typeUrl: NDS, value: Buffer.from([0x0a, 0xff, 0xff, 0x0f]) }],
      });
      await until(() => s.requests.some((r) => r.responseNonce === "nds-bad"), "the answer to the corrupt table");
      const nack = s.requests.find((r) => r.responseNonce === "nds-bad");
      assert.equal(nack?.typeUrl, NDS);
      assert.equal(nack?.versionInfo, "bad");
      const detail = nack?.errorDetail as { code: number; message: string } | undefined;
      assert.equal(detail?.code, 13);
      assert.match(detail?.message ?? "", /NameTable/);
      assert.ok(!s.requests.some((r) => r.responseNonce === "empty"), "no ACK for an empty response");
      assert.deepEqual(tables, []);
      assert.deepEqual(envoy.responses, []);
      assert.equal(proxy.stats().nacks, 1);
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("a name table resource of another type is NACKed, as anypb.UnmarshalTo refuses it", async () => {
    const istiod = await startFakeIstiod(pki);
    const tables: NameTable[] = [];
    const proxy = await proxyFor(istiod, { onNameTable: (t) => tables.push(t) });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: LDS });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 2, "LDS and NDS");
      const s = istiod.streams[0];
      assert.ok(s);
      // An empty payload decodes as any message: only the Any's type URL tells it is not a NameTable.
      await s.push({
        versionInfo: "w",
        nonce: "nds-wrong",
        typeUrl: NDS,
        resources: [{ typeUrl: "type.googleapis.com/istio.mesh.v1alpha1.ProxyConfig", value: Buffer.alloc(0) }],
      });
      await until(() => s.requests.some((r) => r.responseNonce === "nds-wrong"), "the answer to the wrong type");
      const nack = s.requests.find((r) => r.responseNonce === "nds-wrong");
      const detail = nack?.errorDetail as { code: number; message: string } | undefined;
      assert.equal(detail?.code, 13);
      assert.equal(
        detail?.message,
        'proto: mismatched message type: got "istio.networking.nds.v1.NameTable", want "istio.mesh.v1alpha1.ProxyConfig"',
      );
      assert.deepEqual(tables, []);
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("PCDS asked after LDS when the trust bundle is taken from it; its CA certificates handed over", async () => {
    const istiod = await startFakeIstiod(pki);
    const bundles: string[] = [];
    const proxy = await proxyFor(istiod, {
      onNameTable: () => {},
      dynamicProxyConfig: true,
      onProxyConfig: (bundle) => bundles.push(bundle),
    });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: LDS });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 3, "LDS, NDS, PCDS");
      const s = istiod.streams[0];
      assert.ok(s);
      assert.deepEqual(
        s.requests.map((r) => r.typeUrl),
        [LDS, NDS, PCDS],
      );
      const value = encodeIstiodMessage("istio.mesh.v1alpha1.ProxyConfig", {
        caCertificatesPem: [pki.rootPem, "second"],
      });
      await s.push({ versionInfo: "p1", nonce: "pc-1", typeUrl: PCDS, resources: [{ typeUrl: PCDS, value }] });
      await until(() => s.requests.some((r) => r.responseNonce === "pc-1"), "PCDS ACK");
      // Joined as initXdsProxy joins them (pkiutil.AppendCertByte: one newline between).
      assert.deepEqual(bundles, [`${pki.rootPem.replace(/\n$/, "")}\nsecond`]);
      assert.equal(s.requests.find((r) => r.responseNonce === "pc-1")?.errorDetail, undefined);
      assert.deepEqual(envoy.responses, []);
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("a type that is not Envoy's is not forwarded to Envoy (the name table when DNS is off)", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: LDS });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 1, "LDS");
      const s = istiod.streams[0];
      assert.ok(s);
      assert.deepEqual(
        s.requests.map((r) => r.typeUrl),
        [LDS],
        "no NDS without a DNS proxy",
      );
      await s.push({ nonce: "n", typeUrl: NDS, resources: [nameTableAny(TABLE)] });
      await s.push({ nonce: "o", typeUrl: "type.googleapis.com/istio.other.v1.Thing", resources: [] });
      await s.push({ nonce: "l", typeUrl: LDS, resources: [] });
      await envoy.waitFor(1);
      await until(() => proxy.stats().responses === 3, "all three responses read");
      assert.deepEqual(
        envoy.responses.map((r) => r.nonce),
        ["l"],
      );
      assert.equal(proxy.stats().dropped, 2);
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("forwards ECDS unchanged and says once that remote Wasm modules are not converted", async () => {
    const ECDS = "type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig";
    for (const conversion of [undefined, false]) {
      const istiod = await startFakeIstiod(pki);
      const warnings: string[] = [];
      const proxy = await proxyFor(istiod, {
        wasmRemoteLoadConversion: conversion,
        log: { ...SILENT_LOG, warn: (m) => warnings.push(m) },
      });
      const envoy = adsClient(`unix:${proxy.socketPath}`);
      try {
        envoy.send({ node: NODE, typeUrl: ECDS, resourceNames: ["ns1.wasm"] });
        await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 1, "ECDS request");
        const s = istiod.streams[0];
        assert.ok(s);
        const resource = { typeUrl: ECDS, value: Buffer.from([0x0a, 0x03, 0x61, 0x62, 0x63]) };
        for (const nonce of ["e1", "e2"])
          await s.push({ versionInfo: nonce, nonce, typeUrl: ECDS, resources: [resource] });
        await envoy.waitFor(2);
        assert.deepEqual(
          envoy.responses.map((r) => r.nonce),
          ["e1", "e2"],
        );
        const got = (envoy.responses[0]?.resources as { value: Uint8Array }[] | undefined)?.[0];
        assert.equal(envoy.responses[0]?.typeUrl, ECDS);
        assert.deepEqual(Buffer.from(got?.value ?? []), resource.value);
        const notices = warnings.filter((w) => w.includes("ISTIO_AGENT_ENABLE_WASM_REMOTE_LOAD_CONVERSION"));
        assert.equal(notices.length, conversion === false ? 0 : 1, warnings.join("\n"));
      } finally {
        envoy.close();
        await proxy.close();
        await istiod.close();
      }
    }
  });

  test("reports the workload's health to istiod as HealthInformation requests", async () => {
    const HEALTH = "type.googleapis.com/istio.v1.HealthInformation";
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    // Unhealthy before Envoy connects: kept, and sent with the agent's initial requests after Envoy's first LDS.
    proxy.sendHealth({ healthy: false, message: "app down" });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: LDS });
      const health = () => (istiod.streams[0]?.requests ?? []).filter((r) => r.typeUrl === HEALTH);
      await until(() => health().length >= 1, "the stored health request");
      const first = health()[0]?.errorDetail as { code: number; message: string } | undefined;
      assert.equal(first?.code, 13);
      assert.equal(first?.message, "app down");
      proxy.sendHealth({ healthy: true });
      await until(() => health().length >= 2, "the healthy request");
      assert.equal(health()[1]?.errorDetail ?? null, null);
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("a health change before Envoy's first LDS request waits for it, and goes after the agent's own requests", async () => {
    const HEALTH = "type.googleapis.com/istio.v1.HealthInformation";
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod, { onNameTable: () => {} });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: CDS });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 1, "CDS");
      proxy.sendHealth({ healthy: false, message: "app down" });
      envoy.send({ typeUrl: LDS });
      await until(() => (istiod.streams[0]?.requests ?? []).some((r) => r.typeUrl === HEALTH), "the health request");
      envoy.send({ typeUrl: CDS, versionInfo: "c1", responseNonce: "c" });
      await until(() => istiod.streams[0]?.requests.at(-1)?.responseNonce === "c", "the last CDS request");
      assert.deepEqual(
        istiod.streams[0]?.requests.map((r) => r.typeUrl),
        [CDS, LDS, NDS, HEALTH, CDS],
      );
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("responses reach Envoy as istiod's bytes: nothing decoded and re-encoded, unknown fields kept", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    const client = new Client(`unix:${proxy.socketPath}`, credentials.createInsecure());
    const raw = (b: Buffer) => b;
    const call = client.makeBidiStreamRequest<Buffer, Buffer>(
      "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources",
      raw,
      raw,
    );
    const got: Buffer[] = [];
    call.on("data", (b: Buffer) => got.push(b));
    call.on("error", () => {});
    try {
      call.write(encodeIstiodMessage("envoy.service.discovery.v3.DiscoveryRequest", { node: NODE, typeUrl: CDS }));
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 1, "CDS request");
      const response = "envoy.service.discovery.v3.DiscoveryResponse";
      // As a newer istiod might send it: the envelope first, then the resources, then a field these
      // protos do not know (number 100, varint 1).
      const bytes = Buffer.concat([
        encodeIstiodMessage(response, { versionInfo: "1", typeUrl: CDS, nonce: "n1" }),
        encodeIstiodMessage(response, { resources: [cluster(1, 4096), cluster(2, 10)] }),
        Buffer.from([0xa0, 0x06, 0x01]),
      ]);
      await istiod.streams[0]?.push(bytes);
      await until(() => got.length === 1, "the response at Envoy");
      assert.ok(got[0]?.equals(bytes), "the bytes istiod wrote");
    } finally {
      call.cancel();
      client.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("a response that is not a DiscoveryResponse on the wire ends Envoy's stream with INTERNAL, as a Recv error", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: CDS });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 1, "CDS request");
      await istiod.streams[0]?.push(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])); // a length past the end
      const status = await envoy.ended();
      assert.equal(status.code, Status.INTERNAL);
      assert.match(status.details, /undecodable DiscoveryResponse/);
      assert.equal(proxy.stats().malformed, 1);
      await until(() => istiod.streams.every((s) => !s.open), "the upstream stream closed");
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("1,000 resources in one push, and 1,000 pushes in order", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: CDS });
      await until(() => istiod.streams.length === 1 && (istiod.streams[0]?.requests.length ?? 0) === 1, "request");
      const s = istiod.streams[0];
      assert.ok(s);
      await s.push({
        versionInfo: "big",
        nonce: "big",
        typeUrl: CDS,
        resources: Array.from({ length: 1000 }, (_, i) => cluster(i, 200)),
      });
      for (let i = 0; i < 1000; i++)
        await s.push({ versionInfo: `v${i}`, nonce: `n${i}`, typeUrl: CDS, resources: [cluster(i)] });
      await envoy.waitFor(1001, 30_000);
      const big = envoy.responses[0]?.resources as { value: Uint8Array }[];
      assert.equal(big.length, 1000);
      assert.ok(big.every((r, i) => r.value.length === 200 && r.value[0] === i % 251));
      assert.deepEqual(
        envoy.responses.slice(1).map((r) => r.nonce),
        Array.from({ length: 1000 }, (_, i) => `n${i}`),
      );
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("istiod restart: Envoy's stream is closed with istiod's status, and Envoy's next stream reaches the new istiod", async () => {
    const first = await startFakeIstiod(pki);
    const port = first.port;
    const proxy = await proxyFor(first, { onNameTable: () => {} });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    let second: FakeIstiod | undefined;
    let again: ReturnType<typeof adsClient> | undefined;
    try {
      envoy.send({ node: NODE, typeUrl: LDS });
      await until(() => (first.streams[0]?.requests.length ?? 0) >= 2, "requests");
      await first.streams[0]?.push({ versionInfo: "v1", nonce: "a", typeUrl: LDS, resources: [] });
      await envoy.waitFor(1);
      await first.close();
      const status = await envoy.ended(15_000);
      assert.notEqual(status.code, Status.OK, "istiod vanished: not a clean end");
      assert.equal(proxy.ready(), false);
      // Envoy reconnects and sends its whole state again, as after any disconnect.
      second = await startFakeIstiod(pki, port);
      again = adsClient(`unix:${proxy.socketPath}`);
      again.send({ node: NODE, typeUrl: LDS, versionInfo: "v1" });
      await until(() => (second?.streams[0]?.requests.length ?? 0) >= 2, "the new stream's requests", 15_000);
      const s = second.streams[0];
      assert.ok(s);
      assert.deepEqual(
        s.requests.map((r) => r.typeUrl),
        [LDS, NDS],
      );
      assert.equal((s.requests[0]?.node as { id: string } | undefined)?.id, NODE.id);
      await s.push({ versionInfo: "v2", nonce: "b", typeUrl: LDS, resources: [] });
      await again.waitFor(1);
      assert.equal(again.responses[0]?.versionInfo, "v2");
      await until(() => proxy.ready(), "ready again");
    } finally {
      envoy.close();
      again?.close();
      await proxy.close();
      await second?.close();
    }
  });

  test("istiod ends the stream: Envoy's stream ends with the same status, OK or error", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    const envoys = [adsClient(`unix:${proxy.socketPath}`)];
    try {
      envoys[0]?.send({ node: NODE, typeUrl: LDS });
      await until(() => istiod.streams[0]?.requests.length === 1, "first stream");
      istiod.streams[0]?.end();
      assert.equal((await envoys[0]?.ended())?.code, Status.OK);

      const next = adsClient(`unix:${proxy.socketPath}`);
      envoys.push(next);
      next.send({ node: NODE, typeUrl: LDS });
      await until(() => istiod.streams[1]?.requests.length === 1, "second stream");
      istiod.streams[1]?.end({ code: Status.RESOURCE_EXHAUSTED, details: "too many pushes" });
      const status = await next.ended();
      assert.equal(status.code, Status.RESOURCE_EXHAUSTED);
      assert.equal(status.details, "too many pushes");
    } finally {
      for (const e of envoys) e.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("istiod unreachable: Envoy's stream fails UNAVAILABLE instead of hanging", async () => {
    const istiod = await startFakeIstiod(pki);
    const address = istiod.address;
    await istiod.close();
    const proxy = await startXdsProxy({
      root,
      socketPath: join(root, `xds-${Math.random().toString(36).slice(2)}`, "XDS"),
      discoveryAddress: address,
      serverName: "istiod.istio-system.svc",
      clusterId: "Kubernetes",
    });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: LDS });
      assert.equal((await envoy.ended(30_000)).code, Status.UNAVAILABLE);
    } finally {
      envoy.close();
      await proxy.close();
    }
  });

  test("one upstream stream: each new Envoy stream replaces the last, which ends OK", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    const envoys: ReturnType<typeof adsClient>[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        const e = adsClient(`unix:${proxy.socketPath}`);
        envoys.push(e);
        e.send({ node: { id: `envoy-${i}` }, typeUrl: LDS });
        await until(() => istiod.streams.length === i + 1, `istiod stream ${i + 1}`);
      }
      await until(() => istiod.streams.filter((s) => s.open).length === 1, "one stream left open at istiod");
      assert.equal(
        (istiod.streams.find((s) => s.open)?.requests[0]?.node as { id: string } | undefined)?.id,
        "envoy-49",
      );
      for (const e of envoys.slice(0, -1)) assert.equal((await e.ended()).code, Status.OK);
      assert.equal(envoys.at(-1)?.status, undefined, "the newest Envoy stream stays");
      assert.equal(proxy.stats().replaced, 49);
      // Envoy going away takes its upstream stream with it.
      envoys.at(-1)?.close();
      await until(() => istiod.streams.every((s) => !s.open), "the last upstream stream closed");
    } finally {
      for (const e of envoys) e.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("delta: forwarded both ways, NDS asked after LDS and NACKed in the delta shape", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod, { onNameTable: () => {} });
    const envoy = adsClient(`unix:${proxy.socketPath}`, "delta");
    try {
      envoy.send({ node: NODE, typeUrl: CDS, resourceNamesSubscribe: ["c1", "c2"] });
      envoy.send({ typeUrl: LDS, resourceNamesSubscribe: ["*"] });
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 3, "CDS, LDS, NDS");
      const s = istiod.streams[0];
      assert.ok(s);
      assert.equal(s.kind, "delta");
      assert.deepEqual(
        s.requests.map((r) => r.typeUrl),
        [CDS, LDS, NDS],
      );
      assert.deepEqual(s.requests[0]?.resourceNamesSubscribe, ["c1", "c2"]);
      await s.push({
        systemVersionInfo: "s1",
        nonce: "d1",
        typeUrl: CDS,
        resources: [
          { name: "c1", version: "1", resource: cluster(1) },
          { name: "c2", version: "7", resource: cluster(2) },
        ],
      });
      await envoy.waitFor(1);
      assert.deepEqual(
        ((envoy.responses[0]?.resources ?? []) as { name: string; version: string }[]).map((r) => [r.name, r.version]),
        [
          ["c1", "1"],
          ["c2", "7"],
        ],
      );
      envoy.send({ typeUrl: CDS, resourceNamesUnsubscribe: ["c2"], responseNonce: "d1" });
      await until(() => s.requests.some((r) => r.responseNonce === "d1"), "unsubscribe forwarded");
      assert.deepEqual(s.requests.find((r) => r.responseNonce === "d1")?.resourceNamesUnsubscribe, ["c2"]);
      await s.push({
        nonce: "nd",
        typeUrl: NDS,
        resources: [{ name: "nds", version: "1", resource: { typeUrl: NDS, value: Buffer.from([0x0a, 0xff]) } }],
      });
      await until(() => s.requests.some((r) => r.responseNonce === "nd"), "delta NACK");
      const nack = s.requests.find((r) => r.responseNonce === "nd");
      assert.equal((nack?.errorDetail as { code: number } | undefined)?.code, 13);
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });

  test("a slow Envoy: the proxy stops reading from istiod instead of buffering", async () => {
    const istiod = await startFakeIstiod(pki);
    const proxy = await proxyFor(istiod);
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: CDS });
      await until(() => istiod.streams.length === 1 && (istiod.streams[0]?.requests.length ?? 0) === 1, "request");
      envoy.call.pause();
      const s = istiod.streams[0];
      assert.ok(s);
      const total = 200;
      let written = 0;
      const pushing = (async () => {
        for (let i = 0; i < total; i++) {
          await s.push({ versionInfo: `v${i}`, nonce: `n${i}`, typeUrl: CDS, resources: [cluster(i, 64 * 1024)] });
          written = i + 1;
        }
      })();
      await until(() => proxy.stats().paused >= 1, "the proxy pausing istiod", 30_000);
      await new Promise((r) => setTimeout(r, 1500));
      // 200 × 64 KiB: a proxy that buffered would have taken them all by now; a bounded one holds a
      // few dozen messages (its stream buffers and the HTTP/2 windows) and istiod waits.
      assert.ok(written < total / 2, `istiod managed to write ${written}/${total} while Envoy was not reading`);
      envoy.call.resume();
      await pushing;
      await envoy.waitFor(total, 60_000);
      assert.deepEqual(
        envoy.responses.map((r) => r.nonce),
        Array.from({ length: total }, (_, i) => `n${i}`),
      );
    } finally {
      envoy.close();
      await proxy.close();
      await istiod.close();
    }
  });
});
