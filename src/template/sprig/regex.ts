// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's regular-expression functions (regex.go, Sprig v3.2.3) over Go's regexp (src/go/regexp).
 *
 * Sprig's plain variants call regexp.MustCompile, whose panic the template engine reports as
 * an error; the must- variants return the compile error itself. regexMatch alone swallows the
 * error and answers false.
 */

import { compile, mustCompile } from "../../go/regexp/regexp.js";
import { quoteMeta } from "../../go/regexp/syntax.js";
import { type GoFunc, type GoValue, goFunc, withGoType } from "../../go/value.js";

/** An int argument as a match count; counts beyond any string length behave alike. */
function count(n: GoValue): number {
  const v = n as bigint;
  if (v < 0n) return -1;
  return v > 0x7fffffffn ? 0x7fffffff : Number(v);
}

const S = (v: GoValue) => v as string;
const strings = (a: string[]) => withGoType(a, "[]string");

export const regexFuncs: Record<string, GoFunc> = {
  regexMatch: goFunc(
    "regexMatch",
    ["string", "string"],
    (regex, s) => {
      try {
        return compile(S(regex)).matchString(S(s));
      } catch {
        return false;
      }
    },
    "bool",
  ),
  mustRegexMatch: goFunc(
    "mustRegexMatch",
    ["string", "string"],
    (regex, s) => compile(S(regex)).matchString(S(s)),
    "(bool, error)",
  ),
  regexFindAll: goFunc(
    "regexFindAll",
    ["string", "string", "int"],
    (regex, s, n) => strings(mustCompile(S(regex)).findAllString(S(s), count(n))),
    "[]string",
  ),
  mustRegexFindAll: goFunc(
    "mustRegexFindAll",
    ["string", "string", "int"],
    (regex, s, n) => strings(compile(S(regex)).findAllString(S(s), count(n))),
    "([]string, error)",
  ),
  regexFind: goFunc("regexFind", ["string", "string"], (regex, s) => mustCompile(S(regex)).findString(S(s)), "string"),
  mustRegexFind: goFunc(
    "mustRegexFind",
    ["string", "string"],
    (regex, s) => compile(S(regex)).findString(S(s)),
    "(string, error)",
  ),
  regexReplaceAll: goFunc(
    "regexReplaceAll",
    ["string", "string", "string"],
    (regex, s, repl) => mustCompile(S(regex)).replaceAllString(S(s), S(repl)),
    "string",
  ),
  mustRegexReplaceAll: goFunc(
    "mustRegexReplaceAll",
    ["string", "string", "string"],
    (regex, s, repl) => compile(S(regex)).replaceAllString(S(s), S(repl)),
    "(string, error)",
  ),
  regexReplaceAllLiteral: goFunc(
    "regexReplaceAllLiteral",
    ["string", "string", "string"],
    (regex, s, repl) => mustCompile(S(regex)).replaceAllLiteralString(S(s), S(repl)),
    "string",
  ),
  mustRegexReplaceAllLiteral: goFunc(
    "mustRegexReplaceAllLiteral",
    ["string", "string", "string"],
    (regex, s, repl) => compile(S(regex)).replaceAllLiteralString(S(s), S(repl)),
    "(string, error)",
  ),
  regexSplit: goFunc(
    "regexSplit",
    ["string", "string", "int"],
    (regex, s, n) => strings(mustCompile(S(regex)).split(S(s), count(n))),
    "[]string",
  ),
  mustRegexSplit: goFunc(
    "mustRegexSplit",
    ["string", "string", "int"],
    (regex, s, n) => strings(compile(S(regex)).split(S(s), count(n))),
    "([]string, error)",
  ),
  regexQuoteMeta: goFunc("regexQuoteMeta", ["string"], (s) => quoteMeta(S(s)), "string"),
};
