import assert from "node:assert/strict";
import { test } from "node:test";
import { joinYamlStream, splitYamlStream, YamlStreamError } from "./stream.js";

test("splits on --- lines, keeps chunks raw, skips empty ones", () => {
  assert.deepEqual(splitYamlStream("a: 1\n---\nb: 2\n"), ["a: 1\n", "b: 2\n"]);
  assert.deepEqual(splitYamlStream("---\na: 1\n---\n---\nb: 2"), ["a: 1\n", "b: 2\n"]);
  assert.deepEqual(splitYamlStream("a: |\n  x\n--- # comment\nb: 2\n"), ["a: |\n  x\n", "b: 2\n"]);
  assert.deepEqual(splitYamlStream("# c\n\na: 1\n"), ["# c\n\na: 1\n"]);
  assert.deepEqual(splitYamlStream(""), []);
});

test("line endings as the Kubernetes LineReader gives them", () => {
  assert.deepEqual(splitYamlStream("a: 1\r\n---\r\nb: 2\r\n"), ["a: 1\n", "b: 2\n"]);
  assert.deepEqual(splitYamlStream("a: 1"), ["a: 1\n"]);
});

test("text after a separator is an error", () => {
  assert.throws(() => splitYamlStream("a: 1\n---foo\nb: 2\n"), YamlStreamError);
  assert.throws(() => splitYamlStream("---- x\n"), /invalid Yaml document separator: - x/);
});

test("joinYamlStream follows every document with ---", () => {
  assert.equal(joinYamlStream(["a: 1\n", "b: 2\n"]), "a: 1\n---\nb: 2\n---\n");
});
