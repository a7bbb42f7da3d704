// The pilot-agent start of pods injected with the library (examples/curl.yaml and variations).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { isRecord } from "../../go/json.js";
import { readYaml } from "../../go/yaml/read.js";
import { defaultConfigFiles, injectYaml, loadInjectorConfig } from "../../index.js";
import type { Json } from "../../inject/pod.js";
import { splitYamlStream } from "../../kube/stream.js";
import { podOf } from "../../kube/workloads.js";
import { readMeshConfig } from "../../mesh/index.js";
import { proxyContainer } from "../pod-containers.js";
import { type BootstrapOptions, type PodBootstrap, podBootstrap } from "./pod.js";

const CURL = readFileSync(new URL("../../../examples/curl.yaml", import.meta.url), "utf8");

function options(meshConfigText = defaultConfigFiles().mesh, namespace = "default"): BootstrapOptions {
  return { meshConfigText, mesh: readMeshConfig(meshConfigText), namespace };
}

/** The curl Deployment, its pod template changed by `edit`, injected with the built-in config. */
function injectedCurl(edit: (deployment: Json) => void = () => {}): Json {
  const docs = splitYamlStream(CURL).map((d) => readYaml(d) as Json);
  const deployment = docs.find((d) => d.kind === "Deployment") as Json;
  edit(deployment);
  const out = injectYaml(loadInjectorConfig(), JSON.stringify(deployment));
  return readYaml(splitYamlStream(out)[0] as string) as Json;
}

function template(deployment: Json): Json {
  return (deployment.spec as Json).template as Json;
}

function annotate(annotations: Record<string, string>): (d: Json) => void {
  return (d) => {
    const meta = template(d).metadata as Json;
    meta.annotations = { ...(isRecord(meta.annotations) ? meta.annotations : {}), ...annotations };
  };
}

function bootstrap(obj: Json, opts = options()): PodBootstrap {
  const result = podBootstrap(obj, podOf(obj) as NonNullable<ReturnType<typeof podOf>>, opts);
  assert.ok(result, "no istio-proxy container");
  return result;
}

/** The istio-proxy container of an injected workload. */
function proxyOf(obj: Json): Json {
  return proxyContainer((podOf(obj) as { spec: Json }).spec) as Json;
}

