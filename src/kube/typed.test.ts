import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { canonicalQuantity } from "../go/quantity.js";
import { readYaml } from "../go/yaml/read.js";
import { writeYaml } from "../go/yaml/write.js";
import { splitYamlStream } from "./stream.js";
import { marshalTyped, TypedDecodeError } from "./typed.js";
import { podOf, withPod, workloadKind } from "./workloads.js";

const CORPUS = new URL("../../../shared/conformance/istio-inject/", import.meta.url).pathname;

test("canonical quantities", () => {
  const cases: [string, string][] = [
    ["2000m", "2"],
    ["100m", "100m"],
    ["1024Mi", "1Gi"],
    ["128Mi", "128Mi"],
    ["1", "1"],
    ["0", "0"],
    ["0.5", "500m"],
    ["1000", "1k"],
    ["1.5Gi", "1536Mi"],
    ["512", "512"],
    ["1e3", "1e3"],
    ["1G", "1G"],
    ["0.1m", "100u"],
    ["-1", "-1"],
    ["1Ki", "1Ki"],
    ["1000Ki", "1000Ki"],
  ];
  for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, input);
  assert.throws(() => canonicalQuantity("abc"));
});

test("marshalTyped drops unknown fields and empty omitempty fields, keeps Go's non-omitempty ones", () => {
  const out = marshalTyped(
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "x", bogus: 1, labels: {} },
      spec: {
        template: {
          spec: {
            containers: [{ name: "c", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "2000m" } } }],
            hostNetwork: false,
            securityContext: { runAsUser: 0 },
          },
        },
      },
    },
    "Deployment",
  );
  assert.deepEqual(out, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "x" },
    spec: {
      selector: null,
      template: {
        metadata: {},
        spec: {
          containers: [{ name: "c", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "2" } } }],
          securityContext: { runAsUser: 0 },
        },
      },
      strategy: {},
    },
    status: {},
  });
  assert.deepEqual(marshalTyped({}, "PodSpec"), { containers: null });
  assert.deepEqual(marshalTyped({ resource: "limits.cpu" }, "ResourceFieldSelector"), {
    resource: "limits.cpu",
    divisor: "0",
  });
});

test("marshalTyped: Go key order, coercions and type errors", () => {
  const c = marshalTyped({ image: "i", name: "n", env: [{ value: 8080, name: "P" }] }, "Container");
  assert.equal(JSON.stringify(c), '{"name":"n","image":"i","env":[{"name":"P","value":"8080"}],"resources":{}}');
  assert.deepEqual(marshalTyped({ ContainerPort: 5 }, "ContainerPort"), { containerPort: 5 });
  assert.deepEqual(marshalTyped({ httpGet: { port: "http" } }, "Probe"), { httpGet: { port: "http" } });
  assert.throws(() => marshalTyped({ containerPort: "80" }, "ContainerPort"), TypedDecodeError);
  assert.throws(() => marshalTyped({ containers: {} }, "PodSpec"), /cannot unmarshal object/);
});

function typedDocument(o: unknown): unknown {
  const kind = workloadKind(o);
  if (kind === undefined) return o;
  const t = marshalTyped(o, kind.type) as Record<string, unknown>;
  if (kind.kind === "List") t.items = ((o as { items?: unknown[] }).items ?? []).map(typedDocument);
  return t;
}

test("golden want.yaml documents are fixed points of marshalTyped", () => {
  if (!existsSync(CORPUS)) return;
  let n = 0;
  for (const name of readdirSync(CORPUS)) {
    if (!existsSync(`${CORPUS}${name}/want.yaml`)) continue;
    const c = JSON.parse(readFileSync(`${CORPUS}${name}/case.json`, "utf8")) as { kubeInject: boolean };
    if (!c.kubeInject) continue; // webhook-only goldens were not written by kube-inject
    for (const doc of splitYamlStream(readFileSync(`${CORPUS}${name}/want.yaml`, "utf8"))) {
      const o = readYaml(doc);
      if (workloadKind(o) === undefined) continue;
      assert.deepEqual(typedDocument(o), o, name);
      n++;
    }
  }
  assert.ok(n > 80);
});

test("golden inputs print like the goldens outside the pod", () => {
  if (!existsSync(CORPUS)) return;
  let n = 0;
  for (const name of readdirSync(CORPUS)) {
    if (!existsSync(`${CORPUS}${name}/want.yaml`)) continue;
    const c = JSON.parse(readFileSync(`${CORPUS}${name}/case.json`, "utf8")) as { kubeInject: boolean };
    if (!c.kubeInject) continue;
    const inputs = splitYamlStream(readFileSync(`${CORPUS}${name}/input.yaml`, "utf8"));
    const wants = splitYamlStream(readFileSync(`${CORPUS}${name}/want.yaml`, "utf8"));
    assert.equal(inputs.length, wants.length, name);
    inputs.forEach((input, i) => {
      const want = wants[i] as string;
      const o = readYaml(input);
      if (workloadKind(o) === undefined) {
        assert.equal(input, want, name);
        return;
      }
      const w = readYaml(want);
      const withGoldenPods = (doc: unknown, golden: unknown): unknown => {
        const kind = workloadKind(doc);
        if (kind === undefined) return doc;
        if (kind.kind === "List") {
          const t = marshalTyped(doc, "List") as Record<string, unknown>;
          const items = (doc as { items?: unknown[] }).items ?? [];
          t.items = items.map((it, j) => withGoldenPods(it, (golden as { items: unknown[] }).items[j]));
          return t;
        }
        const pod = podOf(golden);
        assert.ok(pod);
        return withPod(marshalTyped(doc, kind.type), pod);
      };
      assert.equal(writeYaml(withGoldenPods(o, w)), want, name);
      n++;
    });
  }
  assert.ok(n > 80);
});
