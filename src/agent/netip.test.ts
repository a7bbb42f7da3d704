import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AddressError,
  formatAddr,
  formatPrefix,
  is4,
  isLinkLocalUnicast,
  isLoopback,
  parseAddr,
  parsePrefix,
} from "./netip.js";

test("prefixes keep their host bits and IPv6 is printed in RFC 5952 form", () => {
  assert.equal(formatPrefix(parsePrefix("10.0.0.1/8")), "10.0.0.1/8");
  assert.equal(formatPrefix(parsePrefix("2001:DB8:0:0:0:0:0:1/64")), "2001:db8::1/64");
  assert.equal(formatPrefix(parsePrefix("0:0:0:0:0:0:0:0/0")), "::/0");
  assert.equal(formatPrefix(parsePrefix("127.0.0.1/8")), "127.0.0.1/8");
  assert.equal(formatPrefix(parsePrefix("2001:0DB8:0000:0000:0001:0000:0000:0001/64")), "2001:db8::1:0:0:1/64");
  assert.equal(formatPrefix(parsePrefix("0:0:1:0:0:0:1:0/128")), "0:0:1::1:0/128");
  assert.equal(formatPrefix(parsePrefix("::ffff:10.1.2.3/128")), "::ffff:10.1.2.3/128");
  assert.equal(formatPrefix(parsePrefix("::10.1.2.3/128")), "::a01:203/128");
});

test("the first of equally long zero runs is the one compressed; a single zero group is not", () => {
  assert.equal(formatAddr(parseAddr("1:0:0:2:0:0:3:4")), "1::2:0:0:3:4");
  assert.equal(formatAddr(parseAddr("1:0:0:1:0:0:0:1")), "1:0:0:1::1");
  assert.equal(formatAddr(parseAddr("1:2:3:4:5:6:0:8")), "1:2:3:4:5:6:0:8");
});

test("IPv4-mapped and embedded IPv4 addresses", () => {
  const mapped = parseAddr("::ffff:1.2.3.4");
  assert.equal(is4(mapped), false);
  assert.equal(formatAddr(mapped), "::ffff:1.2.3.4");
  assert.equal(formatAddr(parseAddr("64:ff9b::10.0.0.1")), "64:ff9b::a00:1");
  assert.equal(isLoopback(parseAddr("::ffff:127.0.0.2")), true);
  assert.equal(is4(parsePrefix("::ffff:127.0.0.1/128").addr), false);
});

test("what netip rejects", () => {
  for (const bad of ["01.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9"]) {
    assert.throws(() => parseAddr(bad), AddressError, bad);
  }
  for (const bad of [
    "1.2.3.4",
    "1.2.3.4/33",
    "1.2.3.4/08",
    "1.2.3.4/-1",
    "::1/129",
    "fe80::1%eth0/64",
    "1.2.3.4/",
    "/8",
    "10.0.0.01/8",
    "10.0.0/8",
    "10.0.0.256/8",
    "1::2::3/64",
    "1:2:3:4:5:6:7:8::/64",
    "12345::/16",
    "1:2:3/48",
  ]) {
    assert.throws(() => parsePrefix(bad), AddressError, bad);
  }
  assert.throws(() => parsePrefix("10.0.0.0"), /^AddressError: netip\.ParsePrefix\("10\.0\.0\.0"\): no '\/'$/);
});

test("address classes", () => {
  assert.equal(isLoopback(parseAddr("127.9.9.9")), true);
  assert.equal(isLoopback(parseAddr("::1")), true);
  assert.equal(isLoopback(parseAddr("::2")), false);
  assert.equal(isLinkLocalUnicast(parseAddr("169.254.1.1")), true);
  assert.equal(isLinkLocalUnicast(parseAddr("febf::1")), true);
  assert.equal(isLinkLocalUnicast(parseAddr("fec0::1")), false);
});

test("AddressError carries Go's ParseAddr text (Go 1.21 nests an embedded IPv4's own error)", () => {
  assert.throws(
    () => parsePrefix("::ffff:1.2.03.4/128"),
    new AddressError(
      'netip.ParsePrefix("::ffff:1.2.03.4/128"): ParseAddr("::ffff:1.2.03.4"): ParseAddr("1.2.03.4"): IPv4 field has octet with leading zero (at "1.2.03.4")',
    ),
  );
});
