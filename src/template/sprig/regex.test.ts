// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Go's os.ExpandEnv and regexp replacement templates are written ${name} in plain strings, which is what these tests feed
import assert from "node:assert/strict";
import { test } from "node:test";
import { GoRegexp } from "../../go/regexp/regexp.js";
import { GoError, type GoValue, typeName } from "../../go/value.js";
import { regexFuncs } from "./regex.js";

const call = (name: string, ...args: GoValue[]) => regexFuncs[name]!.fn(...args);
const goErr = (msg: string) => (e: unknown) => e instanceof GoError && e.message === msg;

// Expected values below were checked against Go 1.19 + Sprig 3.2.3.

test("FindAll skips empty matches next to a previous match", () => {
  const re = new GoRegexp("a*");
  assert.deepEqual(re.findAllString("baaac", -1), ["", "aaa", ""]);
  assert.deepEqual(re.findAllString("baaac", 2), ["", "aaa"]);
  assert.deepEqual(new GoRegexp("").findAllString("héllo", -1), ["", "", "", "", "", ""]);
  assert.deepEqual(new GoRegexp("x*").findAllString("😀😀", -1), ["", "", ""]);
});

test("ReplaceAll follows Go's empty-match and expansion rules", () => {
  assert.equal(call("regexReplaceAll", "a*", "baaac", "-"), "-b-c-");
  assert.equal(call("regexReplaceAll", "a(x*)b", "-ab-axxb-", "$1W"), "---"); // $1W names group "1W"
  assert.equal(call("regexReplaceAll", "a(x*)b", "-ab-axxb-", "${1}W"), "-W-xxW-");
  assert.equal(
    call("regexReplaceAll", "(?P<first>\\w+) (?P<last>\\w+)", "John Smith", "${last}, $first $$ $"),
    "Smith, John $ $",
  );
  assert.equal(call("regexReplaceAll", "(a)|b", "ab", "[$1|$2|${x]"), "[a||${x][||${x]");
  assert.equal(call("regexReplaceAll", "(?P<x>a)|(?P<x>b)", "ab", "<$x>"), "<a><b>");
  assert.equal(call("regexReplaceAllLiteral", "a(x*)b", "-ab-axxb-", "${1}"), "-${1}-${1}-");
});

test("Split", () => {
  const split = (p: string, s: string, n: bigint) => call("regexSplit", p, s, n);
  assert.deepEqual(split("a", "banana", -1n), ["b", "n", "n", ""]);
  assert.deepEqual(split("a", "banana", 0n), []);
  assert.deepEqual(split("a", "banana", 2n), ["b", "nana"]);
  assert.deepEqual(split("", "abc", -1n), ["a", "b", "c"]);
  assert.deepEqual(split("x*", "", -1n), [""]);
  assert.deepEqual(split("", "", -1n), []);
  assert.equal(typeName(split("a", "banana", -1n)), "[]string");
});

test("compile errors: panics for plain variants, errors for must- variants, false for regexMatch", () => {
  assert.equal(call("regexMatch", "(", "x"), false);
  assert.throws(
    () => call("regexFind", "(?=x)", "abc"),
    goErr("regexp: Compile(`(?=x)`): error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
  );
  assert.throws(
    () => call("regexFindAll", "`(", "abc", -1n),
    goErr('regexp: Compile("`("): error parsing regexp: missing closing ): ``(`'),
  );
  assert.throws(
    () => call("mustRegexFind", "(?=x)", "abc"),
    goErr("error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
  );
  assert.throws(
    () => call("mustRegexMatch", "a**", "a"),
    goErr("error parsing regexp: invalid nested repetition operator: `**`"),
  );
});

test("the functions", () => {
  assert.equal(call("regexMatch", "^v[0-9]+$", "v12"), true);
  assert.equal(call("mustRegexMatch", "^v[0-9]+$", "v12a"), false);
  assert.equal(call("regexFind", "[é]+", "caféé!"), "éé");
  assert.equal(call("mustRegexFind", "fo.?", "none"), "");
  assert.deepEqual(call("regexFindAll", "a{2}", "aaaaa", -1n), ["aa", "aa"]);
  assert.deepEqual(call("mustRegexFindAll", "a", "aaa", 2n), ["a", "a"]);
  assert.deepEqual(call("mustRegexSplit", ",", "a,b", -1n), ["a", "b"]);
  assert.equal(call("mustRegexReplaceAll", "b+", "abbc", "X"), "aXc");
  assert.equal(call("mustRegexReplaceAllLiteral", "b+", "abbc", "$0"), "a$0c");
  assert.equal(call("regexQuoteMeta", "1.2.3"), "1\\.2\\.3");
  assert.deepEqual(regexFuncs.regexFindAll!.params, ["string", "string", "int"]);
  assert.equal(regexFuncs.mustRegexFind!.returns, "(string, error)");
});

// Regressions from the JS-engine translation (issue 9): JS's backtracking made nested repeats
// exponential, and JS clears a group's capture on each new iteration of the repeat around it.
test("nested repeats match in linear time (a backtracking engine would not finish)", { timeout: 20_000 }, () => {
  // 2^40 paths for a backtracking engine; RE2's automata read each byte once.
  assert.equal(call("regexMatch", "^(a+)+$", `${"a".repeat(40)}b`), false);
  assert.equal(call("regexMatch", "^(a+)+$", "a".repeat(40)), true);
});

test("a capture inside a repeat keeps its last participating iteration, as in Go", () => {
  assert.equal(call("regexReplaceAll", "(?:(a)|b)+", "ab", "[$1]"), "[a]");
  assert.deepEqual(new GoRegexp("(?:(a)|b)+").findAllIndex("ab", -1), [[0, 2, 0, 1]]);
});
