import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import fastJsonPatchModule, { type Operation } from "fast-json-patch";
import { defaultConfigFiles } from "../inject/defaults.js";
import { loadInjector } from "../inject/injector.js";
import { applyPatch } from "../kube/json-patch.js";
import { marshalTyped } from "../kube/typed.js";
import { nativeSidecarsEnabled, potentialPodName, reviewBody, type WebhookState } from "./admission.js";

const fastJsonPatch = fastJsonPatchModule.applyPatch;

/**
 * `ops` applied by fast-json-patch (an RFC 6902 implementation we did not write), which must give
 * what our applyPatch gives: the tests read the injected pod from the independent result.
 */
function applied(received: unknown, ops: unknown[]): unknown {
  const theirs = fastJsonPatch(structuredClone(received), ops as Operation[], true, false).newDocument;
  assert.deepEqual(applyPatch(structuredClone(received), ops), theirs, "fast-json-patch and applyPatch agree");
  return theirs;
}

const state: WebhookState = { injector: loadInjector(defaultConfigFiles()), revision: "", nativeSidecars: "off" };

type Json = Record<string, unknown>;

function pod(extra: { metadata?: Json; spec?: Json } = {}): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", labels: { app: "web" }, ...extra.metadata },
    spec: { containers: [{ name: "app", image: "nginx", ports: [{ containerPort: 80 }] }], ...extra.spec },
  };
}

function admissionReview(object: unknown, apiVersion = "admission.k8s.io/v1", request: Json = {}): Json {
  return {
    apiVersion,
    kind: "AdmissionReview",
    request: {
      uid: "0df28fbd-5f5f-11e8-bc74-36e6bb280816",
      kind: { group: "", version: "v1", kind: "Pod" },
      namespace: "default",
      operation: "CREATE",
      object,
      ...request,
    },
  };
}

const responseOf = (r: { response: Json }) => r.response.response as Json;
const patchOf = (r: { response: Json }): unknown[] =>
  JSON.parse(Buffer.from(String(responseOf(r).patch), "base64").toString("utf8"));

