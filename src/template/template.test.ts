import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fromJSON, GO_OBJECT, type GoObject, goFunc, TypedNil } from "../go/value.js";
import { MAX_EXEC_DEPTH } from "./exec.js";
import { MAX_PARSE_DEPTH } from "./parse.js";
import { sprigFuncs } from "./sprig/index.js";
import { parse, Template, TemplateError } from "./template.js";

function run(text: string, data: unknown = null, numbers: "float" | "int" = "float"): string {
  return parse("main", text, { funcs: sprigFuncs }).execute(fromJSON(JSON.stringify(data), numbers));
}

function failure(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TemplateError, `expected a TemplateError, got ${String(e)}`);
    return e;
  }
  assert.fail("expected an error");
}

describe("semantics newer than Go 1.19", () => {
  test("else with chains (Go 1.23)", () => {
    const t = "{{with .a}}a={{.}}{{else with .b}}b={{.}}{{else}}none{{end}}";
    assert.equal(run(t, { a: "x" }), "a=x");
    assert.equal(run(t, { b: "y" }), "b=y");
    assert.equal(run(t, {}), "none");
  });

  test("range over an integer (Go 1.22)", () => {
    assert.equal(run("{{range 3}}{{.}},{{end}}"), "0,1,2,");
    assert.equal(run("{{range $i := 2}}[{{$i}}]{{end}}"), "[0][1]");
    assert.equal(run("{{range 0}}x{{else}}empty{{end}}"), "empty");
  });

  test("range over an integer refuses two variables", () => {
    const e = failure(() => run("{{range $i, $e := 3}}{{end}}"));
    assert.equal(e.phase, "exec");
    assert.match(e.message, /can't use 3 to iterate over more than one variable/);
  });

  test("break and continue", () => {
    assert.equal(run("{{range .}}{{if eq . 3.0}}{{break}}{{end}}{{.}}{{end}}", [1, 2, 3, 4]), "12");
    assert.equal(run("{{range .}}{{if eq . 2.0}}{{continue}}{{end}}{{.}}{{end}}", [1, 2, 3]), "13");
  });

  test("break outside range is a parse error", () => {
    const e = failure(() => run("{{break}}"));
    assert.equal(e.phase, "parse");
    assert.equal(e.message, "template: main:1: {{break}} outside {{range}}");
  });
});

describe("values", () => {
  test("JSON numbers are float64 unless read as ints", () => {
    assert.equal(run('{{.n}} {{printf "%T" .n}}', { n: 1000000 }), "1e+06 float64");
    assert.equal(run('{{.n}} {{printf "%T" .n}}', { n: 1000000 }, "int"), "1000000 int");
  });

  test("maps range in sorted key order", () => {
    assert.equal(run("{{range $k, $v := .}}{{$k}}={{$v}};{{end}}", { b: 1, a: 2, c: 3 }), "a=2;b=1;c=3;");
  });

  test("missing keys and nil interfaces", () => {
    assert.equal(run('{{.missing}}|{{.nul}}|{{printf "%v" .nul}}', { nul: null }), "<no value>|<no value>|<nil>");
    const e = failure(() => run("{{.nul.x}}", { nul: null }));
    assert.match(e.message, /nil pointer evaluating interface \{\}\.x/);
  });

  test("host objects expose fields and zero-argument methods", () => {
    const wrapper = (value: boolean): GoObject => ({
      [GO_OBJECT]: true,
      goTypeName: () => "*wrappers.BoolValue",
      goField: (name) => (name === "Value" ? value : undefined),
      goMethod: (name) => (name === "GetValue" ? goFunc("GetValue", [], () => value, "bool") : undefined),
    });
    const nilWrapper: GoObject = {
      [GO_OBJECT]: true,
      goTypeName: () => "*wrappers.BoolValue",
      goIsNil: () => true,
      goField: (name) => (name === "Value" ? false : undefined),
      goMethod: (name) => (name === "GetValue" ? goFunc("GetValue", [], () => false, "bool") : undefined),
    };
    const t = parse("main", "{{.A.GetValue}} {{.B.GetValue}} {{.A.Value}}");
    assert.equal(t.execute({ A: wrapper(true), B: nilWrapper }), "true false true");
    // As in Go, a value taken out of a map[string]interface{} has the static type interface {}.
    const e = failure(() => parse("main", "{{.B.Value}}").execute({ B: nilWrapper }));
    assert.match(e.message, /nil pointer evaluating interface \{\}\.Value/);
    const e2 = failure(() => parse("main", "{{.Nope}}").execute(wrapper(true)));
    assert.match(e2.message, /can't evaluate field Nope in type \*wrappers\.BoolValue/);
  });

  test("a host value that is an int in Go (an enum) is false at zero in if", () => {
    const enumOf = (n: number): GoObject => ({
      [GO_OBJECT]: true,
      goTypeName: () => "v1alpha1.ProxyConfig_InboundInterceptionMode",
      goTruth: () => n !== 0,
      goField: () => undefined,
    });
    const t = parse("main", "{{ if .A }}a{{ end }}{{ if .B }}b{{ end }}{{ with .B }}w{{ end }}");
    assert.equal(t.execute({ A: enumOf(0), B: enumOf(1) }), "bw");
  });

  test("a typed nil map reads as empty", () => {
    const t = parse("main", "{{len .m}} {{.m.x}}");
    assert.equal(t.execute({ m: new TypedNil("map[string]string") }), "0 <no value>");
  });
});

describe("template sets", () => {
  test("define, template and block", () => {
    const t = '{{define "x"}}<{{.}}>{{end}}{{template "x" 1}}{{block "y" 2}}[{{.}}]{{end}}';
    assert.equal(run(t), "<1>[2]");
  });

  test("a later parse can redefine a template; an empty body keeps the old one", () => {
    const t = new Template("main").parse('main:{{template "x"}}{{define "x"}}one{{end}}');
    assert.equal(t.execute(null), "main:one");
    t.parse('{{define "x"}}two{{end}}');
    assert.equal(t.execute(null), "main:two");
  });

  test("undefined templates fail at execution, not at parse", () => {
    const t = parse("main", '{{template "nope"}}');
    const e = failure(() => t.execute(null));
    assert.equal(e.phase, "exec");
    assert.match(e.message, /template "nope" not defined/);
  });
});

describe("limits", () => {
  test("recursion is bounded with a clear error", () => {
    const e = failure(() => run('{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}'));
    assert.equal(e.phase, "exec");
    assert.match(e.message, new RegExp(`exceeded maximum template depth \\(${MAX_EXEC_DEPTH}\\)`));
  });

  test("deep nesting in the source is a parse error, not a stack overflow", () => {
    const depth = MAX_PARSE_DEPTH + 10;
    const e = failure(() => run(`{{${"(".repeat(depth)}1${")".repeat(depth)}}}`));
    assert.equal(e.phase, "parse");
    assert.match(e.message, /max expression depth exceeded/);
  });

  test("a function that throws a non-Go error is still a template error", () => {
    const boom = goFunc("boom", [], () => {
      throw new TypeError("bad");
    });
    const e = failure(() => parse("main", "{{boom}}", { funcs: { boom } }).execute(null));
    assert.equal(e.phase, "exec");
    assert.match(e.message, /error calling boom: bad/);
  });
});

describe("error positions", () => {
  test("exec errors name line, byte column and the failing command", () => {
    const e = failure(() => run("héllo\n  {{index .l 9}}", { l: [1] }));
    assert.equal(
      e.message,
      'template: main:2:4: executing "main" at <index .l 9>: error calling index: index out of range: 9',
    );
  });

  test("parse errors name the line", () => {
    const e = failure(() => run("a\n{{if}}"));
    assert.equal(e.message, "template: main:2: missing value for if");
  });
});
