/**
 * Malformed DNS messages: the decoder gate and the handler never throw on any bytes (fast-check),
 * and the live proxy answers FORMERR/NOTIMP or drops and counts what it cannot use, while still
 * answering good queries afterwards.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createSocket } from "node:dgram";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { acceptQuery } from "./accept.js";
import { dnsScope } from "./alt-hosts.js";
import { decide } from "./answer.js";
import { buildLookupTable } from "./lookup-table.js";
import { type DnsProxy, type DnsProxyOptions, startDnsProxy } from "./server.js";
import { query, queryMessage } from "./testing/client.js";
import { type FakeResolver, startFakeResolver } from "./testing/fake-resolver.js";
import { decodeMessage, packReply, replySizeLimit } from "./wire.js";

const TABLE = {
  table: {
    "productpage.ns1.svc.cluster.local": {
      ips: ["9.9.9.9", "9.9.9.10", "2001:db8::9"],
      registry: "Kubernetes",
      shortname: "productpage",
      namespace: "ns1",
    },
    "*.wild.example": { ips: ["10.0.0.1"], registry: "External" },
  },
};
const lookup = buildLookupTable(TABLE, dnsScope("ns1", "ns1.svc.cluster.local"), ["ns1.svc.cluster.local"]);
let counter = 0;
const ids = () => (counter = (counter + 7) & 0xffff);

/** A proxy on an ephemeral loopback port in front of `upstream`. */
function proxyFor(upstream: FakeResolver, extra: Partial<DnsProxyOptions>): Promise<DnsProxy> {
  return startDnsProxy({
    address: "127.0.0.1:0",
    proxyNamespace: "ns1",
    proxyDomain: "ns1.svc.cluster.local",
    upstreams: [upstream.address],
    ...extra,
  });
}

/** A valid query with a few bytes flipped, cut or appended. */
const mutatedQuery = fc
  .record({
    name: fc.constantFrom(
      "productpage.",
      "x.wild.example.",
      "productpage.ns1.ns1.svc.cluster.local.",
      "other.example.",
    ),
    type: fc.constantFrom("A", "AAAA", "TXT", "MX", "ANY"),
    edns: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
    flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
    cut: fc.option(fc.nat(), { nil: undefined }),
    tail: fc.uint8Array({ maxLength: 16 }),
  })
  .map(({ name, type, edns, flips, cut, tail }) => {
    const base = queryMessage({ name, type, edns0: edns === undefined ? undefined : { udpSize: edns } });
    const b = Buffer.from(base);
    for (const [at, v] of flips) b[at % b.length] = v;
    const cutTo = cut === undefined ? b.length : cut % (b.length + 1);
    return Buffer.concat([b.subarray(0, cutTo), tail]);
  });

const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 600 }).map((u) => Buffer.from(u)),
  mutatedQuery,
);

describe("decoder and handler on arbitrary bytes", () => {
  test("never throw; a reply to an accepted query has its ID and encodes within the client's size", () => {
    fc.assert(
      fc.property(anyBytes, fc.constantFrom("udp" as const, "tcp" as const), (bytes, transport) => {
        const gate = acceptQuery(bytes);
        if (gate.kind === "drop") return;
        if (gate.kind === "reject") {
          assert.equal(gate.reply.readUInt16BE(0), bytes.readUInt16BE(0));
          return;
        }
        const decision = decide(gate.query, lookup, ids);
        if (decision.kind === "forward") return;
        const size = replySizeLimit(transport, gate.query);
        let wire: Buffer;
        try {
          wire = packReply(decision.reply, size);
        } catch {
          // A name dns-packet decoded but that cannot be written back (the server answers SERVFAIL then).
          return;
        }
        const back = decodeMessage(wire);
        assert.equal(back.id, gate.query.id);
        assert.equal(back.type, "response");
      }),
      { numRuns: 3000 },
    );
  });
});

