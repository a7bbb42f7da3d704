import assert from "node:assert/strict";
import { test } from "node:test";
import { goView } from "../kube/go-view.js";
import { fromJSON, parse, sprigFuncs } from "../template/index.js";
import { appendMultusNetwork, excludeInboundPort, injectionFuncs, omitNil } from "./funcs.js";

const funcs = {
  ...sprigFuncs,
  ...injectionFuncs({ env: (k) => (k === "HOME_REGION" ? "eu" : undefined), protoToJSON: () => "{}" }),
};

function render(text: string, dot: unknown): string {
  return parse("inject", text, { funcs }).execute(dot);
}

test("excludeInboundPort adds a port once, ignoring empty and zero", () => {
  assert.equal(excludeInboundPort("15020", ""), "15020");
  assert.equal(excludeInboundPort("15020", "8080, 9090"), "8080,9090,15020");
  assert.equal(excludeInboundPort("15020", "15020,8080"), "15020,8080");
  assert.equal(excludeInboundPort("0", "8080"), "8080");
  assert.equal(excludeInboundPort(15020, "8080"), "8080,15020");
});

test("appendMultusNetwork extends list and JSON forms without duplicating", () => {
  assert.equal(appendMultusNetwork("", "istio-cni"), "istio-cni");
  assert.equal(appendMultusNetwork("macvlan", "istio-cni"), "macvlan, istio-cni");
  assert.equal(appendMultusNetwork("macvlan, istio-cni", "istio-cni"), "macvlan, istio-cni");
  assert.equal(
    appendMultusNetwork('[{"name": "alt"}]', "default/istio-cni"),
    '[{"name": "alt"}, {"name": "istio-cni", "namespace": "default"}]',
  );
  assert.equal(appendMultusNetwork('[{"name": "istio-cni"}]', "istio-cni"), '[{"name": "istio-cni"}]');
  assert.equal(appendMultusNetwork("[not json]", "istio-cni"), "[not json]");
});

test("annotation, isset and Istio's indent and contains work on a pod's metadata", () => {
  const meta = goView({ annotations: { "a.io/x": "1" } }, "ObjectMeta");
  const dot = { ObjectMeta: meta };
  assert.equal(
    render('{{ annotation .ObjectMeta "a.io/x" "d" }}/{{ annotation .ObjectMeta "a.io/y" 15 }}', dot),
    "1/15",
  );
  assert.equal(
    render('{{ isset .ObjectMeta.Annotations "a.io/x" }}{{ isset .ObjectMeta.Annotations "no" }}', dot),
    "truefalse",
  );
  assert.equal(render('{{ indent 2 "a\\nb" }}|{{ contains "/" "a/b" }}', dot), "a\n  b|true");
  assert.equal(render('{{ env "HOME_REGION" "us" }} {{ env "NOPE" "us" }}', dot), "eu us");
});

test("structToJSON writes Kubernetes structs with their json names in declaration order", () => {
  const spec = goView(
    { containers: [{ name: "c", ports: [{ containerPort: 80, name: "http", protocol: "TCP" }] }] },
    "PodSpec",
  );
  assert.equal(
    render("{{ range .Spec.Containers }}{{ range .Ports }}{{ structToJSON . }}{{ end }}{{ end }}", { Spec: spec }),
    '{"name":"http","containerPort":80,"protocol":"TCP"}',
  );
});

test("omitNil drops nulls left by a values merge, recursively", () => {
  const values = fromJSON('{"r":{"requests":{"cpu":null,"memory":"1Gi"},"limits":null}}');
  assert.equal(render("{{ toYaml (omitNil .r) }}", values), "requests:\n  memory: 1Gi\n");
});

// Istio pkg/kube/inject/template_test.go TestOmitNil: its table, case by case.
test("omitNil follows Istio's TestOmitNil table", () => {
  const cases: Array<[string, unknown, unknown]> = [
    ["no nils", { a: 1, b: "c" }, { a: 1, b: "c" }],
    ["top level nil", { a: null, b: "c" }, { b: "c" }],
    ["nested nil", { a: { x: null, y: 2 }, b: "c" }, { a: { y: 2 }, b: "c" }],
    ["slice with nil", [1, null, 3], [1, 3]],
    ["nested slice nil", { a: [null, { x: null }] }, null],
    ["all nils map", { a: null, b: { x: null } }, null],
    [
      "complex mixed",
      { global: { proxy: { resources: { limits: { cpu: null, memory: "500Mi" } } } } },
      { global: { proxy: { resources: { limits: { memory: "500Mi" } } } } },
    ],
  ];
  for (const [name, input, want] of cases) {
    const got = omitNil(input as never);
    assert.deepEqual(got === null ? null : JSON.parse(JSON.stringify(got)), want, name);
  }
});

