import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatAddr, formatPrefix, parseAddr, parsePrefix } from "./netip.js";

describe("netip.ParseAddr", () => {
  it("valid addresses print back as String does (Go's TestParseAddr)", () => {
    const cases: [string, string?][] = [
      ["0.0.0.0"],
      ["192.168.140.255"],
      ["::"],
      ["::1"],
      ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b"],
      ["fd7a:115c::626b:430b"],
      ["fd7a:115c:a1e0:ab12:4843:cd96::"],
      ["fd7a:115c:a1e0:ab12:4843:cd96:626b::", "fd7a:115c:a1e0:ab12:4843:cd96:626b:0"],
      ["fd7a:115c:a1e0::4843:cd96:626b:430b", "fd7a:115c:a1e0:0:4843:cd96:626b:430b"],
      ["::ffff:192.168.140.255"],
      ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b%eth0"],
      ["1:2::ffff:192.168.140.255%eth1", "1:2::ffff:c0a8:8cff%eth1"],
      ["::ffff:192.168.140.255%eth1"],
      ["FD9E:1A04:F01D::1", "fd9e:1a04:f01d::1"],
    ];
    for (const [input, want] of cases) {
      const r = parseAddr(input);
      assert.equal(r.err, undefined, input);
      assert.equal(formatAddr(r.value ?? { bytes: [] }), want ?? input, input);
    }
  });

  it("Go's error texts, the embedded IPv4 one nested as Go 1.21 has it", () => {
    assert.equal(
      parseAddr("010.000.015.001").err,
      'ParseAddr("010.000.015.001"): IPv4 field has octet with leading zero',
    );
    assert.equal(
      parseAddr("::ffff:1.2.03.4").err,
      'ParseAddr("::ffff:1.2.03.4"): ParseAddr("1.2.03.4"): IPv4 field has octet with leading zero (at "1.2.03.4")',
    );
    assert.equal(parseAddr("").err, 'ParseAddr(""): unable to parse IP');
    assert.equal(parseAddr("%eth0").err, 'ParseAddr("%eth0"): missing IPv6 address');
    assert.equal(parseAddr("fe80::1%").err, 'ParseAddr("fe80::1%"): zone must be a non-empty string');
    assert.equal(parseAddr("1..2.3").err, 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")');
    assert.equal(parseAddr("fe80::1::1").err, 'ParseAddr("fe80::1::1"): multiple :: in address (at ":1")');
    // strconv.Quote, not JSON: a control character is written \x01.
    assert.equal(parseAddr("1.2.3.\x01").err, 'ParseAddr("1.2.3.\\x01"): unexpected character (at "\\x01")');
  });

  it("what Go's TestParseAddr rejects", () => {
    for (const bad of [
      "",
      "bad",
      "1234",
      "1.2.3.4%eth0",
      ".1.2.3",
      "1.2.3.",
      "1..2.3",
      "1.2.3.4.5",
      "0300.0250.0214.0377",
      "0xc0.0xa8.0x8c.0xff",
      "192.168.12345",
      "127.0.1",
      "192.1234567",
      "127.1",
      "192.168.300.1",
      "192.168.0.1.5.6",
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4::5:6:7:8",
      "fe801::1",
      "fe80:tail:scal:e::",
      "fe80::1%",
      "ffff:ffff:ffff:ffff:ffff:ffff:ffff:192.168.140.255",
      "ffff::ffff:ffff:ffff:ffff:ffff:ffff:192.168.140.255",
      "::ffff:192.168.140.bad",
      "fe80::1::1",
      "fe80:1?:1",
      "fe80:",
    ]) {
      const r = parseAddr(bad);
      assert.match(r.err ?? "", /^ParseAddr\(/, bad);
      assert.equal(r.value, undefined, bad);
    }
  });
});

describe("netip.ParsePrefix", () => {
  it("keeps host bits; String as Go's TestPrefixMarshalTextString", () => {
    for (const [input, want] of [
      ["1.2.3.4/24", "1.2.3.4/24"],
      ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b/118", "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b/118"],
      ["::ffff:c000:0280/96", "::ffff:192.0.2.128/96"],
      ["::ffff:192.168.140.255/8", "::ffff:192.168.140.255/8"],
      ["192.168.0.0/16", "192.168.0.0/16"],
      ["::ffff:10.0.0.1/128", "::ffff:10.0.0.1/128"],
    ] as const) {
      const r = parsePrefix(input);
      assert.equal(r.err, undefined, input);
      assert.equal(r.value && formatPrefix(r.value), want);
    }
  });

  it("Go's TestParsePrefixError", () => {
    for (const [input, part] of [
      ["192.168.0.0", "no '/'"],
      ["1.257.1.1/24", "value >255"],
      ["1.1.1.0/q", "bad bits"],
      ["1.1.1.0/-1", "bad bits"],
      ["1.1.1.0/33", "out of range"],
      ["2001::/129", "out of range"],
      ["1.1.1.0%a/24", "unexpected character"],
      ["2001:db8::%a/32", "zones cannot be present"],
      ["1.1.1.0/+32", "bad bits"],
      ["1.1.1.0/-32", "bad bits"],
      ["1.1.1.0/032", "bad bits"],
      ["1.1.1.0/0032", "bad bits"],
    ] as const) {
      const err = parsePrefix(input).err ?? "";
      assert.ok(err.startsWith(`netip.ParsePrefix(`) && err.includes(part), `${input}: ${err}`);
    }
  });

  it("whole error texts", () => {
    const msg = (input: string, why: string) => `netip.ParsePrefix(${JSON.stringify(input)}): ${why}`;
    const huge = "99999999999999999999";
    for (const [input, why] of [
      ["10.0.0.0/33", "prefix length out of range"],
      ["10.0.0.0/08", 'bad bits after slash: "08"'],
      // Bits that strconv.Atoi refuses as out of range are bad bits, not an out-of-range length.
      [`10.0.0.0/${huge}`, `bad bits after slash: "${huge}"`],
      ["10.0.0.0/9999999999999999999", 'bad bits after slash: "9999999999999999999"'],
      ["10.0.0.0/999999999999999999", "prefix length out of range"],
      ["10.0.0/8", 'ParseAddr("10.0.0"): IPv4 address too short'],
      ["010.0.0.1/8", 'ParseAddr("010.0.0.1"): IPv4 field has octet with leading zero'],
      ["fe80::1%eth0/64", "IPv6 zones cannot be present in a prefix"],
      ["1::2::3/64", 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'],
    ] as const) {
      assert.equal(parsePrefix(input).err, msg(input, why));
    }
  });
});
