import assert from "node:assert/strict";
import { test } from "node:test";
import { parse, sprigFuncs } from "../template/index.js";
import { goTypedView, goView, goViewJSON } from "./go-view.js";

const spec = goView(
  {
    containers: [
      {
        name: "hello",
        image: "img",
        ports: [{ name: "http", containerPort: 80 }],
        readinessProbe: { httpGet: { port: 8080, path: "/ready" } },
      },
      { name: "istio-proxy" },
    ],
    securityContext: { runAsUser: 1000 },
  },
  "PodSpec",
);
const meta = goView({ name: "p", annotations: { a: "1" } }, "ObjectMeta");

function run(text: string): string {
  return parse("t", text, { funcs: sprigFuncs }).execute({ Spec: spec, ObjectMeta: meta });
}

test("paths Istio's templates use", () => {
  assert.equal(
    run(`{{ range $i, $c := .Spec.Containers }}{{ if not (eq $c.Name "istio-proxy") }}{{ $c.Name }}{{ end }}{{ end }}`),
    "hello",
  );
  assert.equal(
    run(
      "{{ range $c := .Spec.Containers }}{{ range $p := $c.Ports }}{{ $p.Name }}:{{ $p.ContainerPort }}{{ end }}{{ end }}",
    ),
    "http:80",
  );
  assert.equal(run(`{{ if eq .Spec.ServiceAccountName "" }}none{{ end }}`), "none");
  assert.equal(
    run(
      "{{ index .ObjectMeta.Annotations `a` }}|{{ index .ObjectMeta.Annotations `b` }}|{{ index .ObjectMeta.Labels `x` }}",
    ),
    "1||",
  );
  assert.equal(run("{{ .Spec.SecurityContext.RunAsUser }}"), "1000");
  assert.equal(
    run(
      "{{ (index .Spec.Containers 0).ReadinessProbe.HTTPGet.Path }} {{ (index .Spec.Containers 0).ReadinessProbe.HTTPGet.Port }}",
    ),
    "/ready 8080",
  );
  assert.equal(run("{{ .ObjectMeta.Name }}"), "p");
});

test("Go types, nils and %v printing", () => {
  assert.equal(run(`{{ printf "%T" .Spec.Containers }}`), "[]v1.Container");
  assert.equal(run(`{{ printf "%T" (index .Spec.Containers 0).ReadinessProbe }}`), "*v1.Probe");
  assert.equal(run(`{{ printf "%T %T" .ObjectMeta.Labels .Spec.InitContainers }}`), "map[string]string []v1.Container");
  assert.equal(run("{{ (index .Spec.Containers 1).LivenessProbe }}"), "<nil>");
  assert.equal(run(`{{ if .Spec.InitContainers }}y{{ else }}n{{ end }}`), "n");
  assert.equal(run(`{{ printf "%T" (index (index .Spec.Containers 0).Ports 0).ContainerPort }}`), "int32");
  assert.equal(run("{{ index (index .Spec.Containers 0).Ports 0 }}"), "{http 0 80  }");
  assert.equal(run("{{ (index .Spec.Containers 0).Resources }}"), "{map[] map[] []}");
});

test("goViewJSON gives the typed JSON in Go field order", () => {
  const c = goView({ ports: [{ containerPort: 80, name: "http" }], name: "n" }, "Container");
  assert.equal(
    JSON.stringify(goViewJSON(c)),
    '{"name":"n","ports":[{"name":"http","containerPort":80}],"resources":{}}',
  );
  assert.equal(goViewJSON("x"), undefined);
});

test("goTypedView over typed JSON reads as goView over the same object, without copying it", () => {
  const typed = goViewJSON(spec) as Record<string, unknown>;
  const direct = goTypedView(typed, "PodSpec");
  assert.equal(goViewJSON(direct), typed);
  const template = `{{ range .Spec.Containers }}{{ .Name }}:{{ with .ReadinessProbe }}{{ .HTTPGet.Port }}{{ end }} {{ end }}{{ printf "%v" .Spec.SecurityContext.RunAsUser }}`;
  const render = (s: unknown) => parse("t", template, { funcs: sprigFuncs }).execute({ Spec: s as never });
  assert.equal(render(direct), render(spec));
  assert.equal(render(direct), "hello:8080 istio-proxy: 1000");
});
