// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's environment and flow-control functions: `env` (os.Getenv), `expandenv` (os.ExpandEnv),
 * `hello` and `fail`. The environment is the execution's host's (see host.ts), never `process.env`.
 */
import { GoError, type GoFunc, goFunc } from "../../go/value.js";
import { type Execution, executionFunc } from "../execution.js";

/** os.Getenv through the host: an unset variable reads as "". */
function getenv(run: Execution, name: string): string {
  return run.host.env(name) ?? "";
}

// Shell special parameters that os.Expand accepts as one-character names ($1, $?, ${#}...).
const SPECIAL = new Set(["*", "#", "$", "@", "!", "?", "-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
const ALNUM = /[A-Za-z0-9_]/;

/**
 * Reads the variable name after a `$` (s is the text after it). Returns the name and how many
 * characters it used; an empty name with a positive width means bad syntax that Go swallows
 * (`${}`, an unterminated `${`), an empty name with width 0 leaves the `$` as it is.
 */
function shellName(s: string): [string, number] {
  if (s[0] === "{") {
    if (s.length > 2 && SPECIAL.has(s[1]!) && s[2] === "}") return [s[1]!, 3];
    const close = s.indexOf("}", 1);
    if (close === 1) return ["", 2];
    if (close < 0) return ["", 1];
    return [s.slice(1, close), close + 1];
  }
  if (SPECIAL.has(s[0]!)) return [s[0]!, 1];
  let i = 0;
  while (i < s.length && ALNUM.test(s[i]!)) i++;
  return [s.slice(0, i), i];
}

/** os.Expand: replaces `$var` and `${var}` using `lookup`. */
export function expand(s: string, lookup: (name: string) => string): string {
  let out = "";
  let copied = 0;
  let expanded = false;
  for (let j = 0; j < s.length; j++) {
    if (s[j] !== "$" || j + 1 >= s.length) continue;
    expanded = true;
    out += s.slice(copied, j);
    const [name, width] = shellName(s.slice(j + 1));
    if (name !== "") out += lookup(name);
    else if (width === 0) out += "$";
    j += width;
    copied = j + 1;
  }
  return expanded ? out + s.slice(copied) : s;
}

export const osFuncs: Record<string, GoFunc> = {
  env: executionFunc("env", ["string"], (run, name) => getenv(run, name as string), "string"),
  expandenv: executionFunc("expandenv", ["string"], (run, s) => expand(s as string, (n) => getenv(run, n)), "string"),
  hello: goFunc("hello", [], () => "Hello!", "string"),
  fail: goFunc(
    "fail",
    ["string"],
    (msg) => {
      throw new GoError(msg as string);
    },
    "(string, error)",
  ),
};
