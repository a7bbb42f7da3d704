// IstioOperator files as kube-inject --operatorFileName reads them, with install examples of the
// kind Istio's documentation gives (profiles default, demo, minimal; a custom hub/tag; a revision).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readYaml } from "../go/yaml/read.js";
import { ConfigError } from "./config.js";
import { defaultConfigFiles } from "./defaults.js";
import { applyIstioOperator } from "./istio-operator.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests read values freely
type Obj = Record<string, any>;

const builtIn = defaultConfigFiles("");
function apply(spec: string, revision = "") {
  const out = applyIstioOperator(
    `apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\n${spec}`,
    "iop.yaml",
    defaultConfigFiles(revision),
  );
  return { ...out, valuesObj: JSON.parse(out.values) as Obj, meshObj: readYaml(out.mesh) as Obj };
}

describe("applyIstioOperator", () => {
  it("the default profile is the built-in default", () => {
    for (const spec of ["spec: {}\n", "spec:\n  profile: default\n", "metadata: {name: x}\n"]) {
      const out = apply(spec);
      assert.deepEqual(out.valuesObj, JSON.parse(builtIn.values));
      assert.deepEqual(out.meshObj, readYaml(builtIn.mesh));
      assert.equal(out.revision, "");
    }
  });

  it("demo: smaller proxy requests and access logs to stdout; minimal changes nothing injection sees", () => {
    const demo = apply("spec:\n  profile: demo\n");
    assert.deepEqual(demo.valuesObj.global.proxy.resources.requests, { cpu: "10m", memory: "40Mi" });
    assert.equal(
      demo.valuesObj.global.proxy.resources.limits.cpu,
      JSON.parse(builtIn.values).global.proxy.resources.limits.cpu,
    );
    assert.equal(demo.meshObj.accessLogFile, "/dev/stdout");
    assert.equal(demo.meshObj.defaultConfig.discoveryAddress, "istiod.istio-system.svc:15012");
    const minimal = apply("spec:\n  profile: minimal\n");
    assert.deepEqual(minimal.valuesObj, JSON.parse(builtIn.values));
  });

  it("hub, tag, revision and values merge as the installer merges them (maps by key, lists replaced)", () => {
    const out = apply(
      `spec:
  hub: registry.example.com/istio
  tag: 1.28.1
  revision: canary
  components:
    cni:
      enabled: true
  values:
    global:
      imagePullSecrets: [regcred]
      proxy:
        resources:
          limits: {memory: 512Mi}
  meshConfig:
    defaultConfig:
      holdApplicationUntilProxyStarts: true
`,
      "canary",
    );
    assert.equal(out.revision, "canary");
    assert.equal(out.valuesObj.global.hub, "registry.example.com/istio");
    assert.equal(out.valuesObj.global.tag, "1.28.1");
    assert.equal(out.valuesObj.revision, "canary");
    assert.equal(out.valuesObj.pilot.cni.enabled, true);
    assert.deepEqual(out.valuesObj.global.imagePullSecrets, ["regcred"]);
    assert.equal(out.valuesObj.global.proxy.resources.limits.memory, "512Mi");
    assert.equal(
      out.valuesObj.global.proxy.resources.limits.cpu,
      JSON.parse(builtIn.values).global.proxy.resources.limits.cpu,
    );
    assert.deepEqual(out.meshObj.defaultConfig, {
      discoveryAddress: "istiod-canary.istio-system.svc:15012",
      holdApplicationUntilProxyStarts: true,
    });
  });

  it("a numeric tag is the text it was written as", () => {
    assert.equal(apply("spec:\n  tag: 1.28\n").valuesObj.global.tag, "1.28");
  });

  it("refuses what is not an IstioOperator, an unknown profile and misshapen fields, naming the file and field", () => {
    const bad = (text: string, re: RegExp) =>
      assert.throws(
        () => applyIstioOperator(text, "iop.yaml", builtIn),
        (e: Error) => e instanceof ConfigError && re.test(e.message),
      );
    bad("kind: Deployment\n", /^iop\.yaml: not an IstioOperator \(kind Deployment\)/);
    bad(
      "kind: IstioOperator\nspec:\n  profile: tiny\n",
      /^iop\.yaml: spec\.profile "tiny" is not one of default, minimal/,
    );
    bad("kind: IstioOperator\nspec:\n  values: [1]\n", /^iop\.yaml: spec\.values must be a map$/);
    bad("kind: IstioOperator\nspec:\n  hub: {a: 1}\n", /^iop\.yaml: spec\.hub must be a string$/);
    bad("kind: IstioOperator\nspec: [\n", /^iop\.yaml: invalid YAML/);
  });
});
