// The pod's capture as istio-iptables would program it: the facts it finds at run time, given here.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PodCaptureError, splitNameServers } from "./pod-capture.js";

test("name servers are split as istio-iptables splits resolv.conf's (IPsSplitV4V6): by family, in netip's form", () => {
  // Go's netip String: RFC 5952 lower case and compressed; an IPv4-mapped address stays IPv6.
  assert.deepEqual(splitNameServers(["10.96.0.10", "2001:DB8:0:0::A", "::FFFF:10.0.0.1"]), {
    v4: ["10.96.0.10"],
    v6: ["2001:db8::a", "::ffff:10.0.0.1"],
  });
  // Where istio-iptables would skip a bad resolv.conf entry, the user's own flag value is refused.
  assert.throws(() => splitNameServers(["10.0.0.300"]), PodCaptureError);
});
