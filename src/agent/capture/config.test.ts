import assert from "node:assert/strict";
import { test } from "node:test";
import { captureConfig, ownerGroupFilter, redirectsDNS, splitList } from "./config.js";

test("list settings split on commas, empty items dropped, nothing trimmed", () => {
  assert.deepEqual(splitList(""), []);
  assert.deepEqual(splitList("6000,7000,"), ["6000", "7000"]);
  assert.deepEqual(splitList(",a,, b"), ["a", " b"]);
});

test("owner groups: `*` captures all but the excluded, anything else only the listed", () => {
  assert.deepEqual(ownerGroupFilter("*", "a,b"), { values: ["a", "b"], except: true });
  assert.deepEqual(ownerGroupFilter("a,7", "b"), { values: ["a", "7"], except: false });
  assert.deepEqual(ownerGroupFilter("", ""), { values: [], except: false });
});

test("DNS is captured only with capture-all or known name servers", () => {
  assert.equal(redirectsDNS(captureConfig({ RedirectDNS: true })), false);
  assert.equal(redirectsDNS(captureConfig({ RedirectDNS: true, CaptureAllDNS: true })), true);
  assert.equal(redirectsDNS(captureConfig({ RedirectDNS: true, DNSServersV6: ["fd00::a"] })), true);
  assert.equal(redirectsDNS(captureConfig({ CaptureAllDNS: true, DNSServersV4: ["10.0.0.10"] })), false);
});
