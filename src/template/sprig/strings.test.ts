// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
import assert from "node:assert/strict";
import { test } from "node:test";
import { GoError, type GoValue, newMap, TypedNil, typeName, withGoType } from "../../go/value.js";
import { stringsFuncs, strslice, strval } from "./strings.js";

const call = (name: string, ...args: GoValue[]) => stringsFuncs[name]!.fn(...args);
const goErr = (msg: string) => (e: unknown) => e instanceof GoError && e.message === msg;

// Expected values below were checked against Go 1.19 + Sprig 3.2.3.

test("byte-oriented slicing", () => {
  assert.equal(call("trunc", 3n, "héllo"), "hé");
  assert.equal(call("trunc", -5n, "hello world"), "world");
  assert.equal(call("trunc", -999n, "abc"), "abc");
  assert.equal(call("substr", 1n, 3n, "abcdef"), "bc");
  assert.equal(call("substr", -1n, 2n, "abcdef"), "ab");
  assert.equal(call("substr", 2n, -1n, "abcdef"), "cdef");
  assert.throws(() => call("substr", 4n, 2n, "abcdef"), goErr("runtime error: slice bounds out of range [4:2]"));
  assert.throws(
    () => call("substr", -1n, 5n, "abc"),
    goErr("runtime error: slice bounds out of range [:5] with length 3"),
  );
  assert.throws(() => call("substr", -1n, -1n, "abc"), goErr("runtime error: slice bounds out of range [:-1]"));
  assert.throws(() => call("substr", 5n, -1n, "abc"), goErr("runtime error: slice bounds out of range [5:3]"));
  assert.equal(call("abbrev", 5n, "hello world"), "he...");
  assert.equal(call("abbrev", 3n, "hello world"), "hello world");
  assert.equal(call("abbrevboth", 0n, 5n, "1234 5678"), "12...");
});

test("repeat, indent and their panics", () => {
  assert.equal(call("repeat", 3n, "ab"), "ababab");
  assert.equal(call("repeat", 0n, ""), "");
  assert.throws(() => call("repeat", -1n, ""), goErr("strings: negative Repeat count"));
  assert.equal(call("indent", 2n, "a\r\nb"), "  a\r\n  b");
  assert.equal(call("nindent", 2n, "a\nb"), "\n  a\n  b");
  assert.throws(() => call("indent", -2n, "a"), goErr("strings: negative Repeat count"));
});

test("trimming, replacing, predicates", () => {
  assert.equal(call("trim", "  \t\n hi \n "), "hi");
  assert.equal(call("trimAll", "xy", "xyxhixyy"), "hi");
  assert.equal(call("trimall", "$", "$5$"), "5");
  assert.equal(call("trimPrefix", "a", "aab"), "ab");
  assert.equal(call("trimSuffix", "b", "abb"), "ab");
  assert.equal(call("replace", "", "-", "héllo"), "-h-é-l-l-o-");
  assert.equal(call("replace", "a", "b", "banana"), "bbnbnb");
  assert.equal(call("contains", "", "x"), true);
  assert.equal(call("hasPrefix", "he", "hello"), true);
  assert.equal(call("hasSuffix", "he", "hello"), false);
  assert.equal(call("plural", "one", "many", 1n), "one");
  assert.equal(call("plural", "one", "many", -1n), "many");
  assert.equal(call("nospace", "a b\tc"), "abc");
});

test("case functions", () => {
  assert.equal(call("upper", "hello wörld"), "HELLO WÖRLD");
  assert.equal(call("title", "hello world-foo bar_baz"), "Hello World-Foo Bar_baz");
  assert.equal(call("snakecase", "GO_PATH"), "go_path");
  assert.equal(call("camelcase", "no_https"), "NoHttps");
  assert.equal(call("kebabcase", "FirstName"), "first-name");
  assert.equal(call("swapcase", "Hello World"), "hELLO wORLD");
  assert.equal(call("initials", "hello big world"), "hbw");
  assert.equal(call("wrapWith", 5n, "\t", "Hello World"), "Hello\tWorld");
});