describe("review", () => {
  it("injects a pod and answers a JSONPatch that turns the received pod into the injected one", () => {
    const object = pod();
    const result = reviewBody(admissionReview(object), "/inject", state);
    assert.deepEqual(result.outcome, { kind: "injected" });
    assert.equal(result.pod, "default/web");
    assert.equal(result.response.apiVersion, "admission.k8s.io/v1");
    assert.equal(result.response.kind, "AdmissionReview");
    const response = responseOf(result);
    assert.equal(response.uid, "0df28fbd-5f5f-11e8-bc74-36e6bb280816");
    assert.equal(response.allowed, true);
    assert.equal(response.patchType, "JSONPatch");
    const received = marshalTyped(object, "Pod");
    const injected = applied(received, patchOf(result)) as {
      metadata: { annotations: Record<string, string> };
      spec: { containers: Array<{ name: string }>; initContainers: Array<{ name: string }> };
    };
    assert.deepEqual(
      injected.spec.containers.map((c) => c.name),
      ["app", "istio-proxy"],
    );
    assert.deepEqual(
      injected.spec.initContainers.map((c) => c.name),
      ["istio-init"],
    );
    assert.ok(injected.metadata.annotations["sidecar.istio.io/status"]);
  });

  it("echoes v1beta1", () => {
    const result = reviewBody(admissionReview(pod(), "admission.k8s.io/v1beta1"), "/inject", state);
    assert.equal(result.response.apiVersion, "admission.k8s.io/v1beta1");
    assert.equal(responseOf(result).allowed, true);
  });

  it("skips by policy with allowed: true and no patch", () => {
    const result = reviewBody(
      admissionReview(pod({ metadata: { annotations: { "sidecar.istio.io/inject": "false" } } })),
      "/inject",
      state,
    );
    assert.equal(result.outcome.kind, "skipped");
    assert.deepEqual(responseOf(result), { uid: "0df28fbd-5f5f-11e8-bc74-36e6bb280816", allowed: true });
    const hostNetwork = reviewBody(admissionReview(pod({ spec: { hostNetwork: true } })), "/inject", state);
    assert.equal(hostNetwork.outcome.kind, "skipped");
    const ignored = reviewBody(admissionReview(pod(), undefined, { namespace: "kube-system" }), "/inject", state);
    assert.equal(ignored.outcome.kind, "skipped");
  });

  it("answers an injection error with allowed: false and the message", () => {
    const object = pod({ metadata: { annotations: { "traffic.sidecar.istio.io/includeOutboundIPRanges": "bad" } } });
    const result = reviewBody(admissionReview(object), "/inject", state);
    assert.equal(result.outcome.kind, "failed");
    const response = responseOf(result);
    assert.equal(response.allowed, false);
    assert.match(String((response.status as Json).message), /includeOutboundIPRanges|includeipranges/i);
  });

  it("answers a missing template with allowed: false", () => {
    const object = pod({ metadata: { annotations: { "inject.istio.io/templates": "nope" } } });
    const result = reviewBody(admissionReview(object), "/inject", state);
    assert.equal(result.outcome.kind, "failed");
    assert.match(String((responseOf(result).status as Json).message), /"nope" not found/);
  });

  it("answers malformed input with a well-formed denial", () => {
    const cases: Array<[unknown, string, string]> = [
      [null, "admission.k8s.io/v1", ""],
      ["text", "admission.k8s.io/v1", ""],
      [[], "admission.k8s.io/v1", ""],
      [{ apiVersion: "v1", kind: "Pod" }, "admission.k8s.io/v1", ""],
      [{ apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview" }, "admission.k8s.io/v1beta1", ""],
      [{ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: 7 } }, "admission.k8s.io/v1", ""],
      [admissionReview("not a pod"), "admission.k8s.io/v1", "0df28fbd-5f5f-11e8-bc74-36e6bb280816"],
      [
        admissionReview({ kind: "Service", metadata: { name: "s" } }),
        "admission.k8s.io/v1",
        "0df28fbd-5f5f-11e8-bc74-36e6bb280816",
      ],
      [
        admissionReview(pod(), undefined, { kind: { group: "apps", version: "v1", kind: "Deployment" } }),
        "admission.k8s.io/v1",
        "0df28fbd-5f5f-11e8-bc74-36e6bb280816",
      ],
      [
        admissionReview({ metadata: { name: "p", labels: "not a map" }, spec: {} }),
        "admission.k8s.io/v1",
        "0df28fbd-5f5f-11e8-bc74-36e6bb280816",
      ],
    ];
    for (const [body, apiVersion, uid] of cases) {
      const result = reviewBody(body, "/inject", state);
      assert.equal(result.outcome.kind, "invalid", JSON.stringify(body));
      assert.equal(result.response.apiVersion, apiVersion);
      assert.equal(result.response.kind, "AdmissionReview");
      const response = responseOf(result);
      assert.equal(response.uid, uid);
      assert.equal(response.allowed, false);
      assert.ok(String((response.status as Json).message).length > 0);
    }
  });

  it("refuses wrongly typed metadata and a missing spec with a decode error, as encoding/json would", () => {
    const base = pod();
    const cases: Array<[unknown, RegExp]> = [
      [
        { ...base, metadata: "x" },
        /^could not decode the Pod: json: cannot unmarshal string into Go struct field Pod\.metadata of type v1\.ObjectMeta$/,
      ],
      [
        pod({ metadata: { name: 7 } }),
        /^could not decode the Pod: json: cannot unmarshal number into Go struct field ObjectMeta\.metadata\.name of type string$/,
      ],
      [
        pod({ metadata: { annotations: { a: 1 } } }),
        /^could not decode the Pod: json: cannot unmarshal number into Go struct field ObjectMeta\.metadata\.annotations of type string$/,
      ],
      [pod({ metadata: { labels: { app: true } } }), /ObjectMeta\.metadata\.labels of type string$/],
      [
        pod({ metadata: { ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: 1, uid: "u" }] } }),
        /OwnerReference\.metadata\.ownerReferences\.name of type string$/,
      ],
      [{ ...base, spec: undefined }, /^could not decode the Pod: the Pod has no spec$/],
      [{ ...base, spec: null }, /^could not decode the Pod: the Pod has no spec$/],
    ];
    for (const [object, message] of cases) {
      const result = reviewBody(admissionReview(object), "/inject", state);
      assert.equal(result.outcome.kind, "invalid", JSON.stringify(object));
      const response = responseOf(result);
      assert.equal(response.allowed, false);
      assert.equal(response.patch, undefined);
      assert.match(String((response.status as Json).message), message);
    }
  });

  it("every patch answered applies to the object sent (checked with fast-json-patch, an independent RFC 6902 implementation)", () => {
    const odd: Json[] = [
      pod(),
      pod({ metadata: { annotations: null as unknown as Json, labels: null as unknown as Json } }),
      { ...pod(), metadata: null },
      { ...pod(), metadata: undefined },
      pod({ metadata: { name: "", generateName: "web-" } }),
      pod({ spec: { containers: null as unknown as Json } }),
      pod({ spec: { initContainers: [], volumes: null as unknown as Json } }),
      pod({ spec: { securityContext: null as unknown as Json, unknownField: { x: 1 } } }),
    ];
    for (const object of odd) {
      const result = reviewBody(admissionReview(object), "/inject", state);
      const patch = responseOf(result).patch;
      if (patch === undefined) continue;
      const ops = JSON.parse(Buffer.from(String(patch), "base64").toString("utf8")) as Operation[];
      // The received pod as the API server holds it (typed), patched by fast-json-patch...
      const received = marshalTyped(object, "Pod");
      const theirs = fastJsonPatch(structuredClone(received), ops, true, false).newDocument;
      // ...is what our own applyPatch makes of it, and is an injected pod.
      assert.deepEqual(applyPatch(structuredClone(received), ops), theirs, JSON.stringify(object));
      const injected = theirs as { metadata: { annotations: Json }; spec: { containers: { name: string }[] } };
      assert.ok(injected.metadata.annotations["sidecar.istio.io/status"], JSON.stringify(object));
      assert.ok(
        injected.spec.containers.some((c) => c.name === "istio-proxy"),
        JSON.stringify(object),
      );
    }
  });

  it("says what is missing from a body that is not an AdmissionReview", () => {
    const message = (body: unknown) => String((responseOf(reviewBody(body, "/inject", state)).status as Json).message);
    assert.match(message({}), /got no kind and no apiVersion$/);
    assert.match(message({ kind: "Pod", apiVersion: "v1" }), /got kind "Pod" and apiVersion "v1"$/);
  });

  it("drops managedFields and defaults the namespace before computing the patch", () => {
    const object = pod({
      metadata: { managedFields: [{ manager: "kubectl", operation: "Update", fieldsV1: { "f:x": {} } }] },
    });
    const result = reviewBody(admissionReview(object, undefined, { namespace: "shop" }), "/inject", state);
    const ops = patchOf(result) as Array<{ path: string }>;
    assert.ok(!ops.some((o) => o.path.startsWith("/metadata/managedFields")));
    assert.ok(!ops.some((o) => o.path === "/metadata/namespace"));
    assert.equal(result.pod, "shop/web");
  });

  it("takes proxy env from the path and the proxy config from the annotation", () => {
    const object = pod({ metadata: { annotations: { "proxy.istio.io/config": "concurrency: 3" } } });
    const result = reviewBody(admissionReview(object), "/inject/cluster/east/net/net1", state);
    const injected = applied(marshalTyped(object, "Pod"), patchOf(result)) as {
      metadata: { labels: Record<string, string> };
      spec: { containers: Array<{ name: string; env?: Array<{ name: string; value?: string }> }> };
    };
    const proxy = injected.spec.containers.find((c) => c.name === "istio-proxy");
    const env = Object.fromEntries((proxy?.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env.ISTIO_META_CLUSTER_ID, "east");
    assert.equal(env.ISTIO_META_NETWORK, "net1");
    assert.match(String(env.PROXY_CONFIG), /"concurrency":3/);
    assert.equal(injected.metadata.labels["topology.istio.io/network"], "net1");
  });

  it("names the workload from generateName and owner references", () => {
    const object = pod({
      metadata: {
        name: undefined,
        generateName: "web-7d4b9c-",
        labels: { app: "web", "pod-template-hash": "7d4b9c" },
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-7d4b9c", uid: "u", controller: true },
        ],
      },
    });
    const result = reviewBody(admissionReview(object), "/inject", state);
    assert.equal(result.pod, "default/web-7d4b9c-***** (actual name not yet known)");
    const injected = applied(marshalTyped(object, "Pod"), patchOf(result)) as {
      metadata: { labels: Record<string, string> };
    };
    assert.equal(injected.metadata.labels["service.istio.io/canonical-name"], "web");
  });

  it("is a fixed point: re-injecting the injected pod changes nothing", () => {
    const received = marshalTyped(pod(), "Pod");
    const injected = applied(received, patchOf(reviewBody(admissionReview(received), "/inject", state)));
    const again = reviewBody(admissionReview(injected), "/inject", state);
    assert.equal(again.outcome.kind, "injected");
    assert.deepEqual(patchOf(again), []);
  });

  it("never throws on mutated reviews (property)", () => {
    const valid = admissionReview(pod());
    const anything = fc.anything({ withNullPrototype: false });
    const mutated = fc.oneof(
      anything,
      fc.record({ request: anything }).map((r) => ({ ...valid, ...r })),
      fc
        .record({ metadata: anything, spec: anything, status: anything })
        .map((o) => admissionReview({ ...pod(), ...o })),
      fc.jsonValue().map((v) => admissionReview({ ...pod(), spec: { containers: v } })),
    );
    fc.assert(
      fc.property(mutated, (body) => {
        const result = reviewBody(body, "/inject", state);
        assert.equal(result.response.kind, "AdmissionReview");
        assert.equal(typeof responseOf(result).allowed, "boolean");
        JSON.stringify(result.response);
      }),
      { numRuns: 300 },
    );
  });
});

