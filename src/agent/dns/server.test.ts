/**
 * The DNS proxy as a real server on loopback, asked by real clients — `dig` and node:dns's Resolver —
 * with a fake upstream resolver of ours behind it.
 */
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { Resolver } from "node:dns/promises";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import dnsPacket from "dns-packet";
import { Registry } from "prom-client";
import { DNS_NOT_READY, type DnsProxy, startDnsProxy } from "./server.js";
import { query } from "./testing/client.js";
import { dig, digSkip } from "./testing/dig.js";
import { type FakeResolver, startFakeResolver } from "./testing/fake-resolver.js";
import { PRODUCTPAGE } from "./testing/tables.js";
import { RCODE, rcodeOf } from "./wire.js";

const TABLE = {
  table: {
    ...PRODUCTPAGE,
    "details.ns1.svc.cluster.local": {
      ips: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
      registry: "Kubernetes",
      shortname: "details",
      namespace: "ns1",
    },
    "dual.example.com": { ips: ["2.2.2.2", "2001:db8::1"], registry: "External" },
  },
};

const giant = Array.from({ length: 64 }, (_, i) => ({
  name: "aaaaaaaaaaaa.aaaaaa.",
  type: "A" as const,
  class: "IN" as const,
  ttl: 30,
  data: `240.0.0.${i}`,
}));

