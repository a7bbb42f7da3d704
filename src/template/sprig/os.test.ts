// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Go's os.ExpandEnv and regexp replacement templates are written ${name} in plain strings, which is what these tests feed
import assert from "node:assert/strict";
import { test } from "node:test";
import { GoError } from "../../go/value.js";
import { templateHost } from "../host.js";
import { parse } from "../template.js";
import { sprigFuncs } from "./index.js";
import { expand, osFuncs } from "./os.js";

test("expand follows os.Expand", () => {
  const env: Record<string, string> = { HOME: "/root", "1": "one", "a b": "sp" };
  const look = (n: string) => env[n] ?? "";
  // Checked against Go 1.19's os.ExpandEnv.
  assert.equal(expand("$HOME|${HOME}|$|${}|${|$$|$1|${HOME|a$-b|$é", look), "/root|/root|$||||one|HOME|ab|$é");
  assert.equal(expand("no dollars", look), "no dollars");
  assert.equal(expand("$", look), "$");
  assert.equal(expand("x${a b}y", look), "xspy");
  assert.equal(expand("${1}${HOME}x", look), "one/rootx");
});

// Regression (issue 9): expandenv read process.env even when the caller's host said nothing is set.
test("env and expandenv read the host's environment only", () => {
  process.env.MESHINJECT_SPRIG_TEST = "from-process";
  try {
    const text = '{{ env "MESHINJECT_SPRIG_TEST" }}|{{ expandenv "[$MESHINJECT_SPRIG_TEST]" }}';
    const t = parse("t", text, { funcs: sprigFuncs });
    assert.equal(t.execute(null), "|[]");
    const host = templateHost({ env: (n) => (n === "MESHINJECT_SPRIG_TEST" ? "v" : undefined) });
    assert.equal(t.execute(null, host), "v|[v]");
  } finally {
    delete process.env.MESHINJECT_SPRIG_TEST;
  }
});

test("hello and fail", () => {
  assert.equal(osFuncs.hello!.fn(), "Hello!");
  assert.throws(
    () => osFuncs.fail!.fn("boom"),
    (e: unknown) => e instanceof GoError && e.message === "boom",
  );
  assert.deepEqual(osFuncs.fail!.params, ["string"]);
});