describe("review on OpenShift", () => {
  const testNs = {
    metadata: {
      name: "test-ns",
      annotations: {
        "openshift.io/sa.scc.uid-range": "1000620000/10000",
        "openshift.io/sa.scc.supplemental-groups": "5000/100,9000/10",
      },
    },
  };
  const openshift: WebhookState = {
    ...state,
    platform: "openshift",
    namespace: (name) => (name === "test-ns" ? testNs : undefined),
  };
  type Injected = { spec: { containers: Array<{ name: string; securityContext?: Json }> } };
  const proxyOf = (object: Json, s: WebhookState, namespace = "test-ns") => {
    const result = reviewBody(admissionReview(object, undefined, { namespace }), "/inject", s);
    assert.deepEqual(result.outcome, { kind: "injected" });
    const injected = applied(marshalTyped(object, "Pod"), patchOf(result)) as Injected;
    return injected.spec.containers.find((c) => c.name === "istio-proxy")?.securityContext ?? {};
  };

  it("runs the proxy as the end of the namespace's uid range and first supplemental group block", () => {
    const sc = proxyOf(pod(), openshift);
    assert.equal(sc.runAsUser, 1000629999);
    assert.equal(sc.runAsGroup, 5099);
  });

  it("uses 1337 for an unknown namespace, a throwing lookup, or without the platform", () => {
    assert.equal(proxyOf(pod(), openshift, "other").runAsUser, 1337);
    const throwing: WebhookState = {
      ...openshift,
      namespace: () => {
        throw new Error("boom");
      },
    };
    assert.equal(proxyOf(pod(), throwing).runAsUser, 1337);
    assert.equal(proxyOf(pod(), { ...state, namespace: openshift.namespace }).runAsUser, 1337);
  });

  it("drops a user istio-proxy's runAsUser/runAsGroup equal to the app's, keeps a different one", () => {
    const withProxy = (proxyUser: number) =>
      pod({
        spec: {
          containers: [
            { name: "app", image: "nginx", securityContext: { runAsUser: 1000620000 } },
            { name: "istio-proxy", image: "auto", securityContext: { runAsUser: proxyUser, runAsGroup: 7 } },
          ],
        },
      });
    const same = proxyOf(withProxy(1000620000), openshift);
    assert.equal(same.runAsUser, 1000629999);
    assert.equal(same.runAsGroup, 5099);
    assert.equal(proxyOf(withProxy(4242), openshift).runAsUser, 4242);
    // Without OpenShift the user's value is an override and stays.
    assert.equal(proxyOf(withProxy(1000620000), state).runAsUser, 1000620000);
  });
});

