// The library API at its boundary: options checked, one error type per failure, revisions, ConfigMaps.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { readYaml } from "./go/yaml/read.js";
import {
  ConfigError,
  DocumentError,
  defaultConfigFiles,
  InjectionError,
  inject,
  injectYaml,
  loadInjectorConfig,
  UninjectError,
  uninject,
  uninjectYaml,
} from "./index.js";

const injector = loadInjectorConfig();

function deployment(annotations: Record<string, unknown> = {}, labels: Record<string, unknown> = {}): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: {
          labels: { app: "web", ...labels } as Record<string, string>,
          annotations: annotations as Record<string, string>,
        },
        spec: { containers: [{ name: "web", image: "nginx" }] },
      },
    },
  };
}

function env(d: Deployment, name: string): string | undefined {
  const proxy = d.spec?.template.spec?.containers.find((c) => c.name === "istio-proxy");
  return proxy?.env?.find((e) => e.name === name)?.value;
}

describe("loadInjectorConfig", () => {
  it("with a revision, defaults to that revision's istiod and injects for it", () => {
    const canary = loadInjectorConfig({ revision: "canary" });
    assert.equal(canary.revision, "canary");
    const out = inject(canary, deployment());
    assert.equal(env(out, "CA_ADDR"), "istiod-canary.istio-system.svc:15012");
    assert.equal(out.spec?.template.metadata?.annotations?.["istio.io/rev"], "canary");
    assert.equal(env(inject(injector, deployment()), "CA_ADDR"), "istiod.istio-system.svc:15012");
  });

  it("takes values from a whole istio-sidecar-injector ConfigMap given as config, as istioctl does", () => {
    const base = JSON.parse(JSON.stringify(injector.settings.values.json)) as { global: { tag: string } };
    base.global.tag = "9.9.9";
    const indent = (text: string) => text.replace(/\n(?=.)/g, "\n    ");
    const { config } = defaultConfigFiles();
    const configMap = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio-sidecar-injector\ndata:\n  config: |\n    ${indent(config)}\n  values: |\n    ${JSON.stringify(base)}\n`;
    const out = inject(loadInjectorConfig({ config: configMap }), deployment());
    const proxy = out.spec?.template.spec?.containers.find((c) => c.name === "istio-proxy");
    assert.match(String(proxy?.image), /:9\.9\.9$/);
  });

  it("lists mesh config fields MeshConfig does not have as warnings, and loads", () => {
    // Always a list, as the README says (not undefined when there is nothing to say).
    assert.deepEqual(loadInjectorConfig().warnings, []);
    const typo = loadInjectorConfig({ mesh: "trustDomian: example.org\n" });
    assert.deepEqual(typo.warnings, ["mesh: unknown field trustDomian (ignored, as Istio ignores it: a typo?)"]);
    assert.equal(typo.meshConfig.trustDomain, "cluster.local");
  });

  it("refuses an empty config or values, saying it is empty", () => {
    for (const empty of ["", "\n", "# nothing here\n"]) {
      assert.throws(
        () => loadInjectorConfig({ config: empty }),
        (e: unknown) => {
          return e instanceof ConfigError && e.message === "config is empty";
        },
      );
      assert.throws(
        () => loadInjectorConfig({ values: empty }),
        (e: unknown) => {
          return e instanceof ConfigError && e.message === "values is empty";
        },
      );
    }
    const emptyKey = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio-sidecar-injector}\ndata: {config: ''}\n";
    assert.throws(() => loadInjectorConfig({ config: emptyKey }), /^ConfigError: config is empty$/);
  });

  it("refuses unknown options and wrong types with a TypeError naming them", () => {
    assert.throws(() => loadInjectorConfig({ revison: "x" } as never), /loadInjectorConfig: unknown option "revison"/);
    assert.throws(() => loadInjectorConfig({ config: Buffer.from("x") } as never), /option config must be a string/);
  });
});

describe("inject", () => {
  it("reports a bad annotation as one InjectionError line naming the object", () => {
    assert.throws(
      () => inject(injector, deployment({ "sidecar.istio.io/proxyCPU": "lots" })),
      (e: unknown) => {
        assert.ok(e instanceof InjectionError);
        assert.match(e.message, /^Deployment "web": .*proxyCPU/);
        assert.doesNotMatch(e.message, /\n|error occurred/);
        return true;
      },
    );
  });

  it("reads a boolean opt-out label as Kubernetes does", () => {
    const out = inject(injector, deployment({}, { "sidecar.istio.io/inject": false }));
    assert.equal(out.spec?.template.spec?.containers.length, 1);
  });

  it("refuses what is not one plain Kubernetes object, pointing strings to injectYaml", () => {
    assert.throws(() => inject(injector, "kind: Pod" as never), /injectYaml/);
    assert.throws(() => inject(injector, [deployment()] as never), /an array/);
    assert.throws(() => inject(injector, { ...deployment(), x: () => 1 } as never), TypeError);
    assert.throws(() => inject(injector, deployment(), { revison: "x" } as never), /unknown option "revison"/);
    assert.throws(() => inject(injector, deployment(), { nativeSidecars: "yes" } as never), /must be a boolean/);
    assert.throws(() => inject({} as never, deployment()), /injector from loadInjectorConfig/);
    // Inherited names are not options; a Map, a Date or a cycle is not Kubernetes data.
    assert.throws(() => inject(injector, deployment(), { constructor: undefined } as never), /unknown option/);
    const withMap = deployment() as unknown as { metadata: Record<string, unknown> };
    withMap.metadata.labels = new Map([["a", "b"]]);
    assert.throws(() => inject(injector, withMap), /manifest\.metadata\.labels \(a Map\) is not/);
    const withDate = deployment() as unknown as { metadata: Record<string, unknown> };
    withDate.metadata.creationTimestamp = new Date(0);
    assert.throws(() => inject(injector, withDate), /creationTimestamp \(a Date\)/);
    const cyclic = deployment() as unknown as { metadata: Record<string, unknown> };
    cyclic.metadata.self = cyclic;
    assert.throws(() => inject(injector, cyclic), /metadata\.self \(a reference back/);
  });

  it("leaves configuration errors as ConfigError and YAML errors as DocumentError", () => {
    assert.throws(() => loadInjectorConfig({ mesh: "defaultConfig: [" }), ConfigError);
    assert.throws(() => injectYaml(injector, "kind: Pod\nmetadata: [\n"), DocumentError);
  });
});

describe("uninject", () => {
  it("gives back what was injected, and agrees with uninjectYaml", () => {
    const back = uninject(injector, inject(injector, deployment({ "prometheus.io/scrape": "true" })));
    const pod = back.spec?.template;
    assert.deepEqual(pod?.metadata, { labels: { app: "web" }, annotations: { "prometheus.io/scrape": "true" } });
    assert.deepEqual(pod?.spec?.containers, [{ name: "web", image: "nginx" }]);
    assert.equal(pod?.spec?.initContainers, undefined);
    assert.equal(pod?.spec?.volumes, undefined);
    const yaml = uninjectYaml(injector, injectYaml(injector, JSON.stringify(deployment())));
    assert.deepEqual(readYaml(yaml.split("---\n")[0] as string), uninject(injector, inject(injector, deployment())));
    const plain = deployment();
    assert.deepEqual(uninject(injector, plain), plain);
  });

  it("checks its arguments as inject does, and refuses what it cannot undo with UninjectError", () => {
    assert.throws(() => uninject(injector, "kind: Pod" as never), /uninjectYaml/);
    assert.throws(
      () => uninject(injector, deployment(), { revison: "x" } as never),
      /uninject: unknown option "revison"/,
    );
    const broken = inject(injector, deployment());
    (broken.spec?.template.metadata?.annotations as Record<string, string>)["sidecar.istio.io/status"] = "[";
    assert.throws(() => uninject(injector, broken), UninjectError);
  });
});