describe("the live proxy under malformed traffic", () => {
  let upstream: FakeResolver;
  let proxy: DnsProxy;

  before(async () => {
    upstream = await startFakeResolver({ zones: [{ zone: ".", rcode: "NXDOMAIN" }] });
    proxy = await proxyFor(upstream, { searchNamespaces: ["ns1.svc.cluster.local"], upstreamTimeoutMs: 500 });
    proxy.updateNameTable(TABLE);
  });

  after(async () => {
    await proxy.close();
    await upstream.close();
  });

  test("UDP: short packets are dropped and counted, bad counts get FORMERR, bad opcodes NOTIMP", async () => {
    const before = proxy.stats();
    const sock = createSocket("udp4");
    const replies: Buffer[] = [];
    sock.on("message", (m) => replies.push(m));
    const send = (b: Buffer) => new Promise<void>((r) => sock.send(b, proxy.ports.udp, "127.0.0.1", () => r()));
    await send(Buffer.from([1, 2, 3]));
    const twoQuestions = Buffer.from(queryMessage({ name: "a.example", type: "A", id: 0x1111 }));
    twoQuestions.writeUInt16BE(2, 4);
    await send(twoQuestions);
    const update = Buffer.from(queryMessage({ name: "a.example", type: "A", id: 0x2222 }));
    update.writeUInt16BE((5 << 11) | 0x0100, 2); // opcode UPDATE
    await send(update);
    await new Promise((r) => setTimeout(r, 300));
    sock.close();
    const after = proxy.stats();
    assert.equal(after.dropped - before.dropped, 1);
    assert.equal(after.rejected - before.rejected, 2);
    const byId = new Map(replies.map((r) => [r.readUInt16BE(0), r.readUInt16BE(2) & 0xf]));
    assert.equal(byId.get(0x1111), 1, "FORMERR");
    assert.equal(byId.get(0x2222), 4, "NOTIMP");
  });

  test("random datagrams and TCP frames never take it down; good queries still answer", async () => {
    const samples = fc.sample(anyBytes, { numRuns: 400, seed: 42 });
    const sock = createSocket("udp4");
    sock.on("message", () => {});
    for (const b of samples) await new Promise<void>((r) => sock.send(b, proxy.ports.udp, "127.0.0.1", () => r()));
    sock.close();
    await new Promise<void>((resolve) => {
      const c = connect({ host: "127.0.0.1", port: proxy.ports.tcp }, () => {
        for (const b of samples.slice(0, 100)) {
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(b.length);
          c.write(Buffer.concat([prefix, b]));
        }
        c.end(Buffer.from([0xff])); // half a length prefix, then gone
      });
      c.on("data", () => {});
      c.on("error", () => resolve());
      c.on("close", () => resolve());
    });
    const udp = await query("udp", "127.0.0.1", proxy.ports.udp, { name: "productpage.", type: "A" });
    assert.equal(udp.answers?.length, 2);
    const tcp = await query("tcp", "127.0.0.1", proxy.ports.tcp, { name: "x.wild.example.", type: "A" });
    assert.equal((tcp.answers?.[0] as { data?: unknown } | undefined)?.data, "10.0.0.1");
    const stats = proxy.stats();
    assert.ok(stats.dropped + stats.rejected > 0);
  });
});

describe("shutdown and slow clients", () => {
  test("closing while a query waits on a silent upstream loses that query, nothing else", async () => {
    const silent = await startFakeResolver({ silent: true });
    const proxy = await proxyFor(silent, { searchNamespaces: [], upstreamTimeoutMs: 200 });
    proxy.updateNameTable({ table: {} });
    const pending = query("udp", "127.0.0.1", proxy.ports.udp, { name: "late.example", type: "A" }, 600);
    await new Promise((r) => setTimeout(r, 50));
    await proxy.close();
    await assert.rejects(pending, /no udp reply/);
    await new Promise((r) => setTimeout(r, 300)); // the upstream timeout fires after the close
    await silent.close();
  });

  test("a TCP client that sends 5,000 queries and reads nothing does not stop others being answered", async () => {
    const upstream = await startFakeResolver({ zones: [] });
    const proxy = await proxyFor(upstream, { searchNamespaces: [] });
    proxy.updateNameTable(TABLE);
    const hog = connect({ host: "127.0.0.1", port: proxy.ports.tcp });
    hog.on("error", () => {});
    await new Promise<void>((r) => hog.on("connect", () => r()));
    hog.pause();
    const frames: Buffer[] = [];
    for (let i = 0; i < 5000; i++) {
      const m = queryMessage({ name: "productpage.", type: "A", id: i });
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(m.length);
      frames.push(prefix, m);
    }
    hog.write(Buffer.concat(frames));
    await new Promise((r) => setTimeout(r, 300));
    const reply = await query("tcp", "127.0.0.1", proxy.ports.tcp, { name: "productpage.", type: "A" });
    assert.equal(reply.answers?.length, 2);
    hog.destroy();
    await proxy.close();
    await upstream.close();
  });
});
