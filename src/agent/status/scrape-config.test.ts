import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { istioReservedPortReason, normalizeScrapeConfig, parseScrapeTargets } from "./scrape-config.js";

describe("normalizeScrapeConfig", () => {
  it("is off when unset or scrape is false", () => {
    assert.equal(normalizeScrapeConfig(undefined, 15020), undefined);
    assert.equal(normalizeScrapeConfig('{"scrape":"false","port":"1"}', 15020), undefined);
  });

  it("fills the legacy defaults and synthesises one target", () => {
    assert.deepEqual(normalizeScrapeConfig('{"scrape":"true"}', 15020), {
      scrape: "true",
      port: "80",
      path: "/metrics",
      targets: [{ port: "80", path: "/metrics" }],
    });
    assert.throws(() => normalizeScrapeConfig('{"port":"15020"}', 15020), /recursive loop/);
  });

  it("validates each target numerically and copies the first into the legacy fields", () => {
    const c = normalizeScrapeConfig('{"targets":[{"port":"9100"},{"port":"8080","path":"/m"}]}', 15020);
    assert.deepEqual(c?.targets, [
      { port: "9100", path: "/metrics" },
      { port: "8080", path: "/m" },
    ]);
    assert.equal(c?.port, "9100");
    assert.equal(normalizeScrapeConfig('{"targets":[{"port":"+9100"}]}', 15020)?.targets[0]?.port, "+9100");
    for (const bad of ["015020", "015000", "abc", "0", "65536", "-1", "", "99999999999999999", "9223372036854775808"]) {
      assert.throws(() => normalizeScrapeConfig(`{"targets":[{"port":"${bad}"}]}`, 15020), Error, bad);
    }
    assert.throws(
      () => normalizeScrapeConfig('{"port":8080}', 15020),
      /failed to unmarshal ISTIO_PROMETHEUS_ANNOTATIONS/,
    );
  });
});

describe("parseScrapeTargets and istioReservedPortReason", () => {
  it("parses port[:path] lists", () => {
    assert.deepEqual(parseScrapeTargets(" 8080:/a?x=1 , 9100 ,"), [
      { port: "8080", path: "/a?x=1" },
      { port: "9100", path: "/metrics" },
    ]);
    assert.equal(parseScrapeTargets(",,"), undefined);
    assert.throws(() => parseScrapeTargets("8080,:/bad"), /empty port/);
  });

  it("knows Istio's ports by their text", () => {
    assert.notEqual(istioReservedPortReason("15090"), "");
    assert.equal(istioReservedPortReason("015090"), "");
    assert.equal(istioReservedPortReason("15091"), "");
  });
});
