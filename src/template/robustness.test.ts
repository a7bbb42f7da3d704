/**
 * Robustness: whatever the template text and data, `parse` + `execute` end in a string or a
 * TemplateError, quickly, and never in another exception or a stack overflow. Random inputs come
 * from gen-templates.ts (token soup, mutated corpus templates, the differential's grammar);
 * the deliberate deep-nesting cases below check that the engine's limits answer with clear errors.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  BUILTIN_FUNCS,
  jsonData,
  mutatedTemplate,
  numbersMode,
  tokenSoup,
  validCaseData,
  validTemplate,
} from "./gen-templates.js";
import { fromJSON, helmFuncs, MAX_EXEC_DEPTH, MAX_PARSE_DEPTH, parse, sprigFuncs, TemplateError } from "./index.js";

const funcs = { ...sprigFuncs, ...helmFuncs };
const functionNames = [...BUILTIN_FUNCS, ...Object.keys(funcs)];

/** Far above any honest run (well under a millisecond), far below what a test runner would call a hang. */
const TIME_LIMIT_MS = 2000;

/** Messages by which the engine reports a JS failure it caught rather than a Go error. */
const CRASH_MESSAGE = /internal error|nesting too deep|call stack/i;

type Outcome = { output: string } | { error: TemplateError };

/** Parses and executes; anything thrown other than a TemplateError propagates (and fails the test). */
function render(text: string, data: unknown, numbers: "float" | "int" = "float"): Outcome {
  try {
    return { output: parse("main", text, { funcs }).execute(fromJSON(JSON.stringify(data ?? null), numbers)) };
  } catch (e) {
    if (e instanceof TemplateError) return { error: e };
    throw e;
  }
}

/** The property: a string or a Go-style TemplateError, within the time limit. */
function assertRobust(text: string, data: unknown, numbers: "float" | "int"): void {
  const start = performance.now();
  const outcome = render(text, data, numbers);
  const elapsed = performance.now() - start;
  assert.ok(elapsed < TIME_LIMIT_MS, `took ${Math.round(elapsed)} ms`);
  if ("output" in outcome) {
    assert.equal(typeof outcome.output, "string");
    return;
  }
  const { error } = outcome;
  assert.ok(error.phase === "parse" || error.phase === "exec", `phase ${error.phase}`);
  assert.match(error.message, /^template: /);
  assert.doesNotMatch(error.message, CRASH_MESSAGE);
}

function expectLimitError(text: string, phase: "parse" | "exec", limit: RegExp, data: unknown = null): void {
  const outcome = render(text, data);
  assert.ok("error" in outcome, "expected a TemplateError");
  assert.equal(outcome.error.phase, phase);
  assert.match(outcome.error.message, limit);
}

describe("robustness on random templates", () => {
  // About 4 s in all; the seed makes every run identical.
  test("token soup", () => {
    fc.assert(fc.property(tokenSoup(functionNames), jsonData, numbersMode, assertRobust), {
      seed: 42,
      numRuns: 5000,
      includeErrorInReport: true,
    });
  });

  test("mutated corpus templates", () => {
    fc.assert(fc.property(mutatedTemplate(functionNames), jsonData, numbersMode, assertRobust), {
      seed: 42,
      numRuns: 5000,
      includeErrorInReport: true,
    });
  });

  test("grammar-generated templates", () => {
    fc.assert(fc.property(validTemplate, validCaseData, numbersMode, assertRobust), {
      seed: 42,
      numRuns: 2000,
      includeErrorInReport: true,
    });
  });
});

