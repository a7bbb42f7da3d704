/**
 * DNS over TCP against clients that do not play along, as miekg/dns's server (pilot-agent's) treats
 * them: 1,100 raw sockets trickling a byte a second and idle ones are closed because a whole message
 * is due within the read timeout, so `dig +tcp` is answered while they try; one connection serves at
 * most 128 queries.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import dnsPacket from "dns-packet";
import { type DnsProxy, startDnsProxy } from "./server.js";
import { dig, digSkip } from "./testing/dig.js";
import { type FakeResolver, startFakeResolver } from "./testing/fake-resolver.js";
import { PRODUCTPAGE } from "./testing/tables.js";

const TABLE = { table: PRODUCTPAGE };

/** Resolves once every socket has been closed (by the server: the test closes none before). */
function allClosed(sockets: Socket[], boundMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let open = sockets.filter((s) => !s.closed).length;
    if (open === 0) resolve(0);
    const timer = setTimeout(
      () => reject(new Error(`${open}/${sockets.length} connections still open after ${boundMs} ms`)),
      boundMs,
    );
    for (const s of sockets)
      s.once("close", () => {
        open--;
        if (open === 0) {
          clearTimeout(timer);
          resolve(0);
        }
      });
  });
}

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port }, () => resolve(s));
    s.on("error", () => {});
    s.once("error", reject);
  });
}

describe("DNS over TCP with misbehaving clients", () => {
  let upstream: FakeResolver;
  let proxy: DnsProxy;

  before(async () => {
    upstream = await startFakeResolver({ zones: [{ zone: ".", rcode: "NXDOMAIN" }] });
    proxy = await startDnsProxy({
      address: "127.0.0.1:0",
      proxyNamespace: "ns1",
      proxyDomain: "ns1.svc.cluster.local",
      upstreams: [upstream.address],
      searchNamespaces: ["ns1.svc.cluster.local"],
    });
    proxy.updateNameTable(TABLE);
  });

  after(async () => {
    await proxy.close();
    await upstream.close();
  });

  test("1,100 clients trickling a byte a second: dig +tcp is answered, and each trickler is closed", {
    skip: digSkip,
  }, async () => {
    const sockets: Socket[] = [];
    const timers: NodeJS.Timeout[] = [];
    try {
      for (let i = 0; i < 1100; i++) {
        const s = await opened(proxy.ports.tcp).catch(() => undefined);
        if (!s) continue;
        sockets.push(s);
        // A 512-byte message announced, then one byte a second: never whole within the test.
        s.write(Buffer.from([0x02, 0x00]));
        timers.push(
          setInterval(() => {
            if (!s.destroyed) s.write(Buffer.from([0x00]));
          }, 1000),
        );
      }
      const stdout = await dig([
        "+tcp",
        "+time=5",
        "+tries=2",
        "@127.0.0.1",
        "-p",
        String(proxy.ports.tcp),
        "productpage",
        "A",
      ]);
      assert.match(stdout, /^productpage\.\s+30\s+IN\s+A\s+9\.9\.9\.9$/m);
      await allClosed(sockets, 60_000);
    } finally {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
    }
  });

  test("a client that connects and sends nothing is closed", async () => {
    const s = await opened(proxy.ports.tcp);
    try {
      await allClosed([s], 30_000);
    } finally {
      s.destroy();
    }
  });

  test("one connection answers 128 queries, then the server closes it", async () => {
    const s = await opened(proxy.ports.tcp);
    try {
      const ids: number[] = [];
      let buffered = Buffer.alloc(0);
      s.on("data", (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          const reply = dnsPacket.decode(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
          ids.push(reply.id ?? -1);
          buffered = buffered.subarray(2 + buffered.readUInt16BE(0));
        }
      });
      const closed = allClosed([s], 30_000);
      for (let id = 1; id <= 130; id++)
        s.write(
          dnsPacket.streamEncode({
            id,
            type: "query",
            flags: dnsPacket.RECURSION_DESIRED,
            questions: [{ name: "productpage", type: "A", class: "IN" }],
          }),
        );
      await closed;
      assert.deepEqual(
        ids,
        Array.from({ length: 128 }, (_, i) => i + 1),
      );
    } finally {
      s.destroy();
    }
  });
});
