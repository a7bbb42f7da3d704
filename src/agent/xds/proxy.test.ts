/**
 * The XDS proxy between an ADS client standing in for Envoy (on the real Unix socket) and a fake
 * istiod of ours over real TLS: headers and order, the name table taken for the DNS proxy, istiod
 * restarting mid-stream (reconnect and re-sent requests, Envoy's stream kept), 1,000 resources,
 * delta re-subscription with the versions Envoy holds, and a slow Envoy (no unbounded buffering).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { NameTable } from "../dns/name-table.js";
import { CA_ROOT_CERT, TOKEN_PATH } from "../istiod-channel.js";
import { SILENT_LOG } from "../process/log.js";
import { messageType, NAME_TABLE_TYPE_URL } from "../protos.js";
import { createTestCa, type TestCa } from "../testing/pki.js";
import { until } from "../testing/until.js";
import { startXdsProxy, type XdsProxy, type XdsProxyOptions } from "./proxy.js";
import { adsClient } from "./testing/ads-client.js";
import { type FakeIstiod, startFakeIstiod } from "./testing/fake-istiod.js";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const TOKEN = "istio-token-value";
const NODE = { id: "sidecar~10.0.0.1~pod.ns1~ns1.svc.cluster.local", cluster: "pod.ns1" };

function cluster(i: number, size = 32): { typeUrl: string; value: Buffer } {
  return { typeUrl: CDS, value: Buffer.alloc(size, i % 251) };
}

function nameTableAny(table: NameTable): { typeUrl: string; value: Buffer } {
  const t = messageType("istio.networking.nds.v1.NameTable");
  return { typeUrl: NAME_TABLE_TYPE_URL, value: Buffer.from(t.encode(t.fromObject(table)).finish()) };
}

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
      retryInitialMs: 50,
      retryMaxMs: 200,
      ...extra,
    });
  }

  test("forwards in order with token and ClusterID; the name table goes to the DNS proxy, not Envoy", async () => {
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
      await until(() => (istiod.streams[0]?.requests.length ?? 0) >= 2, "CDS and NDS requests");
      const s = istiod.streams[0];
      assert.ok(s);
      assert.equal(s.authorization, `Bearer ${TOKEN}`);
      assert.equal(s.clusterId, "Kubernetes");
      assert.deepEqual(
        s.requests.map((r) => r.typeUrl),
        [CDS, NAME_TABLE_TYPE_URL],
      );
      assert.equal((s.requests[0]?.node as { id: string } | undefined)?.id, NODE.id);
      await s.push({
        versionInfo: "n1",
        nonce: "nds-1",
        typeUrl: NAME_TABLE_TYPE_URL,
        resources: [
          nameTableAny({
            table: {
              "a.ns1.svc.cluster.local": {
                ips: ["10.1.1.1"],
                shortname: "a",
                namespace: "ns1",
                registry: "Kubernetes",
              },
            },
          }),
        ],
      });
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
      await until(
        () => s.requests.some((r) => r.typeUrl === NAME_TABLE_TYPE_URL && r.responseNonce === "nds-1"),
        "NDS ACK",
      );
      envoy.send({ typeUrl: CDS, versionInfo: "v4", responseNonce: "c4" });
      await until(() => s.requests.some((r) => r.responseNonce === "c4"), "Envoy's ACK forwarded");
      assert.ok(proxy.ready());
      assert.ok(!logs.some((l) => l.includes(TOKEN)));
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
    // Unhealthy before Envoy connects: the first stream sends it after Envoy's own requests.
    proxy.sendHealth({ healthy: false, message: "app down" });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    try {
      envoy.send({ node: NODE, typeUrl: CDS });
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
      const big = envoy.responses[0]?.resources as { value: Buffer }[];
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

  test("istiod restart mid-stream: reconnect, re-send the last requests, Envoy's stream stays", async () => {
    const first = await startFakeIstiod(pki);
    const port = first.port;
    const proxy = await proxyFor(first, { onNameTable: () => {} });
    const envoy = adsClient(`unix:${proxy.socketPath}`);
    let second: FakeIstiod | undefined;
    try {
      envoy.send({ node: NODE, typeUrl: CDS, resourceNames: [] });
      await until(() => (first.streams[0]?.requests.length ?? 0) >= 2, "requests");
      await first.streams[0]?.push({ versionInfo: "v1", nonce: "a", typeUrl: CDS, resources: [cluster(1)] });
      await envoy.waitFor(1);
      envoy.send({ typeUrl: CDS, versionInfo: "v1", responseNonce: "a", resourceNames: [] });
      await until(() => (first.streams[0]?.requests.length ?? 0) >= 3, "ACK");
      await first.close();
      await until(() => !proxy.ready(), "not ready while istiod is down");
      second = await startFakeIstiod(pki, port);
      await until(() => (second?.streams[0]?.requests.length ?? 0) >= 2, "re-sent requests", 15_000);
      const s = second.streams[0];
      assert.ok(s);
      const cds = s.requests.find((r) => r.typeUrl === CDS);
      assert.equal(cds?.versionInfo, "v1", "the version Envoy holds");
      assert.equal(cds?.responseNonce, "", "no nonce on a new stream");
      assert.equal((s.requests[0]?.node as { id: string } | undefined)?.id, NODE.id, "node on the first request");
      assert.ok(s.requests.some((r) => r.typeUrl === NAME_TABLE_TYPE_URL));
      await s.push({ versionInfo: "v2", nonce: "b", typeUrl: CDS, resources: [cluster(2)] });
      await envoy.waitFor(2);
      assert.equal(envoy.responses[1]?.versionInfo, "v2");
      assert.ok(proxy.stats().reconnects >= 1);
      await until(() => proxy.ready(), "ready again");
    } finally {
      envoy.close();
      await proxy.close();
      await second?.close();
    }
  });

  test("delta: forwarded, and on reconnect re-subscribed with the versions Envoy has", async () => {
    const first = await startFakeIstiod(pki);
    const port = first.port;
    const proxy = await proxyFor(first);
    const envoy = adsClient(`unix:${proxy.socketPath}`, "delta");
    let second: FakeIstiod | undefined;
    try {
      envoy.send({ node: NODE, typeUrl: CDS, resourceNamesSubscribe: ["c1", "c2"] });
      await until(() => first.streams[0]?.kind === "delta" && first.streams[0].requests.length === 1, "delta request");
      await first.streams[0]?.push({
        systemVersionInfo: "s1",
        nonce: "d1",
        typeUrl: CDS,
        resources: [
          { name: "c1", version: "1", resource: cluster(1) },
          { name: "c2", version: "7", resource: cluster(2) },
        ],
      });
      await envoy.waitFor(1);
      envoy.send({ typeUrl: CDS, resourceNamesUnsubscribe: ["c2"], responseNonce: "d1" });
      await until(() => (first.streams[0]?.requests.length ?? 0) === 2, "unsubscribe forwarded");
      await first.close();
      second = await startFakeIstiod(pki, port);
      await until(() => (second?.streams[0]?.requests.length ?? 0) >= 1, "re-subscription", 15_000);
      const r = second.streams[0]?.requests[0];
      assert.deepEqual(r?.resourceNamesSubscribe, ["c1"]);
      assert.deepEqual(r?.initialResourceVersions, { c1: "1" });
    } finally {
      envoy.close();
      await proxy.close();
      await second?.close();
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
      await new Promise((r) => setTimeout(r, 1500));
      // 200 × 64 KiB: a proxy that buffered would have taken them all by now; a bounded one holds a
      // few dozen messages (its stream buffers and the HTTP/2 windows) and istiod waits.
      assert.ok(written < total / 2, `istiod managed to write ${written}/${total} while Envoy was not reading`);
      assert.ok(proxy.stats().paused >= 1);
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
