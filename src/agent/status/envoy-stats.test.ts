import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { judgeConfigStatus, judgeEnvoyReadiness, parseUpdateStats, readStats } from "./envoy-stats.js";

describe("Envoy readiness judgement", () => {
  it("reads the first line starting with each name; missing stats are 0", () => {
    const v = readStats("a.b_x: 4\na.b: 2\na.b: 3\n", ["a.b", "c"]);
    assert.equal(v.get("a.b"), 4, "prefix match, as pilot-agent");
    assert.equal(v.get("c"), 0);
    assert.throws(() => readStats("a.b: x\n", ["a.b"]), /failed parsing Envoy stat a\.b/);
    assert.throws(() => readStats("a.b: 1: 2\n", ["a.b"]), /missing separator/);
  });

  it("explains missing, partial and rejected configuration", () => {
    assert.equal(
      judgeConfigStatus(
        parseUpdateStats("cluster_manager.cds.update_success: 1\nlistener_manager.lds.update_success: 1"),
      ),
      undefined,
    );
    assert.equal(
      judgeConfigStatus(parseUpdateStats("")),
      "config not received from XDS server (is Istiod running?): cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected",
    );
    assert.match(
      judgeConfigStatus(
        parseUpdateStats("cluster_manager.cds.update_rejected: 2\nlistener_manager.lds.update_success: 1"),
      ) ?? "",
      /^config received from XDS server, but was rejected: cds updates: 0 successful, 2 rejected/,
    );
    assert.match(
      judgeConfigStatus(parseUpdateStats("listener_manager.lds.update_success: 1")) ?? "",
      /^config not fully received/,
    );
  });

  it("wants server.state LIVE and the workers started", () => {
    assert.equal(judgeEnvoyReadiness("server.state: 0\nlistener_manager.workers_started: 1\n"), undefined);
    assert.equal(
      judgeEnvoyReadiness("server.state: 0\nlistener_manager.workers_started: 0\n"),
      "workers have not yet started",
    );
    assert.equal(
      judgeEnvoyReadiness("server.state: 2\nlistener_manager.workers_started: 1\n"),
      "server is not live, current state is: PRE_INITIALIZING",
    );
    assert.match(judgeEnvoyReadiness("listener_manager.workers_started: 1") ?? "", /server\.state is not yet updated/);
  });
});
