import assert from "node:assert/strict";
import { test } from "node:test";
import {
  joinYamlStream,
  mapYamlStream,
  splitYamlStream,
  splitYamlStreamAt,
  YamlStreamError,
  YamlStreamSplitter,
} from "./stream.js";

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

/** `text` in pieces of `size` characters. */
const piecesOf = (text: string, size: number) => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

test("YamlStreamSplitter gives splitYamlStream's documents, with their lines, for pieces cut anywhere", () => {
  const texts = [
    "a: 1\n---\nb: 2\n",
    "---\na: 1\n---\n---\nb: 2",
    "# c\n\na: |\n  x\n--- # comment\r\nb: 2\r\n...\n---\n%YAML 1.1\n---\nc: 3",
    "a: 1\r\n---\r\n\r\nb: [\r\n  2]\r",
    "",
    "\n\n",
  ];
  for (const text of texts) {
    const whole = splitYamlStreamAt(text);
    assert.deepEqual(
      whole.map((d) => d.text),
      splitYamlStream(text),
    );
    for (let size = 1; size <= text.length; size++) {
      const splitter = new YamlStreamSplitter();
      const docs = piecesOf(text, size).flatMap((piece) => splitter.push(piece));
      docs.push(...splitter.end());
      assert.deepEqual(docs, whole, `${JSON.stringify(text)} in pieces of ${size}`);
    }
  }
  assert.deepEqual(splitYamlStreamAt("# c\n---\n\na: 1\n---\n---\nb: 2\n"), [
    { text: "# c\n", line: 1 },
    { text: "\na: 1\n", line: 3 },
    { text: "b: 2\n", line: 7 },
  ]);
});

test("a bad separator is an error naming its line in the whole stream, however the stream is cut", () => {
  const text = "a: 1\n---\nb: 2\nc: 3\n--- x\nd: 4\n";
  for (let size = 1; size <= text.length; size++) {
    const splitter = new YamlStreamSplitter();
    assert.throws(
      () => {
        for (const piece of piecesOf(text, size)) splitter.push(piece);
        splitter.end();
      },
      (e: unknown) =>
        e instanceof YamlStreamError && e.line === 5 && e.message === "invalid Yaml document separator: x",
    );
  }
});

test("mapYamlStream gives each document's result before reading further than the piece that ends it", async () => {
  const docs = Array.from({ length: 50 }, (_, i) => `name: d${i}\nvalue: ${i}\n`);
  // One piece per line: the stream's reader counts how far it has been read.
  const lines = docs.join("---\n").split(/(?<=\n)/);
  let read = 0;
  async function* source() {
    for (const line of lines) {
      read++;
      yield line;
    }
  }
  const seen: number[] = [];
  let index = 0;
  for await (const out of mapYamlStream(source(), (raw, i) => `${i}:${raw.text}`)) {
    assert.equal(out, `${index}:${docs[index]}`);
    // Document i ends at its separator line: 3 lines per document; nothing after it has been read.
    if (index < docs.length - 1) assert.equal(read, 3 * (index + 1), `read ahead at document ${index + 1}`);
    seen.push(index++);
  }
  assert.equal(seen.length, docs.length);
});
