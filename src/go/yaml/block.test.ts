import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import { splitYamlStream } from "../../kube/stream.js";
import { readBlockYaml, UNSUPPORTED } from "./block.js";
import { readYamlFully } from "./read.js";
import { writeYaml } from "./write.js";

const CORPUS = new URL("../../../../shared/conformance/istio-inject/", import.meta.url).pathname;
const DEFAULTS = new URL("../../inject/defaults/", import.meta.url).pathname;

/** The fast reader either declines or agrees with the full parser (which must then accept the text). */
function agrees(text: string): boolean {
  const fast = readBlockYaml(text);
  if (fast === UNSUPPORTED) return false;
  let full: unknown;
  try {
    full = readYamlFully(text);
  } catch (e) {
    assert.fail(
      `the fast reader accepted text the full parser rejects (${(e as Error).message}): ${JSON.stringify(text)}`,
    );
  }
  assert.deepEqual(fast, full, JSON.stringify(text));
  assert.equal(JSON.stringify(fast), JSON.stringify(full), JSON.stringify(text));
  return true;
}

test("readBlockYaml: the subset, read as the full parser reads it", () => {
  const accepted = [
    "a: 1\nb: \"2\"\nc: 'it''s'\nd: yes\ne: ~\nf: 0777\ng: 1e3\nh: 2020-01-02\ni: 1_000\n",
    "a:\n- x\n- w: 1\n  z: [1, 'a', \"b\", {k: v}]\nb: {}\nc: []\n",
    "- name: a # comment\n  value: |\n    line 1\n\n    line 3\n- name: b\n  value: |-\n    [\n    ]\n",
    "annotations: {\n  a: \"x\",\n  b: 'y',\n}\nk: v\n",
    '{"holdApplicationUntilProxyStarts": true}\n',
    '# leading comment\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          args: ["--a", --b]\n',
  ];
  for (const text of accepted) assert.ok(agrees(text), `declined: ${JSON.stringify(text)}`);
});

test("readBlockYaml: declines what it cannot read with certainty", () => {
  const declined = [
    "",
    "# only a comment\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "m:\n  <<: {x: 1}\n",
    "a: 1\na: 2\n",
    "1: one\n",
    "y: 1\n",
    "a: plain\n  continued\n",
    "a: 'multi\n  line'\n",
    'a: "esc\\n"\n',
    "a: >\n  folded\n",
    "a: |+\n  kept\n",
    "a: |\n  no final break",
    "a:\tb\n",
    "a: é\n",
    "---\na: 1\n",
    "a: b\n  c: d: e\n",
    "a: .inf\n",
    "a: [b\n c]\n",
    "__proto__: 1\n",
  ];
  for (const text of declined) assert.equal(readBlockYaml(text), UNSUPPORTED, JSON.stringify(text));
});

test("readBlockYaml agrees with the full parser on the goldens and the default templates' config", () => {
  const files = [
    ...(existsSync(CORPUS) ? readdirSync(CORPUS).map((f) => CORPUS + f) : []),
    ...readdirSync(DEFAULTS)
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => DEFAULTS + f),
  ];
  let read = 0;
  for (const file of files) {
    if (!/\.(ya?ml|injected)/.test(file)) continue;
    let docs: string[];
    try {
      docs = splitYamlStream(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    for (const doc of docs) if (agrees(doc)) read++;
  }
  assert.ok(read > 0);
});

test("readBlockYaml agrees with the full parser on written and then damaged YAML", () => {
  const key = fc.constantFrom("name", "value", "a", "b-c", "x.io/y", "y", "1", "$patch", "<<", "k k", "");
  const scalar = fc.oneof(
    fc.constantFrom("", " ", "yes", "~", "0777", "1e3", "- x", "a: b", "a #b", "'q'", '"d"', "x\ny", "x\n", "[]", "{}"),
    fc.string({ maxLength: 12 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("node"), { maxLength: 3 }),
      fc.dictionary(key, tie("node"), { maxKeys: 3 }),
    ),
  })).node;
  const edit = fc.tuple(
    fc.nat(),
    fc.constantFrom("", " ", "  ", "\n", "- ", ": ", "#", " #", "'", '"', "|", "|-", "[", "]", "{", "}", ",", "\n  "),
    fc.nat(3),
  );
  fc.assert(
    fc.property(value, fc.array(edit, { maxLength: 3 }), (v, edits) => {
      let text = writeYaml(v);
      agrees(text);
      for (const [at, insert, cut] of edits) {
        const p = at % (text.length + 1);
        text = text.slice(0, p) + insert + text.slice(p + cut);
      }
      agrees(text);
    }),
    { numRuns: 1500 },
  );
});