test("split family", () => {
  const m = call("split", "$", "foo$bar$baz") as Record<string, GoValue>;
  assert.equal(typeName(m), "map[string]string");
  assert.deepEqual({ ...m }, { _0: "foo", _1: "bar", _2: "baz" });
  assert.deepEqual({ ...(call("splitn", "", 2n, "abc") as object) }, { _0: "a", _1: "bc" });
  assert.deepEqual({ ...(call("splitn", ",", 0n, "a,b") as object) }, {});
  assert.deepEqual({ ...(call("split", "", "") as object) }, {});
  const l = call("splitList", ",", "a,b,,c");
  assert.deepEqual(l, ["a", "b", "", "c"]);
  assert.equal(typeName(l), "[]string");
  assert.deepEqual(call("splitList", "", ""), []);
});

test("quote, squote, cat, join, sortAlpha", () => {
  assert.equal(call("quote", 'a"b\\c\nd\te'), '"a\\"b\\\\c\\nd\\te"');
  assert.equal(call("quote", "a", null, "b"), '"a" "b"');
  assert.equal(call("quote"), "");
  assert.equal(call("quote", 1n, true), '"1" "true"');
  assert.equal(call("squote", "a", 1.5), "'a' '1.5'");
  assert.equal(call("cat", "a", 1n, true, null, "b"), "a 1 true b");
  assert.equal(call("join", ",", ["a", 1n, null]), "a,1");
  assert.equal(call("join", ",", "abc"), "abc");
  assert.equal(call("join", ",", null), "");
  assert.deepEqual(call("sortAlpha", ["b", 10n, 9n, "C", "a"]), ["10", "9", "C", "a", "b"]);
  assert.deepEqual(call("sortAlpha", null), ["<nil>"]);
  assert.deepEqual(call("sortAlpha", "cba"), ["cba"]);
  // A []string is sorted in place, as Go's sort.Strings on the same slice.
  const list = withGoType(["b", "a"], "[]string");
  call("sortAlpha", list);
  assert.deepEqual(list, ["a", "b"]);
});

test("strval and strslice", () => {
  assert.equal(strval("x"), "x");
  assert.equal(strval(new TextEncoder().encode("hé")), "hé");
  assert.equal(strval(12n), "12");
  assert.equal(strval(null), "<nil>");
  assert.deepEqual(strslice(null), []);
  assert.deepEqual(strslice(new TypedNil("[]string")), []);
  assert.deepEqual(strslice(new Uint8Array([104, 105])), ["104", "105"]);
  assert.deepEqual(strslice(newMap()), ["map[]"]);
});

test("random strings use the right alphabets", () => {
  assert.match(call("randAlphaNum", 40n) as string, /^[A-Za-z0-9]{40}$/);
  assert.match(call("randAlpha", 40n) as string, /^[A-Za-z]{40}$/);
  assert.match(call("randNumeric", 40n) as string, /^[0-9]{40}$/);
  assert.match(call("randAscii", 40n) as string, /^[\x20-\x7e]{40}$/);
  assert.equal(call("randAlpha", -1n), "");
  const s = call("shuffle", "héllo wörld") as string;
  assert.deepEqual(Array.from(s).sort(), Array.from("héllo wörld").sort());
});

test("declared with Sprig's Go signatures", () => {
  const sig = (n: string) => [
    ...stringsFuncs[n]!.params,
    ...(stringsFuncs[n]!.variadic ? [`...${stringsFuncs[n]!.variadic}`] : []),
  ];
  assert.deepEqual(sig("upper"), ["string"]);
  assert.deepEqual(sig("trunc"), ["int", "string"]);
  assert.deepEqual(sig("quote"), ["...any"]);
  assert.deepEqual(sig("substr"), ["int", "int", "string"]);
  assert.deepEqual(sig("splitn"), ["string", "int", "string"]);
  assert.deepEqual(sig("join"), ["string", "any"]);
  assert.deepEqual(sig("wrapWith"), ["int", "string", "string"]);
});
