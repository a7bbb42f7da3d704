import assert from "node:assert/strict";
import { test } from "node:test";
import { fromJSON, goFunc } from "../go/value.js";
import { helmFuncs } from "./helm.js";
import { sprigFuncs } from "./sprig/index.js";
import { parse, TemplateError } from "./template.js";

const funcs = { ...sprigFuncs, ...helmFuncs };

function render(text: string, data: unknown = {}): string {
  return parse("main", text, { funcs }).execute(fromJSON(JSON.stringify(data)));
}

test("toYaml writes keys sorted, sequences unindented, numbers as JSON would", () => {
  const out = render("{{ toYaml .v }}", { v: { b: [1, "x"], a: { n: 1.5, big: 1000000 } } });
  // go-yaml v2 quotes the key "n": YAML 1.1 reads a plain n as false.
  assert.equal(out, 'a:\n  big: 1000000\n  "n": 1.5\nb:\n- 1\n- x');
});

// Regression (issue 9): toYaml used the yaml package's writer, which left "yes" plain, and
// Kubernetes (YAML 1.1) reads that back as true. go-yaml's writer quotes it.
test("toYaml quotes strings that YAML 1.1 would read as something else", () => {
  assert.equal(
    render("{{ toYaml .v }}", { v: { a: "yes", b: "on", c: "0777", d: "1e3", e: "plain" } }),
    'a: "yes"\nb: "on"\nc: "0777"\nd: "1e3"\ne: plain',
  );
  assert.equal(render("{{ (fromYaml (toYaml .v)).a | kindOf }}", { v: { a: "yes" } }), "string");
});

test("fromYaml reads YAML 1.1 booleans and reports errors in an Error key", () => {
  assert.equal(render('{{ $m := fromYaml "a: yes\\nb: [1, 2]" }}{{ $m.a }} {{ index $m.b 1 }}'), "true 2");
  assert.match(render('{{ (fromYaml "a: [").Error }}'), /./);
});

test("include renders a defined template into a string for further piping", () => {
  const t = '{{ define "name" }}{{ .n }}-svc{{ end }}{{ include "name" . | upper | quote }}';
  assert.equal(render(t, { n: "web" }), '"WEB-SVC"');
});

test("include stops runaway recursion with Helm's message", () => {
  const t = '{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}';
  assert.throws(
    () => render(t),
    (e: unknown) => e instanceof TemplateError && /nested reference name: loop/.test(e.message),
  );
});

test("tpl renders a string as a template with the current defines", () => {
  const t = '{{ define "who" }}world{{ end }}{{ tpl .greeting . }}';
  assert.equal(render(t, { greeting: 'hello {{ include "who" . }} {{ .n }}', n: 1 }), "hello world 1");
});

test("required fails with the given message on missing or empty values", () => {
  assert.equal(render('{{ required "need x" .x }}', { x: "ok" }), "ok");
  assert.throws(() => render('{{ required "need x" .x }}', {}), /error calling required: need x/);
  assert.throws(() => render('{{ required "need x" .x }}', { x: "" }), /need x/);
});

// Regression (issue 9): include's depth and the template it resolves in were module globals, so an
// execution started inside another (here by a function) shared the outer one's count.
test("each execution counts its own include depth", () => {
  const chain = (n: number) =>
    `{{ define "d" }}{{ if lt . ${n} }}{{ include "d" (add . 1) }}{{ else }}{{ inner }}{{ end }}{{ end }}{{ include "d" 0 }}`;
  const inner = parse("inner", chain(150).replace("{{ inner }}", "done"), { funcs });
  const outer = parse("outer", chain(150), {
    funcs: { ...funcs, inner: goFunc("inner", [], () => inner.execute(0), "string") },
  });
  assert.equal(outer.execute(0), "done");
});
