import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EXAMPLES } from "./examples.js";
import { INITIAL_STATE, kubeInjectCommand, type PlaygroundState, runPlayground } from "./playground.js";
import { decodeState, encodeState } from "./share.js";

const curl = EXAMPLES.find((e) => e.id === "curl") ?? assert.fail("no curl example");
const state = (over: Partial<PlaygroundState> = {}): PlaygroundState => ({
  ...INITIAL_STATE,
  workload: curl.yaml,
  ...over,
});

describe("playground", () => {
  it("every example injects without error", () => {
    for (const ex of EXAMPLES) {
      const r = runPlayground(state({ workload: ex.yaml, injectorConfig: ex.config ?? "" }));
      assert.deepEqual(r.errors, [], ex.id);
      assert.equal(r.verdict, "injected", ex.id);
      assert.match(r.injected, /name: istio-proxy/, ex.id);
      // The custom template adds only istio-proxy; Istio's built-in one adds istio-init too.
      assert.match(
        r.diff,
        ex.config === undefined ? /^\+\s+name: istio-init/m : /^\+\s+image: docker\.io\/istio\/proxyv2/m,
        ex.id,
      );
    }
  });

  it("curl: every tab filled", () => {
    const r = runPlayground(state());
    assert.match(r.injected, /name: istio-init/);
    assert.match(r.why, /verdict: injected/);
    assert.match(r.traffic, /-A ISTIO_OUTPUT/);
    assert.match(r.proxy, /discoveryAddress: istiod\.istio-system\.svc:15012/);
    assert.match(r.bootstrap, /"id": "sidecar~10\.0\.0\.1~curl-7d4c9b-x2x7z\.default~default\.svc\.cluster\.local"/);
  });

  it("no namespace label: not injected, with the reason", () => {
    const r = runPlayground(state({ namespaceLabels: "" }));
    assert.equal(r.verdict, "not injected");
    assert.match(r.why, /verdict: not injected: no injection webhook is called/);
  });

  it("a revision: the webhook of that revision and its istiod", () => {
    const r = runPlayground(state({ revision: "canary", namespaceLabels: "istio.io/rev=canary" }));
    assert.equal(r.verdict, "injected");
    assert.match(r.injected, /istiod-canary\.istio-system\.svc/);
  });

  it("YAML errors name the document and line", () => {
    const r = runPlayground(state({ workload: `${curl.yaml}---\nkind: Pod\nmetadata: [x\n` }));
    assert.equal(r.errors.length, 1);
    assert.equal(r.errors[0]?.document, 2);
    // The unclosed flow sequence is reported where the text ends, below document 2's first line (21).
    assert.ok((r.errors[0]?.line ?? 0) >= 22, String(r.errors[0]?.line));
  });

  it("a broken pasted template is an inline error", () => {
    const r = runPlayground(state({ injectorConfig: "templates:\n  sidecar: '{{ .Values'\n" }));
    assert.equal(r.injected, "");
    assert.ok(r.errors.length > 0);
    assert.match(r.errors[0]?.message ?? "", /sidecar/);
  });

  it("the kube-inject command carries the settings", () => {
    const cmd = kubeInjectCommand(
      state({ revision: "canary", nativeSidecars: true, meshConfig: "defaultConfig: {}\n" }),
    );
    assert.match(cmd, /^cat > workload\.yaml <<'MESHINJECT_EOF'\napiVersion: apps\/v1\n/);
    assert.match(
      cmd,
      /\nmeshinject kube-inject -f workload\.yaml --meshConfigFile mesh-config\.yaml --revision canary --native-sidecars on\n$/,
    );
  });

  it("the share fragment round-trips the state", async () => {
    const s = state({ revision: "canary", nativeSidecars: true, namespaceLabels: "a=b" });
    const hash = await encodeState(s);
    assert.match(hash, /^#s=[A-Za-z0-9_-]+$/);
    assert.deepEqual(await decodeState(hash), s);
    assert.equal(await decodeState("#s=not-deflate"), undefined);
    assert.equal(await decodeState(""), undefined);
  });
});
