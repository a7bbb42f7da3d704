/**
 * Tests for net.SplitHostPort: Go's own table (net/ip_test.go's splitJoinTests and
 * splitFailureTests), with the error text AddrError prints.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { splitHostPort } from "./net.js";

/** [hostport, host, port]. */
const SPLITS: [string, string, string][] = [
  ["www.google.com:80", "www.google.com", "80"],
  ["127.0.0.1:1234", "127.0.0.1", "1234"],
  ["[::1]:80", "::1", "80"],
  ["[fe80::1%lo0]:80", "fe80::1%lo0", "80"],
  ["[localhost%lo0]:80", "localhost%lo0", "80"],
  [":0", "", "0"],
  ["google.com:https%foo", "google.com", "https%foo"],
  ["127.0.0.1:", "127.0.0.1", ""],
  ["www.google.com:", "www.google.com", ""],
  ["[]:53", "", "53"],
  // Go 1.21 (Istio's Go) accepts an unbracketed zone; later Go says "missing brackets in address".
  ["localhost%lo0:80", "localhost%lo0", "80"],
];

/** [hostport, AddrError.Err]. */
const FAILURES: [string, string][] = [
  ["www.google.com", "missing port in address"],
  ["127.0.0.1", "missing port in address"],
  ["[::1]", "missing port in address"],
  ["[fe80::1%lo0]", "missing port in address"],
  ["[localhost%lo0]", "missing port in address"],
  ["localhost%lo0", "missing port in address"],
  ["::1", "too many colons in address"],
  ["fe80::1%lo0", "too many colons in address"],
  ["fe80::1%lo0:80", "too many colons in address"],
  ["2001:db8::100:80", "too many colons in address"],
  ["[::1", "missing ']' in address"],
  ["[foo:bar]", "missing port in address"],
  ["[foo:bar]baz", "missing port in address"],
  ["[foo]bar:baz", "missing port in address"],
  ["[foo]:[bar]:baz", "too many colons in address"],
  ["[foo]:[bar]baz", "unexpected '[' in address"],
  ["foo[bar]:baz", "unexpected '[' in address"],
  ["a:[", "unexpected '[' in address"],
  ["[[::1]:80", "unexpected '[' in address"],
  ["foo]bar:baz", "unexpected ']' in address"],
  ["a:8]", "unexpected ']' in address"],
];

describe("splitHostPort (Go's net.SplitHostPort)", () => {
  it("splits host and port, removing the brackets", () => {
    for (const [hostport, host, port] of SPLITS) {
      assert.deepEqual(splitHostPort(hostport), { host, port, err: undefined }, hostport);
    }
  });

  it("fails with AddrError's text", () => {
    for (const [hostport, why] of FAILURES) {
      assert.deepEqual(splitHostPort(hostport), { host: "", port: "", err: `address ${hostport}: ${why}` }, hostport);
    }
  });

  it("leaves out the address from the text when it is empty", () => {
    assert.equal(splitHostPort("").err, "missing port in address");
  });
});