describe("DNS proxy over real sockets", () => {
  let upstream: FakeResolver;
  let proxy: DnsProxy;

  before(async () => {
    upstream = await startFakeResolver({
      zones: [
        { zone: ".", rcode: "NXDOMAIN" },
        {
          zone: "www.bing.com.",
          rcode: "NOERROR",
          answer: [{ name: "www.bing.com.", type: "A", class: "IN", ttl: 30, data: "1.1.1.1" }],
        },
        { zone: "giant.", rcode: "NOERROR", answer: giant },
      ],
    });
    proxy = await startDnsProxy({
      address: "localhost:0",
      proxyNamespace: "ns1",
      proxyDomain: "ns1.svc.cluster.local",
      upstreams: [upstream.address],
      searchNamespaces: ["ns1.svc.cluster.local", "svc.cluster.local", "cluster.local"],
    });
  });

  after(async () => {
    await proxy.close();
    await upstream.close();
  });

  test("before the first name table: SERVFAIL, not ready, no ndsz", async () => {
    assert.equal(proxy.isReady(), false);
    assert.equal(proxy.ndsz(), undefined);
    const reply = await query("udp", "127.0.0.1", proxy.ports.udp, { name: "productpage.", type: "A" });
    assert.equal(rcodeOf(reply.flags ?? 0), RCODE.SERVFAIL);
    proxy.updateNameTable(TABLE);
    assert.equal(proxy.isReady(), true);
  });

  test("dig over UDP: a short name of the proxy's namespace, authoritative", { skip: digSkip }, async () => {
    const out = await dig(["@127.0.0.1", "-p", String(proxy.ports.udp), "productpage", "A"]);
    assert.match(out, /status: NOERROR/);
    assert.match(out, /flags: qr aa rd/);
    assert.match(out, /^productpage\.\s+30\s+IN\s+A\s+9\.9\.9\.9$/m);
  });

  test("dig over TCP: a name followed by the first search domain answers CNAME then A", { skip: digSkip }, async () => {
    const out = await dig([
      "+tcp",
      "@127.0.0.1",
      "-p",
      String(proxy.ports.tcp),
      "productpage.ns1.ns1.svc.cluster.local",
      "A",
    ]);
    assert.match(out, /flags: qr aa rd/);
    assert.match(out, /^productpage\.ns1\.ns1\.svc\.cluster\.local\.\s+30\s+IN\s+CNAME\s+productpage\.ns1\.$/m);
    assert.match(out, /^productpage\.ns1\.\s+30\s+IN\s+A\s+9\.9\.9\.9$/m);
  });

  test("dig: a FQDN followed by the first search domain again is forwarded, as Istio's buildDNSAnswers leaves it out", {
    skip: digSkip,
  }, async () => {
    const before = upstream.queries();
    const out = await dig([
      "@127.0.0.1",
      "-p",
      String(proxy.ports.udp),
      "productpage.ns1.svc.cluster.local.ns1.svc.cluster.local",
      "A",
    ]);
    assert.match(out, /status: NXDOMAIN/);
    assert.doesNotMatch(out, /flags: qr aa/);
    assert.equal(upstream.queries() - before, 1);
  });

  test("dig: one label with an escaped dot is not the two labels of the table; forwarded, question echoed", {
    skip: digSkip,
  }, async () => {
    const before = upstream.queries();
    for (const transport of [
      ["+notcp", proxy.ports.udp],
      ["+tcp", proxy.ports.tcp],
    ] as const) {
      const out = await dig([transport[0], "@127.0.0.1", "-p", String(transport[1]), "productpage\\.ns1", "A"]);
      assert.match(out, /status: NXDOMAIN/);
      assert.match(out, /^;productpage\\\.ns1\.\s+IN\s+A$/m);
      assert.doesNotMatch(out, /9\.9\.9\.9/);
    }
    assert.equal(upstream.queries() - before, 2);
    // The two labels are the table's.
    const table = await dig(["@127.0.0.1", "-p", String(proxy.ports.udp), "productpage.ns1", "A"]);
    assert.match(table, /^productpage\.ns1\.\s+30\s+IN\s+A\s+9\.9\.9\.9$/m);
  });

  test("a UDP query longer than 512 bytes is cut there as miekg/dns reads it (FORMERR); over TCP it is whole", async () => {
    // dig sends a query this long over TCP, so dns-packet builds it and a plain socket sends it.
    const query = dnsPacket.encode({
      id: 4242,
      type: "query",
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name: "productpage", type: "A", class: "IN" }],
      additionals: [
        { type: "OPT", name: ".", udpPayloadSize: 4096, options: [{ code: 65001, data: Buffer.alloc(600, 0xab) }] },
      ] as never,
    });
    assert.ok(query.length > 512);
    const socket = createSocket("udp4");
    try {
      const reply = await new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no UDP reply")), 5000);
        socket.once("message", (m) => {
          clearTimeout(timer);
          resolve(m);
        });
        socket.send(query, proxy.ports.udp, "127.0.0.1");
      });
      const decoded = dnsPacket.decode(reply);
      assert.equal(decoded.id, 4242);
      assert.equal((decoded.flags ?? 0) & 0xf, 1, "FORMERR");
      // The request's header turned around (RD kept) with the question miekg had read, no records.
      assert.equal(decoded.flag_rd, true);
      assert.deepEqual(
        decoded.questions?.map((q) => [q.name, q.type]),
        [["productpage", "A"]],
      );
      assert.deepEqual([decoded.answers?.length, decoded.additionals?.length], [0, 0]);
    } finally {
      socket.close();
    }
    const tcp = await dig([
      "+tcp",
      `+ednsopt=65001:${"ab".repeat(600)}`,
      "@127.0.0.1",
      "-p",
      String(proxy.ports.tcp),
      "productpage",
      "A",
    ]);
    assert.match(tcp, /^productpage\.\s+30\s+IN\s+A\s+9\.9\.9\.9$/m);
  });

  test("dig: a forwarded name comes back from the upstream; an unknown one NXDOMAIN", { skip: digSkip }, async () => {
    const before = upstream.queries();
    const ok = await dig(["@127.0.0.1", "-p", String(proxy.ports.udp), "www.bing.com", "A"]);
    assert.match(ok, /^www\.bing\.com\.\s+30\s+IN\s+A\s+1\.1\.1\.1$/m);
    const missing = await dig(["@127.0.0.1", "-p", String(proxy.ports.udp), "nothing.example", "A"]);
    assert.match(missing, /status: NXDOMAIN/);
    assert.equal(upstream.queries() - before, 2);
  });

  test("dig with EDNS0 4096 gets all 64 records over UDP; without EDNS0 the proxy cannot read them", {
    skip: digSkip,
  }, async () => {
    const big = await dig(["+bufsize=4096", "@127.0.0.1", "-p", String(proxy.ports.udp), "giant", "A"]);
    assert.equal((big.match(/IN\s+A\s+240\.0\.0\./g) ?? []).length, 64);
    const small = await dig(["+noedns", "+ignore", "@127.0.0.1", "-p", String(proxy.ports.udp), "giant", "A"]);
    assert.match(small, /status: SERVFAIL/);
  });

  test("node:dns Resolver: A, AAAA, round robin over three addresses", async () => {
    const resolver = new Resolver({ timeout: 3000, tries: 1 });
    resolver.setServers([`127.0.0.1:${proxy.ports.udp}`]);
    assert.deepEqual(await resolver.resolve4("dual.example.com"), ["2.2.2.2"]);
    assert.deepEqual(await resolver.resolve6("dual.example.com"), ["2001:db8::1"]);
    const orders = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const ips = await resolver.resolve4("details");
      assert.deepEqual([...ips].sort(), ["10.0.0.1", "10.0.0.2", "10.0.0.3"]);
      orders.add(ips.join(","));
    }
    assert.ok(orders.size > 1, "the three addresses come in more than one order");
    await assert.rejects(resolver.resolve4("nothing.example"), { code: "ENOTFOUND" });
  });

  test("a known name with no address of the asked family: NOERROR and no records", async () => {
    const reply = await query("tcp", "127.0.0.1", proxy.ports.tcp, { name: "productpage.", type: "AAAA" });
    assert.equal(rcodeOf(reply.flags ?? 0), RCODE.NOERROR);
    assert.equal(reply.flag_aa, true);
    assert.deepEqual(reply.answers, []);
  });

  test("ndsz lists the table with the derived names", () => {
    const view = proxy.ndsz();
    assert.ok(view?.table);
    assert.deepEqual(view.table["productpage."], { ips: ["9.9.9.9"], registry: "Kubernetes" });
    assert.ok(Object.hasOwn(view.table, "productpage.ns1.svc."));
    assert.deepEqual(view.table["dual.example.com"], TABLE.table["dual.example.com"]);
  });

  test("a malformed table is refused with the field named, and the old one stays", async () => {
    assert.throws(
      () => proxy.updateNameTable({ table: { "x.example": { ips: "1.2.3.4" } } }),
      /table\["x\.example"\]\.ips/,
    );
    const reply = await query("udp", "127.0.0.1", proxy.ports.udp, { name: "productpage.", type: "A" });
    assert.equal(reply.answers?.length, 1);
  });
});

