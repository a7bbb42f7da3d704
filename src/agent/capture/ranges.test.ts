import assert from "node:assert/strict";
import { test } from "node:test";
import { formatPrefix } from "../netip.js";
import { captureConfig } from "./config.js";
import { CaptureRangeError, outboundRanges, separateV4V6 } from "./ranges.js";

test("CIDR lists split by family, IPv4-mapped counted as IPv6, loopback judged on the address", () => {
  const { v4, v6 } = separateV4V6("10.0.0.0/8,::1/128,,127.0.0.1/32,::ffff:127.0.0.1/128,fd00::/8");
  assert.deepEqual(v4.cidrs.map(formatPrefix), ["10.0.0.0/8", "127.0.0.1/32"]);
  assert.deepEqual(v6.cidrs.map(formatPrefix), ["::1/128", "::ffff:127.0.0.1/128", "fd00::/8"]);
  assert.equal(v4.hasLoopBackIP, true);
  assert.equal(v6.hasLoopBackIP, true);
  assert.equal(separateV4V6("10.0.0.0/8,fd00::/8").v6.hasLoopBackIP, false);
});

test("`*` makes both families wildcards; the empty list gives empty ranges", () => {
  const wild = separateV4V6("*");
  assert.deepEqual(wild.v4, { isWildcard: true, cidrs: [], hasLoopBackIP: false });
  assert.deepEqual(wild.v6, { isWildcard: true, cidrs: [], hasLoopBackIP: false });
  const empty = separateV4V6("");
  assert.deepEqual(empty.v4, { isWildcard: false, cidrs: [], hasLoopBackIP: false });
  assert.deepEqual(empty.v6, { isWildcard: false, cidrs: [], hasLoopBackIP: false });
  // `*` only counts on its own.
  assert.throws(() => separateV4V6("*,10.0.0.0/8"), CaptureRangeError);
});

test("a bad entry is an error naming the setting, or skipped with skipInvalid", () => {
  assert.throws(
    () => separateV4V6("10.0.0.0/8,nope", { setting: "OutboundIPRangesInclude" }),
    /^CaptureRangeError: OutboundIPRangesInclude: "nope" is not a CIDR: netip\.ParsePrefix/,
  );
  const { v4 } = separateV4V6("bogus,127.0.0.1/32,10.0.0.0", { skipInvalid: true });
  assert.deepEqual(v4.cidrs.map(formatPrefix), ["127.0.0.1/32"]);
  assert.equal(v4.hasLoopBackIP, true);
});

test("outbound ranges: the exclusion list is read first and may not be `*`", () => {
  const bad = { OutboundIPRangesExclude: "nope", OutboundIPRangesInclude: "also-bad" };
  assert.throws(() => outboundRanges(captureConfig(bad)), /OutboundIPRangesExclude: "nope"/);
  assert.throws(
    () => outboundRanges(captureConfig({ OutboundIPRangesExclude: "*" })),
    (e) => e instanceof CaptureRangeError && e.message.startsWith("invalid value for OUTBOUND_IP_RANGES_EXCLUDE"),
  );
  assert.throws(() => outboundRanges(captureConfig({ OutboundIPRangesExclude: "*" }), { skipInvalid: true }));
  const { include, exclude } = outboundRanges(captureConfig({ ...bad, OutboundIPRangesInclude: "*" }), {
    skipInvalid: true,
  });
  assert.equal(include.v6.isWildcard, true);
  assert.deepEqual(exclude.v4.cidrs, []);
});
