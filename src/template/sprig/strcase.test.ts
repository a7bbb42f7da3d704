import assert from "node:assert/strict";
import { test } from "node:test";
import {
  abbreviateFull,
  deleteWhiteSpace,
  goTitle,
  goToLower,
  goToUpper,
  initials,
  swapCase,
  toCamelCase,
  toKebabCase,
  toSnakeCase,
  trimSpace,
  uncapitalize,
  wrapCustom,
} from "./strcase.js";

// Expected values below were produced by Go 1.19 with goutils v1.1.1 and xstrings v1.3.3.

test("case mapping is per rune with Go's simple mappings", () => {
  assert.equal(goToUpper("ß straße ﬀ ᾀ İ ı"), "ß STRAßE ﬀ ᾈ İ I");
  assert.equal(goToLower("İ ΑΣ ẞ"), "i ασ ß");
  assert.equal(goTitle("ǆemal ნ ᾀ hello_world o'neil 3rd"), "ǅemal ნ ᾈ Hello_world O'Neil 3rd");
  assert.equal(trimSpace("\u00a0 hi\u2003\n"), "hi");
  assert.equal(trimSpace("\ufeffhi"), "\ufeffhi"); // U+FEFF is not a space in Go
});

test("goutils word functions", () => {
  assert.equal(uncapitalize("HELLO WORLD"), "hELLO wORLD");
  assert.equal(swapCase("hello wORLD ǅ"), "HELLO World ǆ");
  assert.equal(initials("hello big world"), "hbw");
  assert.equal(initials("élan vital"), "Ãv"); // byte-wise, as goutils does
  assert.equal(deleteWhiteSpace("héllo wörld"), "hÃ©llowÃ¶rld");
  assert.equal(deleteWhiteSpace("hé"), "hé");
  assert.equal(abbreviateFull("hello world", 0, 5), "he...");
  assert.equal(abbreviateFull("1234 5678 9123", 5, 10), "...5678...");
  assert.equal(wrapCustom("the quick brown fox jumps over", 10, "", false), "the quick\nbrown fox\njumps over");
  assert.equal(wrapCustom("abcdefg hi", 3, "", true), "abc\ndef\ng\nhi");
  assert.equal(wrapCustom("ab cd", 0, "", false), "ab\ncd");
});

test("xstrings case conversions", () => {
  const snake: Array<[string, string]> = [
    ["NoHTTPS", "no_https"],
    ["HTTPServer2Go v2API", "http_server2_go_v2_api"],
    ["GO-PATH", "go_path"],
    ["HTTP2Server", "http2_server"],
  ];
  for (const [i, o] of snake) assert.equal(toSnakeCase(i), o, i);
  assert.equal(toKebabCase("HTTPServer"), "http-server");
  assert.equal(toKebabCase("GO PATH"), "go-path");
  assert.equal(toCamelCase("hello world-foo"), "HelloWorldFoo");
  assert.equal(toCamelCase("_complex__case_"), "_Complex_Case_");
  assert.equal(toCamelCase("__"), "___"); // xstrings repeats a trailing connector
});
