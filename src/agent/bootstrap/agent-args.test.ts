import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAgentArgs, parseGoInt, toInt32 } from "./agent-args.js";
import { BootstrapError } from "./errors.js";

describe("parseAgentArgs", () => {
  it("reads the injected sidecar's arguments, with pilot-agent's defaults", () => {
    const a = parseAgentArgs([], ["proxy", "sidecar", "--domain", "shop.svc.cluster.local", "--proxyLogLevel=warning"]);
    assert.deepEqual(a, {
      proxyType: "sidecar",
      domain: "shop.svc.cluster.local",
      meshConfig: "./etc/istio/config/mesh",
      serviceCluster: "istio-proxy",
      concurrency: 0n,
      flags: { proxyLogLevel: "warning" },
    });
  });
  it("takes --flag=value and --flag value, skips unknown flags with their values, reads the type", () => {
    const a = parseAgentArgs(
      ["/usr/local/bin/pilot-agent"],
      [
        "--unknown",
        "x",
        "-u",
        "y",
        "--other=z",
        "proxy",
        "--profiling",
        "router",
        "--concurrency=4",
        "--serviceCluster",
        "gw",
        "--meshConfig=/m",
      ],
    );
    assert.equal(a.proxyType, "router");
    assert.equal(a.concurrency, 4n);
    assert.equal(a.serviceCluster, "gw");
    assert.equal(a.meshConfig, "/m");
  });
  it("refuses what pilot-agent refuses", () => {
    assert.throws(() => parseAgentArgs(["/bin/sh"], ["-c", "x"]), /runs "\/bin\/sh", not pilot-agent/);
    assert.throws(() => parseAgentArgs([], ["wait"]), /runs "wait", not proxy/);
    assert.throws(() => parseAgentArgs([], ["proxy", "gateway"]), /Invalid proxy Type: gateway/);
    assert.throws(() => parseAgentArgs([], ["proxy", "--concurrency=two"]), BootstrapError);
    assert.throws(() => parseAgentArgs([], ["proxy", "--domain"]), /needs an argument/);
    assert.throws(() => parseAgentArgs([], ["proxy", "--help"]), /pilot-agent would only print its help/);
  });
  it("parses ints as strconv.ParseInt(s, 0, 64) and converts as int32()", () => {
    assert.equal(parseGoInt("0x10"), 16n);
    assert.equal(parseGoInt("010"), 8n);
    assert.equal(parseGoInt("1_000"), 1000n);
    assert.equal(parseGoInt("1__0"), undefined);
    assert.equal(parseGoInt("9223372036854775808"), undefined);
    assert.equal(toInt32(4294967298n), 2);
  });
});