describe("podBootstrap", () => {
  it("reads concurrency from proxy.istio.io/config, the identity and the domain", () => {
    const b = bootstrap(injectedCurl(annotate({ "proxy.istio.io/config": "{concurrency: 3}" })));
    assert.equal(b.concurrency, 3);
    assert.equal(b.proxyConfig.concurrency, 3);
    assert.equal(b.concurrencySource, "proxy config");
    assert.equal(b.identity.spiffeId, "spiffe://cluster.local/ns/default/sa/curl");
    assert.equal(b.domain, "default.svc.cluster.local");
    assert.equal(b.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.equal(b.statusPort, 15020);
    assert.equal(b.proxyType, "sidecar");
  });

  it("takes concurrency from the proxy's CPU limit when nothing sets it", () => {
    const b = bootstrap(injectedCurl(annotate({ "sidecar.istio.io/proxyCPULimit": "2500m" })));
    assert.equal(b.concurrency, 3);
    assert.equal(b.concurrencySource, "cpu limit");
  });

  it("notes a CPU limit left to the node", () => {
    const obj = injectedCurl();
    const resources = proxyOf(obj).resources as Json;
    delete resources.limits;
    const b = bootstrap(obj);
    assert.equal(b.concurrency, undefined);
    assert.match(b.notes.join("\n"), /ISTIO_CPU_LIMIT comes from resourceFieldRef limits\.cpu/);
  });

  it("lets the annotation win over PROXY_CONFIG, which wins over the defaults", () => {
    const obj = injectedCurl(
      annotate({ "proxy.istio.io/config": "{drainDuration: 30s, proxyMetadata: {B: annotation}}" }),
    );
    const env = proxyOf(obj).env as Json[];
    const entry = env.find((e) => e.name === "PROXY_CONFIG") as Json;
    entry.value = '{"drainDuration":"20s","terminationDrainDuration":"7s","proxyMetadata":{"A":"env","B":"env"}}';
    const b = bootstrap(obj);
    assert.equal(b.proxyConfig.drainDuration, "30s");
    assert.equal(b.proxyConfig.terminationDrainDuration, "7s");
    assert.deepEqual(b.proxyConfig.proxyMetadata, { A: "env", B: "annotation" });
    assert.deepEqual(b.sources, [
      "Istio defaults",
      "env PROXY_CONFIG",
      "annotation proxy.istio.io/config",
      "env ISTIO_CPU_LIMIT=2 (concurrency)",
    ]);
  });

  it("applies the discoveryAddress and status port annotations last", () => {
    const b = bootstrap(
      injectedCurl(
        annotate({
          "sidecar.istio.io/discoveryAddress": "istiod-canary.istio-system.svc:15012",
          "status.sidecar.istio.io/port": "15030",
        }),
      ),
    );
    assert.equal(b.discoveryAddress, "istiod-canary.istio-system.svc:15012");
    assert.equal(b.statusPort, 15030);
  });

  it("uses the object's namespace, else the given one, and the mesh trust domain", () => {
    const obj = injectedCurl((d) => {
      (d.metadata as Json).namespace = "shop";
    });
    const b = bootstrap(obj, options("trustDomain: example.org\n"));
    assert.equal(b.identity.spiffeId, "spiffe://example.org/ns/shop/sa/curl");
    assert.equal(b.domain, "shop.svc.cluster.local");
    const other = bootstrap(
      injectedCurl((d) => {
        delete (template(d).spec as Json).serviceAccountName;
      }),
      options(undefined, "team-a"),
    );
    assert.equal(other.identity.spiffeId, "spiffe://cluster.local/ns/team-a/sa/default");
    assert.equal(other.domain, "team-a.svc.cluster.local");
  });

  it("skips PROXY_CONFIG from valueFrom with a note", () => {
    const obj = injectedCurl(annotate({ "proxy.istio.io/config": "{concurrency: 5}" }));
    const env = proxyOf(obj).env as Json[];
    const entry = env.find((e) => e.name === "PROXY_CONFIG") as Json;
    delete entry.value;
    entry.valueFrom = { configMapKeyRef: { name: "proxy", key: "config" } };
    const b = bootstrap(obj);
    assert.match(b.notes.join("\n"), /env PROXY_CONFIG: configMapKeyRef proxy, read in the cluster; skipped/);
    assert.equal(b.concurrency, 5);
  });

  it("reads the mesh config file only where the container mounts it", () => {
    const mesh = "defaultConfig:\n  drainDuration: 11s\n";
    assert.equal(bootstrap(injectedCurl(), options(mesh)).proxyConfig.drainDuration, "45s");
    const obj = injectedCurl();
    const proxy = proxyOf(obj);
    (proxy.volumeMounts as Json[]).push({ name: "config-volume", mountPath: "/etc/istio/config" });
    ((podOf(obj) as { spec: Json }).spec.volumes as Json[]).push({
      name: "config-volume",
      configMap: { name: "istio" },
    });
    const b = bootstrap(obj, options(mesh));
    assert.equal(b.proxyConfig.drainDuration, "11s");
    assert.match(b.sources[1] ?? "", /mesh config file \/etc\/istio\/config\/mesh \(volume config-volume/);
  });

  it("does not see the annotations when the podinfo volume is not mounted", () => {
    const obj = injectedCurl(annotate({ "sidecar.istio.io/discoveryAddress": "istiod-canary.istio-system.svc:15012" }));
    assert.equal(bootstrap(obj).discoveryAddress, "istiod-canary.istio-system.svc:15012");
    const proxy = proxyOf(obj);
    proxy.volumeMounts = (proxy.volumeMounts as Json[]).filter((m) => m.mountPath !== "/etc/istio/pod");
    const b = bootstrap(obj);
    assert.equal(b.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.match(b.notes.join("\n"), /annotations are not mounted/);
  });

  it("gives undefined for a pod without istio-proxy", () => {
    const docs = splitYamlStream(CURL).map((d) => readYaml(d) as Json);
    const deployment = docs.find((d) => d.kind === "Deployment") as Json;
    assert.equal(
      podBootstrap(deployment, podOf(deployment) as NonNullable<ReturnType<typeof podOf>>, options()),
      undefined,
    );
  });
});