describe("DNS proxy configuration", () => {
  let root: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "meshinject-dns-"));
    await mkdir(join(root, "etc"));
    await writeFile(
      join(root, "etc/resolv.conf"),
      "# pod resolver\nsearch ns1.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\nnameserver ::1\noptions ndots:5\n",
    );
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test("reads upstreams and search domains from <root>/etc/resolv.conf and listens on both families", async () => {
    const proxy = await startDnsProxy({
      root,
      address: "localhost:0",
      proxyNamespace: "ns1",
      proxyDomain: "ns1.svc.cluster.local",
    });
    try {
      assert.deepEqual(proxy.resolvers(), {
        upstreams: ["127.0.0.1:53", "[::1]:53"],
        search: ["ns1.svc.cluster.local", "svc.cluster.local", "cluster.local"],
      });
      assert.deepEqual(
        proxy.listeners.map((l) => `${l.transport} ${l.host}`),
        ["udp 127.0.0.1", "tcp 127.0.0.1", "udp ::1", "tcp ::1"],
      );
      proxy.updateNameTable(TABLE);
      const v6 = proxy.listeners.find((l) => l.host === "::1" && l.transport === "udp");
      const reply = await query("udp", "::1", v6?.port ?? 0, { name: "productpage.", type: "A" });
      assert.equal((reply.answers?.[0] as { data?: unknown } | undefined)?.data, "9.9.9.9");
    } finally {
      await proxy.close();
    }
  });

  test("metrics under pilot-agent's names on the agent's registry; readiness message", async () => {
    const registry = new Registry();
    const upstream = await startFakeResolver({ zones: [{ zone: ".", rcode: "NXDOMAIN" }] });
    const proxy = await startDnsProxy({
      address: "127.0.0.1:0",
      proxyNamespace: "ns1",
      proxyDomain: "ns1.svc.cluster.local",
      upstreams: [upstream.address],
      searchNamespaces: [],
      metrics: registry,
    });
    try {
      proxy.updateNameTable(TABLE);
      await query("udp", "127.0.0.1", proxy.ports.udp, { name: "productpage.", type: "A" });
      await query("udp", "127.0.0.1", proxy.ports.udp, { name: "elsewhere.example.", type: "A" });
      const text = await registry.metrics();
      assert.match(text, /^dns_requests_total 2$/m);
      assert.match(text, /^dns_upstream_requests_total 1$/m);
      assert.match(text, /^dns_upstream_failures_total 0$/m);
      assert.match(text, /^dns_upstream_request_duration_seconds_count 1$/m);
      assert.match(DNS_NOT_READY, /DNS lookup table is not ready yet/);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  test("a missing resolv.conf is a one-line error naming the file", async () => {
    await assert.rejects(
      startDnsProxy({ root: join(root, "none"), proxyNamespace: "ns1", proxyDomain: "ns1.svc.cluster.local" }),
      /DNS proxy: cannot read .*etc\/resolv\.conf/,
    );
  });
});
