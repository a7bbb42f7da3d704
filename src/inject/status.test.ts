import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stripPreviousInjection } from "./overrides.js";
import { decodeInjectionStatus, type Pod, parseInjectionStatus } from "./pod.js";

const withStatus = (status: string): Pod =>
  ({
    metadata: { annotations: { "sidecar.istio.io/status": status, "prometheus.io/port": "15020" } },
    spec: { containers: [{ name: "app" }, { name: "istio-proxy" }] },
  }) as unknown as Pod;

// Istio pkg/kube/inject/webhook_test.go TestParseStatus: its table (Istio's parseStatus gives empty,
// non-nil lists for an absent or null key, nil ones for text that is not JSON; both read as "none").
describe("parseInjectionStatus: Istio's TestParseStatus table", () => {
  const rows: Array<[string, string, string[], string[]]> = [
    [
      "Regular Containers only",
      '{"containers":["istio-proxy", "random-container"],"volumes":["workload-socket","istio-token","istiod-ca-cert"]}',
      ["istio-proxy", "random-container"],
      [],
    ],
    [
      "Init Containers only",
      '{"initContainers":["istio-init", "istio-validation"],"volumes":["workload-socket","istio-token","istiod-ca-cert"]}',
      [],
      ["istio-init", "istio-validation"],
    ],
    [
      "All Containers",
      '{"containers":["istio-proxy", "random-container"],"initContainers":["istio-init", "istio-validation"],' +
        '"volumes":["workload-socket","istio-token","istiod-ca-cert"]}',
      ["istio-proxy", "random-container"],
      ["istio-init", "istio-validation"],
    ],
    [
      "Containers is null",
      '{"containers":null,"initContainers":["istio-init", "istio-validation"],"volumes":["workload-socket","istio-token","istiod-ca-cert"]}',
      [],
      ["istio-init", "istio-validation"],
    ],
    ["Empty String", "", [], []],
  ];
  for (const [name, status, containers, initContainers] of rows) {
    it(name, () => {
      const got = parseInjectionStatus(withStatus(status));
      assert.deepEqual(got?.containers ?? [], containers);
      assert.deepEqual(got?.initContainers ?? [], initContainers);
    });
  }
});

// Istio pkg/kube/inject/inject.go stripPod / injectionStatus: a status that json.Unmarshal cannot
// decode into SidecarInjectionStatus leaves the pod as it is (nothing removed, annotations kept).
describe("stripPreviousInjection", () => {
  it("strips by a decodable status: the listed containers, the agent's scrape port, the status", () => {
    const stripped = stripPreviousInjection(withStatus('{"containers":["istio-proxy"]}'), 15020);
    assert.deepEqual(
      stripped.spec.containers?.map((c) => c.name),
      ["app"],
    );
    assert.deepEqual(stripped.metadata.annotations, {});
  });
  for (const status of ["not json", "[]", '"x"', '{"containers":"istio-proxy"}', '{"revision":1}']) {
    it(`leaves the pod as it is for the status ${status}`, () => {
      const pod = withStatus(status);
      assert.equal(stripPreviousInjection(pod, 15020), pod);
      assert.equal(decodeInjectionStatus(pod), undefined);
    });
  }
  it("decodes null as an empty status, and keys ignoring case", () => {
    assert.deepEqual(decodeInjectionStatus(withStatus("null"))?.containers, null);
    assert.deepEqual(decodeInjectionStatus(withStatus('{"Containers":["a"]}'))?.containers, ["a"]);
  });
});