describe("nativeSidecarsEnabled", () => {
  it("follows on/off, and auto only with a known kubelet minor of at least 33", () => {
    assert.equal(nativeSidecarsEnabled({ nativeSidecars: "on" }), true);
    assert.equal(nativeSidecarsEnabled({ nativeSidecars: "off", kubeletMinorVersion: 40 }), false);
    assert.equal(nativeSidecarsEnabled({ nativeSidecars: "auto" }), false);
    assert.equal(nativeSidecarsEnabled({ nativeSidecars: "auto", kubeletMinorVersion: 32 }), false);
    assert.equal(nativeSidecarsEnabled({ nativeSidecars: "auto", kubeletMinorVersion: 33 }), true);
    assert.equal(nativeSidecarsEnabled({ nativeSidecars: "auto", kubeletMinorVersion: Number.NaN }), false);
  });
});

describe("potentialPodName", () => {
  it("uses the name, else marks the generateName", () => {
    assert.equal(potentialPodName({ name: "a", generateName: "b-" }), "a");
    assert.equal(potentialPodName({ generateName: "b-" }), "b-***** (actual name not yet known)");
    assert.equal(potentialPodName({}), "");
  });
});

// Istio pkg/kube/inject/inject_test.go TestMultipleInjectionTemplates and TestStrategicMerge,
// through the webhook (their runWebhook): templates chosen by annotation or alias, and strategic
// merge directives in a template.
describe("Istio's TestMultipleInjectionTemplates and TestStrategicMerge", () => {
  const injected = (config: string, object: Json) => {
    const injector = loadInjector({ config, values: "{}", mesh: defaultConfigFiles().mesh });
    const result = reviewBody(admissionReview(object), "/inject", { injector, revision: "", nativeSidecars: "off" });
    return applyPatch(marshalTyped(object, "Pod"), patchOf(result)) as {
      metadata: { labels?: Record<string, string>; annotations: Record<string, string> };
      spec: { containers: Json[]; initContainers?: Json[] };
    };
  };
  const hello = (annotations: Record<string, string>, labels?: Record<string, string>): Json => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "hello", annotations, ...(labels ? { labels } : {}) },
    spec: { containers: [{ name: "hello", image: "fake.docker.io/google-samples/hello-go-gke:1.0" }] },
  });
  const containers = (list: Json[] | undefined) => (list ?? []).map((c) => ({ name: c.name, image: c.image }));

  const multiple = JSON.stringify({
    policy: "enabled",
    aliases: { both: ["sidecar", "init"] },
    templates: {
      sidecar: "\nspec:\n  containers:\n  - name: istio-proxy\n    image: proxy\n",
      init: "\nspec:\n initContainers:\n - name: istio-init\n   image: proxy\n",
    },
  });
  for (const templates of ["sidecar,init", "both"]) {
    it(`TestMultipleInjectionTemplates: inject.istio.io/templates: ${templates}`, () => {
      const out = injected(multiple, hello({ "inject.istio.io/templates": templates }));
      assert.deepEqual(containers(out.spec.initContainers), [{ name: "istio-init", image: "proxy" }]);
      assert.deepEqual(containers(out.spec.containers), [
        { name: "hello", image: "fake.docker.io/google-samples/hello-go-gke:1.0" },
        { name: "istio-proxy", image: "proxy" },
      ]);
      assert.equal(out.metadata.annotations["inject.istio.io/templates"], templates);
      const status = JSON.parse(out.metadata.annotations["sidecar.istio.io/status"] as string);
      assert.deepEqual([status.initContainers, status.containers], [["istio-init"], ["istio-proxy"]]);
    });
  }

  it("TestStrategicMerge: $patch: replace in the template replaces the pod's labels", () => {
    const template =
      "\nmetadata:\n  labels:\n    $patch: replace\n    foo: bar\nspec:\n  containers:\n  - name: injected\n" +
      '    image: "fake.docker.io/google-samples/hello-go-gke:1.1"\n';
    const out = injected(
      JSON.stringify({ policy: "enabled", templates: { sidecar: template } }),
      hello({}, { key: "value" }),
    );
    assert.deepEqual(out.metadata.labels, { foo: "bar" });
    assert.deepEqual(containers(out.spec.containers), [
      { name: "injected", image: "fake.docker.io/google-samples/hello-go-gke:1.1" },
      { name: "hello", image: "fake.docker.io/google-samples/hello-go-gke:1.0" },
    ]);
  });
});

// Istio pkg/kube/inject/webhook.go checkPreconditions and getPrometheusScrapeConfiguration log
// warnings while injecting; the webhook hands them to its log with the pod.
describe("warnings while injecting", () => {
  it("are returned with the injected pod, for the log", () => {
    const object = pod({
      metadata: { annotations: { "prometheus.istio.io/scrape-targets": ":/x" } },
      spec: { dnsPolicy: "Default" },
    });
    const result = reviewBody(admissionReview(object), "/inject", state);
    assert.deepEqual(result.outcome, { kind: "injected" });
    assert.deepEqual(result.warnings, [
      '"default/web"\'s DNSPolicy is not "ClusterFirst". The Envoy sidecar may not able to connect to Istio Pilot',
      'default/web: failed to parse prometheus.istio.io/scrape-targets annotation: empty port in scrape target ":/x"',
    ]);
  });
});