// Istio pkg/kube/inject/template.go omitNilInternal: only a map or list emptied by dropping nils
// becomes nil; one that was empty already, or has no nil under it, is given back as it is.
test("omitNil keeps maps and lists that were empty before, and only drops those it emptied", () => {
  const untouched = { a: {}, b: [], c: { d: [] } };
  assert.equal(omitNil(untouched as never), untouched, "nothing to drop: the same value");
  assert.deepEqual(JSON.parse(JSON.stringify(omitNil({ a: {}, b: [], c: null } as never))), { a: {}, b: [] });
  assert.deepEqual(JSON.parse(JSON.stringify(omitNil([[], null, {}] as never))), [[], {}]);
  assert.equal(omitNil({ a: [null] } as never), null, "emptied by dropping nils: nil");
});

// Istio pkg/kube/inject/inject_test.go TestAppendMultusNetwork: its table, each also idempotent.
test("appendMultusNetwork follows Istio's TestAppendMultusNetwork table", () => {
  const pad = "\n                   ";
  const cases: Array<[string, string, string]> = [
    ["empty", "", "istio-cni"],
    ["flat-single", "macvlan-conf-1", "macvlan-conf-1, istio-cni"],
    ["flat-multiple", "macvlan-conf-1, macvlan-conf-2", "macvlan-conf-1, macvlan-conf-2, istio-cni"],
    ["json-single", '[{"name": "macvlan-conf-1"}]', '[{"name": "macvlan-conf-1"}, {"name": "istio-cni"}]'],
    [
      "json-multiple",
      '[{"name": "macvlan-conf-1"}, {"name": "macvlan-conf-2"}]',
      '[{"name": "macvlan-conf-1"}, {"name": "macvlan-conf-2"}, {"name": "istio-cni"}]',
    ],
    [
      "json-multiline",
      `[${pad}{"name": "macvlan-conf-1"},${pad}{"name": "macvlan-conf-2"}${pad}]`,
      `[${pad}{"name": "macvlan-conf-1"},${pad}{"name": "macvlan-conf-2"}${pad}, {"name": "istio-cni"}]`,
    ],
    [
      "json-multiline-additional-fields",
      `[${pad}{"name": "macvlan-conf-1", "another-field": "another-value"},${pad}{"name": "macvlan-conf-2"}${pad}]`,
      `[${pad}{"name": "macvlan-conf-1", "another-field": "another-value"},${pad}{"name": "macvlan-conf-2"}${pad}, {"name": "istio-cni"}]`,
    ],
    [
      "json-preconfigured-istio-cni",
      `[${pad}{"name": "macvlan-conf-1"},${pad}{"name": "macvlan-conf-2"},${pad}{"name": "istio-cni", "config": "additional-config"},${pad}]`,
      `[${pad}{"name": "macvlan-conf-1"},${pad}{"name": "macvlan-conf-2"},${pad}{"name": "istio-cni", "config": "additional-config"},${pad}]`,
    ],
  ];
  for (const [name, input, want] of cases) {
    const got = appendMultusNetwork(input, "istio-cni");
    assert.equal(got, want, name);
    assert.equal(appendMultusNetwork(got, "istio-cni"), want, `${name}: idempotency`);
  }
});

// Istio pkg/kube/inject/inject_test.go TestSkipUDPPorts: UDP ports are left out of the inbound ports.
test("includeInboundPorts skips UDP ports: Istio's TestSkipUDPPorts table", () => {
  const cases: Array<[Array<{ containerPort: number; protocol: string }>, string]> = [
    [[], ""],
    [
      [
        { containerPort: 80, protocol: "TCP" },
        { containerPort: 8080, protocol: "TCP" },
      ],
      "80,8080",
    ],
    [
      [
        { containerPort: 53, protocol: "TCP" },
        { containerPort: 53, protocol: "UDP" },
      ],
      "53",
    ],
    [
      [
        { containerPort: 80, protocol: "TCP" },
        { containerPort: 53, protocol: "UDP" },
      ],
      "80",
    ],
    [[{ containerPort: 53, protocol: "UDP" }], ""],
  ];
  for (const [ports, want] of cases) {
    const spec = goView({ containers: [{ name: "c", ports }] }, "PodSpec");
    assert.equal(render("{{ includeInboundPorts .Spec.Containers }}", { Spec: spec }), want, JSON.stringify(ports));
  }
});
