import assert from "node:assert/strict";
import { test } from "node:test";
import { readStream } from "./read-stream.js";

const fail = (message: string, cause: Error) => new Error(message, { cause });

test("reads each document with where it stands", () => {
  assert.deepEqual(readStream("a: 1\n---\nb: yes\n", "f.yaml", fail), [
    { obj: { a: 1 }, where: "f.yaml: document 1" },
    { obj: { b: true }, where: "f.yaml: document 2" },
  ]);
});

test("a document that cannot be read is the caller's error, on one line, naming it", () => {
  assert.throws(
    () => readStream("a: 1\n---\nb: [\n", "f.yaml", fail),
    (e: unknown) => e instanceof Error && /^f\.yaml: document 2: yaml: /.test(e.message) && !e.message.includes("\n"),
  );
});