describe("robustness at the limits", () => {
  const over = MAX_PARSE_DEPTH + 10;
  const under = MAX_PARSE_DEPTH - 10;
  const parseLimit = /max expression depth exceeded/;
  const execLimit = new RegExp(`exceeded maximum template depth \\(${MAX_EXEC_DEPTH}\\)`);

  test("deeply nested source is a parse error naming the limit", () => {
    const nests = {
      parens: `{{ ${"(".repeat(over)}1${")".repeat(over)} }}`,
      "argument parens": `{{ ${"(print ".repeat(over)}1${")".repeat(over)} }}`,
      if: `${"{{if 1}}".repeat(over)}x${"{{end}}".repeat(over)}`,
      range: `${"{{range .}}".repeat(over)}x${"{{end}}".repeat(over)}`,
      with: `${"{{with .}}".repeat(over)}x${"{{end}}".repeat(over)}`,
      "else if chain": `{{if 0}}${"{{else if 0}}".repeat(over)}{{else}}x{{end}}`,
      "else with chain": `{{with 0}}${"{{else with 0}}".repeat(over)}{{end}}`,
      block: `${'{{block "b" .}}'.repeat(over)}x${"{{end}}".repeat(over)}`,
      "unclosed ifs": "{{if 1}}".repeat(over * 5),
    };
    for (const [name, text] of Object.entries(nests)) {
      const outcome = render(text, [1]);
      assert.ok("error" in outcome, name);
      assert.equal(outcome.error.phase, "parse", name);
      if (name !== "block") assert.match(outcome.error.message, parseLimit, name);
      else assert.doesNotMatch(outcome.error.message, CRASH_MESSAGE, name); // blocks are also "multiple definition"
    }
  });

  test("nesting just under the parse limit parses and runs", () => {
    assert.deepEqual(render(`${"{{if 1}}".repeat(under)}x${"{{end}}".repeat(under)}`, null), { output: "x" });
    assert.deepEqual(render(`{{ ${"(".repeat(under)}1${")".repeat(under)} }}`, null), { output: "1" });
    assert.deepEqual(render(`${"{{with .}}".repeat(under)}{{.}}${"{{end}}".repeat(under)}`, 7), { output: "7" });
    assert.deepEqual(render(`{{if 0}}${"{{else if 0}}".repeat(under)}{{else}}y{{end}}`, null), { output: "y" });
    assert.deepEqual(render(`${"{{range .}}".repeat(under)}z${"{{end}}".repeat(under)}`, [[[]]]), { output: "" });
  });

  test("endless template recursion is an exec error naming the limit", () => {
    const recursions = [
      '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}',
      '{{define "a"}}{{template "b" .}}{{end}}{{define "b"}}x{{template "a" .}}{{end}}{{template "a" 1}}',
      '{{block "r" .}}{{template "r" .}}{{end}}',
      '{{define "r"}}{{range .}}{{template "r" $}}{{end}}{{end}}{{template "r" .}}',
      '{{define "r"}}{{with list .}}{{if .}}{{range .}}{{template "r" .}}{{end}}{{end}}{{end}}{{end}}{{template "r" 1}}',
      '{{define "r"}}{{template "r" (list . .)}}{{end}}{{template "r" 1}}',
      '{{define "r"}}{{if 1}}{{with 2}}{{range list 1 2}}{{template "r" (printf "%v" .)}}{{end}}{{end}}{{end}}{{end}}{{template "r" 0}}',
    ];
    for (const text of recursions) expectLimitError(text, "exec", execLimit, [1]);
  });

  test("recursion just under the exec limit runs", () => {
    const text = '{{define "r"}}{{if gt . 0}}{{template "r" (sub . 1)}}{{else}}done{{end}}{{end}}{{template "r" .}}';
    assert.deepEqual(render(text, MAX_EXEC_DEPTH - 5, "int"), { output: "done" });
    const heavy =
      '{{define "r"}}{{with .}}{{range list 1}}{{if gt $ 0}}{{template "r" (sub $ 1)}}{{end}}{{end}}{{end}}{{end}}{{template "r" .}}';
    assert.deepEqual(render(heavy, MAX_EXEC_DEPTH - 5, "int"), { output: "" });
  });

  test("Helm's include and tpl recursion are bounded", () => {
    const include = render('{{define "r"}}{{include "r" .}}{{end}}{{include "r" .}}', null);
    assert.ok("error" in include);
    assert.match(include.error.message, /nested reference/);
    const tpl = render("{{tpl .t .}}", { t: "{{tpl .t .}}" });
    assert.ok("error" in tpl);
    assert.doesNotMatch(tpl.error.message, CRASH_MESSAGE);
  });

  test("deeply nested data prints, encodes and compares without a crash", () => {
    // Go's JSON decoder accepts up to 10000 levels; Helm values are far shallower.
    for (const depth of [100, 1000]) {
      let deep: unknown = "leaf";
      for (let i = 0; i < depth; i++) deep = i % 2 ? [deep] : { a: deep };
      for (const text of ["{{.}}", "{{toJson .}}", "{{deepCopy . | len}}", "{{eq . .}}", '{{printf "%#v" .}}']) {
        const start = performance.now();
        const outcome = render(text, deep);
        assert.ok(performance.now() - start < TIME_LIMIT_MS, text);
        if ("error" in outcome) assert.doesNotMatch(outcome.error.message, CRASH_MESSAGE, `${text} at depth ${depth}`);
      }
    }
  });

  test("long flat inputs", () => {
    const n = 5_000;
    assert.deepEqual(render(`{{ 1${" | print".repeat(n)} }}`, null), { output: "1" });
    assert.deepEqual(render("{{.}}".repeat(n), "a"), { output: "a".repeat(n) });
    assert.deepEqual(render(`{{ $x := 0 }}${"{{ $x = add1 $x }}".repeat(n)}{{ $x }}`, null), { output: String(n) });
  });
});
