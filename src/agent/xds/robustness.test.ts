/**
 * Malformed input never takes the XDS proxy down: the name-table decoder turns any bytes into a table
 * or a one-line NameTableError (fast-check), a bad table from istiod is counted, NACKed and not
 * handed on, and undecodable frames from an "Envoy" end that stream with an error while others are
 * served.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { NameTableError } from "../dns/name-table.js";
import { NAME_TABLE_TYPE_URL } from "../protos.js";
import { createTestCa } from "../testing/pki.js";
import { sendRawFrames } from "../testing/raw-stream.js";
import { decodeNameTable } from "./name-table-decode.js";
import { startXdsProxy } from "./proxy.js";
import { adsClient } from "./testing/ads-client.js";
import { startFakeIstiod } from "./testing/fake-istiod.js";

const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";

test("decodeNameTable: any bytes give a table or a NameTableError", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => {
      try {
        const table = decodeNameTable(bytes);
        assert.equal(typeof table.table, "object");
      } catch (error) {
        assert.ok(error instanceof NameTableError, String(error));
        assert.doesNotMatch((error as Error).message, /\n/);
      }
    }),
    { numRuns: 2000 },
  );
});

test("garbage from Envoy and a bad name table from istiod: counted, the proxy keeps serving", async () => {
  const pki = await createTestCa();
  const istiod = await startFakeIstiod(pki);
  const dir = mkdtempSync(join(tmpdir(), "meshinject-xds-bad-"));
  const tables: unknown[] = [];
  const proxy = await startXdsProxy({
    socketPath: join(dir, "XDS"),
    discoveryAddress: istiod.address,
    rootCertPath: false,
    tokenPath: false,
    clusterId: "c1",
    onNameTable: (t) => tables.push(t),
  }).catch(async (e) => {
    await istiod.close();
    throw e;
  });
  try {
    // This proxy dials istiod in plaintext and never connects: only the Envoy side is under test.
    const frames = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 64 }), 20);
    frames.push(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])); // a length past the end
    for (const method of ["StreamAggregatedResources", "DeltaAggregatedResources"])
      await sendRawFrames(
        `unix:${proxy.socketPath}`,
        `/envoy.service.discovery.v3.AggregatedDiscoveryService/${method}`,
        frames,
      );
    assert.ok(proxy.stats().malformed >= 1, "undecodable frames are counted");
  } finally {
    await proxy.close();
  }
  // A proxy that can reach istiod: a bad table is dropped and counted, good traffic still flows.
  mkdirSync(join(dir, "var/run/secrets/istio"), { recursive: true });
  writeFileSync(join(dir, "var/run/secrets/istio/root-cert.pem"), pki.rootPem);
  const proxy3 = await startXdsProxy({
    root: dir,
    socketPath: join(dir, "XDS3"),
    discoveryAddress: istiod.address,
    serverName: "localhost",
    tokenPath: false,
    clusterId: "c1",
    onNameTable: (t) => tables.push(t),
  });
  const envoy = adsClient(`unix:${proxy3.socketPath}`);
  try {
    envoy.send({ typeUrl: LDS });
    const deadline = Date.now() + 10_000;
    while ((istiod.streams.at(-1)?.requests.length ?? 0) < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const s = istiod.streams.at(-1);
    assert.ok(s);
    await s.push({
      nonce: "x",
      typeUrl: NAME_TABLE_TYPE_URL,
      resources: [{ typeUrl: NAME_TABLE_TYPE_URL, value: Buffer.from([0x0a, 0xff, 0xff, 0x0f]) }],
    });
    await s.push({ nonce: "y", typeUrl: LDS, resources: [] });
    await envoy.waitFor(1);
    assert.equal(envoy.responses[0]?.nonce, "y");
    assert.deepEqual(tables, []);
    assert.ok(proxy3.stats().malformed >= 1);
    assert.equal(proxy3.stats().nacks, 1);
  } finally {
    envoy.close();
    await proxy3.close();
    await istiod.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
