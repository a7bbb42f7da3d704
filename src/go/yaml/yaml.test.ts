import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import { splitYamlStream } from "../../kube/stream.js";
import { readYaml, YamlError } from "./read.js";
import { plainIsString, resolvePlain, WORDS } from "./resolve.js";
import { compareYamlKeys, writeYaml } from "./write.js";

const CORPUS = new URL("../../../../shared/conformance/istio-inject/", import.meta.url).pathname;

test("readYaml: go-yaml v2 scalars through JSON", () => {
  const v = readYaml(
    "a: yes\nb: n\nc: On\nd: ~\ne: 0777\nf: 0x1F\ng: 1e3\nh: 2020-01-02\ni: '15'\nj: 1_000\nk: .5\nl: <<\n1: one\ntrue: t\n",
  );
  assert.deepEqual(v, {
    a: true,
    b: false,
    c: true,
    d: null,
    e: 511,
    f: 31,
    g: 1000,
    h: "2020-01-02",
    i: "15",
    j: 1000,
    k: 0.5,
    l: "<<",
    "1": "one",
    true: "t",
  });
  assert.deepEqual(readYaml("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n"), { base: { x: 1 }, m: { x: 1, true: 2 } });
  assert.equal(readYaml(""), null);
  assert.equal(readYaml("# only a comment\n"), null);
});

test("readYaml: errors carry line and column", () => {
  assert.throws(
    () => readYaml("a: b\n  c: d: e\n"),
    (e: unknown) => e instanceof YamlError && /line \d+, column \d+/.test(e.message),
  );
  assert.throws(() => readYaml("? ~\n: v\n"), YamlError);
});

test("resolvePlain follows go-yaml's resolve", () => {
  assert.equal(resolvePlain("y").tag, "bool");
  assert.equal(resolvePlain("08").tag, "float");
  assert.equal(resolvePlain("1:2").tag, "str");
  assert.equal(resolvePlain("2020-02-30").tag, "str");
  assert.equal(resolvePlain("2020-1-2T3:04:05Z").tag, "timestamp");
  assert.equal(resolvePlain("1e400").tag, "str");
  assert.equal(resolvePlain("<<").tag, "str");
  // Decimals: ints as strconv reads them (a leading zero is octal; 16 digits and more go through BigInt).
  assert.deepEqual(resolvePlain("0"), { tag: "int", value: 0, text: "0" });
  assert.deepEqual(resolvePlain("15001"), { tag: "int", value: 15001, text: "15001" });
  assert.deepEqual(resolvePlain("007"), { tag: "int", value: 7, text: "007" });
  assert.deepEqual(resolvePlain("999999999999999"), { tag: "int", value: 999999999999999, text: "999999999999999" });
  assert.deepEqual(resolvePlain("12345678901234567"), {
    tag: "int",
    value: 12345678901234568,
    text: "12345678901234567",
  });
  assert.deepEqual(resolvePlain("1_000"), { tag: "int", value: 1000, text: "1000" });
  assert.deepEqual(resolvePlain("09"), { tag: "float", value: 9 });
});

test('plainIsString is resolvePlain(text).tag === "str"', () => {
  const texts = [
    ...WORDS.keys(),
    ...["a", "z", "yes!", "nope", "off-by-one", "~x", ".", ".5", ".x", "+", "-", "-1", "+1.5", "0x1F", "0777", "1_000"],
    ...["1e3", "2020-01-02", "12:30", "<<", "=", "/path", "_x", "Nan", ".NaN", "-.inf", "+.Inf", "{}", "[", " a", "é"],
  ];
  for (const t of texts) assert.equal(plainIsString(t), resolvePlain(t).tag === "str", JSON.stringify(t));
  fc.assert(
    fc.property(fc.string({ maxLength: 8 }), (t) => plainIsString(t) === (resolvePlain(t).tag === "str")),
    { numRuns: 2000 },
  );
});

test("writeYaml: sigs.k8s.io/yaml style", () => {
  assert.equal(
    writeYaml({ b: ["15001", "", "*", "x y", true, 1.5, 1e6, null], a: { z: {}, y: [] }, c: "line1\nline2\n" }),
    'a:\n  "y": []\n  z: {}\nb:\n- "15001"\n- ""\n- \'*\'\n- x y\n- true\n- 1.5\n- 1000000\n- null\nc: |\n  line1\n  line2\n',
  );
  assert.equal(writeYaml({ k: "no trailing\nnewline" }), "k: |-\n  no trailing\n  newline\n");
  assert.equal(writeYaml({ k: "12:30", t: "tab\there", e: "it's" }), 'e: it\'s\nk: "12:30"\nt: "tab\\there"\n');
  assert.equal(writeYaml({ k: "on", n: "1e3", d: "2020-01-02" }), 'd: "2020-01-02"\nk: "on"\n"n": "1e3"\n');
  const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
  assert.equal(
    writeYaml({ k: long }),
    "k: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n" +
      "  word13 word14 word15 word16 word17 word18 word19 word20 word21 word22 word23 word24\n" +
      "  word25 word26 word27 word28 word29\n",
  );
  assert.equal(writeYaml([[1, 2], { a: 1 }]), "- - 1\n  - 2\n- a: 1\n");
  assert.equal(writeYaml("x"), "x\n");
});

test("compareYamlKeys: digit runs compare as numbers", () => {
  assert.deepEqual(["a10", "a9", "b", "B", "a-1", "a"].sort(compareYamlKeys), ["B", "a", "a-1", "a9", "a10", "b"]);
});

test("golden round trip: every generated want.yaml document reads and writes back byte for byte", () => {
  if (!existsSync(CORPUS)) return;
  let total = 0;
  let identical = 0;
  const failures: string[] = [];
  for (const name of readdirSync(CORPUS).sort()) {
    const want = `${CORPUS}${name}/want.yaml`;
    if (!existsSync(want)) continue;
    const inputs = new Set(splitYamlStream(readFileSync(`${CORPUS}${name}/input.yaml`, "utf8")));
    for (const doc of splitYamlStream(readFileSync(want, "utf8"))) {
      // Documents that kube-inject copies verbatim keep the author's formatting.
      if (inputs.has(doc)) continue;
      total++;
      if (writeYaml(readYaml(doc)) === doc) identical++;
      else failures.push(name);
    }
  }
  assert.ok(total > 90, `expected the istio-inject corpus, found ${total} documents`);
  assert.deepEqual(failures, [], `${identical}/${total} byte-identical`);
});
