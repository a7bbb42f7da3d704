import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CaptureValidationError,
  detectLocalIP,
  validateIPv4LoopbackCidr,
  validateIptablesBinary,
  validateOwnerGroups,
} from "./validate.js";

const groups = (n: number) => Array.from({ length: n }, (_, i) => String(i)).join(",");

test("at most 64 included owner groups; exclusions are unlimited", () => {
  validateOwnerGroups(groups(64), "");
  validateOwnerGroups("*", groups(500));
  assert.throws(() => validateOwnerGroups(groups(65), ""), /at most 64 owner groups.*got 65/);
});

test("the IPv4 loopback CIDR", () => {
  validateIPv4LoopbackCidr("127.0.0.1/8");
  assert.throws(() => validateIPv4LoopbackCidr("127.0.0.1/7"), /mask in \[8, 32\]; found 7/);
  assert.throws(() => validateIPv4LoopbackCidr("10.0.0.1/32"), /loopback .* found 10\.0\.0\.1/);
  assert.throws(() => validateIPv4LoopbackCidr("::1/128"), CaptureValidationError);
  assert.throws(() => validateIPv4LoopbackCidr("127.0.0.1"), /failed to parse CIDR/);
});

test("the forced iptables binary", () => {
  for (const ok of ["", "legacy", "nft"]) validateIptablesBinary(ok);
  assert.throws(() => validateIptablesBinary("iptables"), /iptables version iptables not supported/);
});

test("IPv6 detection from the interface addresses", () => {
  assert.equal(detectLocalIP(["127.0.0.1", "fe80::1", "10.0.0.2", "fd00::2"], false).isIPv6, false);
  assert.equal(detectLocalIP(["::1", "fd00::2", "10.0.0.2"], false).isIPv6, true);
  const dual = detectLocalIP(["10.0.0.2", "fd00::2"], true);
  assert.equal(dual.isIPv6, true);
  assert.deepEqual(dual.addr.bytes, [10, 0, 0, 2]);
  assert.equal(detectLocalIP(["::ffff:10.0.0.2"], false).isIPv6, false);
  assert.throws(() => detectLocalIP(["127.0.0.1", "::1"], true), /no valid local IP address/);
});
