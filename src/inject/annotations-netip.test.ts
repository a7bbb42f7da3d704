import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePrefixError } from "./annotations-netip.js";

describe("parsePrefixError", () => {
  it("netip.ParsePrefix", () => {
    assert.equal(parsePrefixError("192.168.0.0/16"), undefined);
    assert.equal(parsePrefixError("::ffff:10.0.0.1/128"), undefined);
    assert.equal(parsePrefixError("10.0.0.0/33"), 'netip.ParsePrefix("10.0.0.0/33"): prefix length out of range');
    assert.equal(parsePrefixError("10.0.0.0/08"), 'netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"');
    // Bits that strconv.Atoi refuses as out of range are bad bits, not an out-of-range length.
    assert.equal(
      parsePrefixError("10.0.0.0/99999999999999999999"),
      'netip.ParsePrefix("10.0.0.0/99999999999999999999"): bad bits after slash: "99999999999999999999"',
    );
    assert.equal(
      parsePrefixError("10.0.0.0/9999999999999999999"),
      'netip.ParsePrefix("10.0.0.0/9999999999999999999"): bad bits after slash: "9999999999999999999"',
    );
    assert.equal(
      parsePrefixError("10.0.0.0/999999999999999999"),
      'netip.ParsePrefix("10.0.0.0/999999999999999999"): prefix length out of range',
    );
    assert.equal(
      parsePrefixError("10.0.0/8"),
      'netip.ParsePrefix("10.0.0/8"): ParseAddr("10.0.0"): IPv4 address too short',
    );
    assert.equal(
      parsePrefixError("010.0.0.1/8"),
      'netip.ParsePrefix("010.0.0.1/8"): ParseAddr("010.0.0.1"): IPv4 field has octet with leading zero',
    );
    assert.equal(
      parsePrefixError("fe80::1%eth0/64"),
      'netip.ParsePrefix("fe80::1%eth0/64"): IPv6 zones cannot be present in a prefix',
    );
    assert.match(parsePrefixError("1::2::3/64") ?? "", /multiple :: in address/);
  });
});
