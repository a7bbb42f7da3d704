import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../inject/pod.js";
import {
  dropSidecarUserMatchingApp,
  IdBlockError,
  type NamespaceLike,
  parseIdBlock,
  proxyIds,
  SUPPLEMENTAL_GROUPS_ANNOTATION,
  sidecarUserMatchesApp,
  supplementalGroups,
  UID_RANGE_ANNOTATION,
} from "./openshift.js";

function ns(annotations: Record<string, string>): NamespaceLike {
  return { metadata: { name: "test-ns", annotations } };
}

describe("parseIdBlock", () => {
  it("reads start/size as an inclusive range", () => {
    assert.deepEqual(parseIdBlock("1000620000/10000"), { start: 1000620000n, end: 1000629999n });
    assert.deepEqual(parseIdBlock("5/1"), { start: 5n, end: 5n });
  });
  it("reads start-end", () => {
    assert.deepEqual(parseIdBlock("1000-2000"), { start: 1000n, end: 2000n });
  });
  it("wraps start+size-1 in uint32 like OpenShift's library", () => {
    assert.deepEqual(parseIdBlock("0/0"), { start: 0n, end: 4294967295n });
    assert.deepEqual(parseIdBlock("4294967295/2"), { start: 4294967295n, end: 0n });
  });
  it("skips spaces before numbers and ignores trailing text, as Sscanf does", () => {
    assert.deepEqual(parseIdBlock(" 10/ 5"), { start: 10n, end: 14n });
    assert.deepEqual(parseIdBlock("10/5xyz"), { start: 10n, end: 14n });
  });
  it("refuses malformed blocks", () => {
    for (const bad of ["", "abc", "10", "10 /5", "10/", "-5/3", "+5/3", "10/x", "4294967296/1", "10:20"]) {
      assert.throws(() => parseIdBlock(bad), IdBlockError, bad);
    }
  });
});

describe("proxyIds", () => {
  it("is 1337/1337 without a namespace or annotations", () => {
    assert.deepEqual(proxyIds(undefined), { uid: 1337n, gid: 1337n });
    assert.deepEqual(proxyIds({}), { uid: 1337n, gid: 1337n });
    assert.deepEqual(proxyIds(ns({})), { uid: 1337n, gid: 1337n });
  });
  it("takes the ends of the uid range and of the first supplemental group block", () => {
    const n = ns({ [UID_RANGE_ANNOTATION]: "1000620000/10000", [SUPPLEMENTAL_GROUPS_ANNOTATION]: "5000/10,7000/10" });
    assert.deepEqual(proxyIds(n), { uid: 1000629999n, gid: 5009n });
  });
  it("falls back to the uid range for the gid when supplemental groups are absent", () => {
    assert.deepEqual(proxyIds(ns({ [UID_RANGE_ANNOTATION]: "100/10" })), { uid: 109n, gid: 109n });
  });
  it("does not fall back when the supplemental groups annotation is empty or bad", () => {
    const range = { [UID_RANGE_ANNOTATION]: "100/10" };
    assert.deepEqual(proxyIds(ns({ ...range, [SUPPLEMENTAL_GROUPS_ANNOTATION]: "" })), { uid: 109n, gid: 1337n });
    assert.deepEqual(proxyIds(ns({ ...range, [SUPPLEMENTAL_GROUPS_ANNOTATION]: "5/1,x" })), { uid: 109n, gid: 1337n });
  });
  it("keeps 1337 for a bad uid range", () => {
    assert.deepEqual(proxyIds(ns({ [UID_RANGE_ANNOTATION]: "nope", [SUPPLEMENTAL_GROUPS_ANNOTATION]: "7/2" })), {
      uid: 1337n,
      gid: 8n,
    });
  });
  it("lists every supplemental group block", () => {
    assert.deepEqual(supplementalGroups(ns({ [SUPPLEMENTAL_GROUPS_ANNOTATION]: "1/2, 10-20" })), [
      { start: 1n, end: 2n },
      { start: 10n, end: 20n },
    ]);
  });
});

function pod(containers: unknown[], initContainers: unknown[] = []): Pod {
  return { metadata: {}, spec: { containers, initContainers } } as Pod;
}

function user(name: string, runAsUser?: number, extra: Record<string, unknown> = {}) {
  return { name, securityContext: { ...(runAsUser === undefined ? {} : { runAsUser }), ...extra } };
}

describe("sidecarUserMatchesApp / dropSidecarUserMatchingApp", () => {
  it("drops runAsUser and runAsGroup of an istio-proxy running as the app", () => {
    const p = pod([user("app", 1000620000), user("istio-proxy", 1000620000, { runAsGroup: 5, privileged: false })]);
    assert.equal(dropSidecarUserMatchingApp(p), true);
    assert.deepEqual(p.spec.containers?.[1], { name: "istio-proxy", securityContext: { privileged: false } });
    assert.deepEqual(p.spec.containers?.[0], user("app", 1000620000));
  });
  it("keeps a different proxy user", () => {
    const p = pod([user("app", 1000), user("istio-proxy", 2000, { runAsGroup: 5 })]);
    assert.equal(dropSidecarUserMatchingApp(p), false);
    assert.deepEqual(p.spec.containers?.[1], user("istio-proxy", 2000, { runAsGroup: 5 }));
  });
  it("counts a user set nowhere as 0 on both sides", () => {
    assert.equal(sidecarUserMatchesApp(pod([{ name: "app" }, user("istio-proxy")])), true);
    assert.equal(sidecarUserMatchesApp(pod([{ name: "app" }, user("istio-proxy", 0)])), true);
    assert.equal(sidecarUserMatchesApp(pod([user("app", 0), user("istio-proxy", 7)])), false);
  });
  it("takes the last app container that sets a user, init containers after containers", () => {
    assert.equal(sidecarUserMatchesApp(pod([user("a", 5), { name: "b" }, user("istio-proxy", 5)])), true);
    assert.equal(sidecarUserMatchesApp(pod([user("a", 5), user("istio-proxy", 5)], [user("init", 9)])), false);
    assert.equal(sidecarUserMatchesApp(pod([user("a", 5)], [user("istio-proxy", 9), user("init", 9)])), true);
  });
  it("ignores istio-init and istio-validation as app containers", () => {
    const p = pod([user("a", 5), user("istio-proxy", 5)], [user("istio-init", 0), user("istio-validation", 1)]);
    assert.equal(sidecarUserMatchesApp(p), true);
  });
  it("does nothing without a proxy container or without its securityContext", () => {
    const noProxy = pod([user("a")]);
    assert.equal(dropSidecarUserMatchingApp(noProxy), false);
    const bare = pod([{ name: "a" }, { name: "istio-proxy" }]);
    assert.equal(dropSidecarUserMatchingApp(bare), false);
    assert.deepEqual(bare.spec.containers?.[1], { name: "istio-proxy" });
  });
  it("finds a proxy declared as an init container", () => {
    const p = pod([user("a", 3)], [user("istio-proxy", 3, { runAsGroup: 3 })]);
    assert.equal(dropSidecarUserMatchingApp(p), true);
    assert.deepEqual(p.spec.initContainers?.[0], { name: "istio-proxy", securityContext: {} });
  });
});
