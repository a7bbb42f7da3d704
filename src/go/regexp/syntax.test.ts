import assert from "node:assert/strict";
import { test } from "node:test";
import { GoRegexp } from "./regexp.js";
import { caseOrbit, parseRE2, quoteMeta, RE2SyntaxError } from "./syntax.js";

/** Compiles a Go pattern and returns its non-empty matches in s. */
function matches(pattern: string, s: string): string[] {
  return new GoRegexp(pattern).findAllString(s, -1).filter((m) => m !== "");
}

function syntaxError(pattern: string): string {
  try {
    parseRE2(pattern);
  } catch (e) {
    assert.ok(e instanceof RE2SyntaxError);
    return e.message;
  }
  assert.fail(`${pattern} compiled`);
}

// Messages and matches below were checked against Go 1.19's regexp.

test("rejects what RE2 rejects, with Go's messages", () => {
  const cases: Array<[string, string]> = [
    ["(?=x)", "invalid or unsupported Perl syntax: `(?=`"],
    ["(?<!x)", "invalid or unsupported Perl syntax: `(?<`"],
    ["(?<n>x)", "invalid or unsupported Perl syntax: `(?<`"],
    ["(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"],
    ["(a)\\1", "invalid escape sequence: `\\1`"],
    ["\\8", "invalid escape sequence: `\\8`"],
    ["\\Z", "invalid escape sequence: `\\Z`"],
    ["\\C", "invalid escape sequence: `\\C`"],
    ["\\x{110000}", "invalid escape sequence: `\\x{110000`"],
    ["a\\", "trailing backslash at end of expression: ``"],
    ["(a", "missing closing ): `(a`"],
    ["a)", "unexpected ): `a)`"],
    ["a[bc", "missing closing ]: `[bc`"],
    ["[z-a]", "invalid character class range: `z-a`"],
    ["[[:foo:]]", "invalid character class range: `[:foo:]`"],
    ["\\p{Foo}", "invalid character class range: `\\p{Foo}`"],
    ["a**?", "invalid nested repetition operator: `**?`"],
    ["a{2}{3}", "invalid nested repetition operator: `{2}{3}`"],
    ["*", "missing argument to repetition operator: `*`"],
    ["a|*?", "missing argument to repetition operator: `*?`"],
    ["(?i)*", "missing argument to repetition operator: `*`"],
    ["a{1001}", "invalid repeat count: `{1001}`"],
    ["((a{10}){10}){11}", "invalid repeat count: `{11}`"],
    ["(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"],
    ["(?P<n", "invalid named capture: `(?P<n`"],
    [
      `${"(".repeat(1000)}${")".repeat(1000)}`,
      `expression nests too deeply: \`${"(".repeat(1000)}${")".repeat(1000)}\``,
    ],
  ];
  for (const [p, msg] of cases) assert.equal(syntaxError(p), `error parsing regexp: ${msg}`, p);
});

test("accepts Go-only syntax", () => {
  assert.deepEqual(matches("a(?i)*", "aaa"), ["aaa"]); // the star applies to a
  assert.deepEqual(matches("^*x", "x"), ["x"]);
  assert.deepEqual(matches("x{,2}", "x{,2}"), ["x{,2}"]); // not a repeat: literal braces
  assert.deepEqual(matches("\\Q.*\\E+", ".*.**"), [".*", ".**"]);
  assert.deepEqual(matches("[]a]+", "]a]b"), ["]a]"]);
  assert.deepEqual(matches("\\x41\\x{42}\\101\\0", "ABA\0"), ["ABA\0"]);
  const t = parseRE2("(?P<first>\\w+) (?P<1x>\\w+)(x)");
  assert.equal(t.numCap, 3);
  assert.deepEqual(t.names, ["", "first", "1x", ""]);
});

test("flags and anchors", () => {
  assert.deepEqual(matches("(?i)hello", "Hello HELLO"), ["Hello", "HELLO"]);
  assert.deepEqual(matches("(?i)k", "kK\u212a"), ["k", "K", "\u212a"]);
  assert.deepEqual(matches("(?i:A)a", "aa Aa AA"), ["aa", "Aa"]);
  assert.deepEqual(matches("a(?i)b|c", "aB C"), ["aB", "C"]);
  assert.deepEqual(matches("((?i)a)a", "Aa AA"), ["Aa"]);
  assert.deepEqual(matches("(?U)a+", "aaa"), ["a", "a", "a"]);
  assert.deepEqual(matches(".+", "a\rb\u2028c\nd"), ["a\rb\u2028c", "d"]);
  assert.deepEqual(matches("(?s).+", "a\nb"), ["a\nb"]);
  assert.deepEqual(matches("(?m)^\\w+$", "l1\r\nl2\nl3"), ["l2", "l3"]);
  assert.deepEqual(matches("^\\w+$", "l1\nl2"), []);
  assert.deepEqual(matches("\\w+\\z", "ab\ncd"), ["cd"]);
});

test("classes", () => {
  assert.deepEqual(matches("\\s+", "a\u000b\u00a0b c"), [" "]);
  assert.deepEqual(matches("[[:alpha:]]+", "héllo"), ["h", "llo"]);
  assert.deepEqual(matches("[[:^alpha:][:digit:]]+", "ab1é2"), ["1é2"]);
  assert.deepEqual(matches("\\pL+", "héllo wörld"), ["héllo", "wörld"]);
  assert.deepEqual(matches("\\p{Greek}+", "abc αβγ"), ["αβγ"]);
  assert.deepEqual(matches("\\p{^L}+", "ab12cd"), ["12"]);
  assert.deepEqual(matches("(?i)\\W", "sſK\u212a!"), ["!"]); // Go folds \w to take in ſ and K (Kelvin)
  assert.deepEqual(matches("(?i)[^k]", "kK\u212ax"), ["x"]);
  assert.deepEqual(matches("(?i)\\P{Lu}+", "aBc1"), ["1"]);
  assert.deepEqual(matches("[\\d-z]+", "1-z"), ["1-z"]);
});

test("case orbits follow Go's simple folding", () => {
  assert.deepEqual(caseOrbit(0x6b), [0x4b, 0x6b, 0x212a]);
  assert.deepEqual(caseOrbit(0x73), [0x53, 0x73, 0x17f]);
  assert.deepEqual(caseOrbit(0x131), [0x131]); // dotless i folds with nothing
});

test("every Go script name is known to the matcher", () => {
  for (const name of ["Latin", "Greek", "Han", "Cyrillic", "Khitan_Small_Script", "Yezidi", "SignWriting"]) {
    assert.doesNotThrow(() => new GoRegexp(`\\p{${name}}`), name);
  }
});

test("quoteMeta", () => {
  assert.equal(quoteMeta("1.2.3"), "1\\.2\\.3");
  assert.equal(quoteMeta("a-b[c]{d}(e)|^$*+?\\"), "a-b\\[c\\]\\{d\\}\\(e\\)\\|\\^\\$\\*\\+\\?\\\\");
});
