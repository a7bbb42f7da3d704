// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
import assert from "node:assert/strict";
import { test } from "node:test";
import { pathsFuncs } from "./paths.js";

const call = (name: string, arg: string) => pathsFuncs[name]!.fn(arg);

// Expected values were checked against Go 1.19 (path and path/filepath on Linux).
const cases: Array<[string, string, unknown]> = [
  ["base", "", "."],
  ["base", "/", "/"],
  ["base", "a/b/", "b"],
  ["base", "//", "/"],
  ["base", "/usr/lib/x.so", "x.so"],
  ["dir", "", "."],
  ["dir", "/a", "/"],
  ["dir", "a", "."],
  ["dir", "a/b/", "a/b"],
  ["dir", "//a//b", "/a"],
  ["clean", "../../a/./b/../c/", "../../a/c"],
  ["clean", "/../a", "/a"],
  ["clean", "a/..", "."],
  ["clean", "a/../..", ".."],
  ["clean", "//", "/"],
  ["clean", "", "."],
  ["ext", "a/b.c/d", ""],
  ["ext", "x.tar.gz", ".gz"],
  ["ext", "a.", "."],
  ["isAbs", "/x", true],
  ["isAbs", "x/y", false],
];

test("path functions follow Go's path package", () => {
  for (const [name, arg, want] of cases) {
    assert.equal(call(name, arg), want, `${name} ${JSON.stringify(arg)}`);
    assert.equal(call(`os${name[0]!.toUpperCase()}${name.slice(1)}`, arg), want, `os ${name} ${JSON.stringify(arg)}`);
  }
});

test("declared with Go signatures", () => {
  assert.deepEqual(pathsFuncs.base!.params, ["string"]);
  assert.equal(pathsFuncs.isAbs!.returns, "bool");
});
