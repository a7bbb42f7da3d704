import assert from "node:assert/strict";
import { test } from "node:test";
import { dnsScope } from "./alt-hosts.js";
import { buildLookupTable, lookupHost } from "./lookup-table.js";
import { dnsAddress, parseResolvConf } from "./resolv-conf.js";

const scope = dnsScope("ns1", "ns1.svc.cluster.local");
const table = buildLookupTable(
  {
    table: {
      "reviews.ns1.svc.cluster.local": {
        ips: ["1.1.1.1", "bogus"],
        registry: "Kubernetes",
        shortname: "reviews",
        namespace: "ns1",
      },
      "Upper.Example.com": { ips: ["2.2.2.2"], registry: "External" },
      "*.wild": { ips: ["3.3.3.3"], registry: "External" },
      "noaddr.example": { ips: ["not-an-ip"], registry: "External" },
    },
  },
  scope,
  ["ns1.svc.cluster.local", "svc.cluster.local"],
);

test("variants of a Kubernetes service of the proxy's namespace and domain", () => {
  for (const name of ["reviews.", "reviews.ns1.", "reviews.ns1.svc.", "reviews.ns1.svc.cluster.local."]) {
    const r = lookupHost(table, "A", name);
    assert.deepEqual(r.found && r.answers.map((a) => a.data), ["1.1.1.1"], name);
  }
  assert.deepEqual(lookupHost(table, "A", "reviews.ns1.svc.cluster."), { found: false });
});

test("names are kept lower case; other types are forwarded; hosts without addresses are unknown", () => {
  assert.equal(lookupHost(table, "A", "upper.example.com.").found, true);
  assert.deepEqual(lookupHost(table, "TXT", "upper.example.com."), { found: false });
  assert.deepEqual(lookupHost(table, "A", "noaddr.example."), { found: false });
});

test("the first search domain only; a wildcard behind a search-domain CNAME answers with the wildcard name", () => {
  assert.equal(lookupHost(table, "A", "upper.example.com.svc.cluster.local.").found, false);
  const r = lookupHost(table, "A", "x.wild.ns1.svc.cluster.local.");
  assert.ok(r.found);
  assert.deepEqual(
    r.answers.map((a) => [a.name, a.type, a.data]),
    [
      ["x.wild.ns1.svc.cluster.local.", "CNAME", "*.wild."],
      ["*.wild.", "A", "3.3.3.3"],
    ],
  );
});

test("resolv.conf: comments, nameservers that are addresses, search, domain, options", () => {
  const c = parseResolvConf(
    "; c\n# c\nnameserver 10.96.0.10\nnameserver dns.example\ndomain a.b\nsearch x y\noptions ndots:5 timeout:2 bad\n",
  );
  assert.deepEqual(c.servers, ["10.96.0.10"]);
  assert.deepEqual(c.search, ["x", "y"]);
  assert.equal(c.ndots, 5);
  assert.equal(c.timeoutSeconds, 2);
  assert.equal(c.port, "53");
});

test("DNS addresses: host:port or [v6]:port with a decimal port up to 65535, else a one-line error", () => {
  assert.deepEqual(dnsAddress("localhost:15053"), { host: "localhost", port: 15053 });
  assert.deepEqual(dnsAddress("[::1]:53"), { host: "::1", port: 53 });
  assert.deepEqual(dnsAddress(":53"), { host: "", port: 53 });
  for (const bad of ["localhost", "::1:53", "[::1]", "a:+53", "a:65536", "a:", "a]:53", "a[:53", "[::1]:5]3"]) {
    assert.throws(() => dnsAddress(bad), { message: `DNS address ${JSON.stringify(bad)}: must be host:port` }, bad);
  }
});
