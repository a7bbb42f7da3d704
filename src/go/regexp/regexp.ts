// biome-ignore-all lint/style/noNonNullAssertion: match indices and capture groups are read after the matcher says they exist; `!` marks those places
/**
 * Go's regexp package over RE2 syntax (syntax.ts): compiled patterns with Go's match-iteration rules
 * (FindAll skips an empty match right after a previous match; ReplaceAll never replaces an empty match
 * adjacent to the previous one; Split has its own edge cases) and Go's replacement expansion (`$1`,
 * `${1}`, `$name`; `$1x` names the group `1x`). Offsets are JS string indices; stepping by whole code
 * points gives the same matches as Go's stepping by UTF-8 sequences.
 *
 * regexp.MustCompile's panic text (`regexp: Compile(`x(`): error parsing regexp: ...`) is produced by
 * {@link mustCompile}; {@link compile} returns the compile error itself.
 */

import { type Matcher, RE2JS } from "re2js";
import { canBackquote, quote } from "../strconv.js";
import { GoError } from "../value.js";
import { parseRE2, RE2SyntaxError } from "./syntax.js";

/** Match positions: [start, end, group1start, group1end, ...], -1 for groups that did not take part. */
type Match = number[];

/** Width in UTF-16 units of the code point at i (0 at the end), i.e. one Go rune step. */
function runeWidth(s: string, i: number): number {
  if (i >= s.length) return 0;
  return s.codePointAt(i)! > 0xffff ? 2 : 1;
}

/** A compiled Go regular expression. */
export class GoRegexp {
  private readonly re: RE2JS;
  private readonly names: readonly string[];
  private readonly numCap: number;
  /** The matcher over the last subject, reused while the iteration rules below step through it. */
  private matcher: Matcher | undefined;
  private subject: string | undefined;

  /**
   * Compiles a Go pattern; throws {@link RE2SyntaxError} with Go's message when Go would reject it.
   * Matching runs on re2js (RE2's automata: linear in the input, never backtracking), so a pattern
   * such as `^(a+)+$` cannot stall the caller, and captures inside repeats keep their last
   * iteration as Go's do.
   */
  constructor(readonly expr: string) {
    const t = parseRE2(expr);
    this.re = RE2JS.compile(t.withoutNames);
    this.names = t.names;
    this.numCap = t.numCap;
  }

  /** The leftmost match starting at or after pos (the text before pos still counts for `\b` and `^`). */
  private exec(s: string, pos: number): Match | undefined {
    if (this.matcher === undefined || this.subject !== s) {
      this.matcher = this.re.matcher(s);
      this.subject = s;
    }
    const m = this.matcher;
    if (!m.find(pos)) return undefined;
    const out: Match = [];
    for (let g = 0; g <= this.numCap; g++) out.push(m.start(g), m.end(g));
    return out;
  }

  matchString(s: string): boolean {
    return this.exec(s, 0) !== undefined;
  }

  findString(s: string): string {
    const m = this.exec(s, 0);
    return m ? s.slice(m[0], m[1]) : "";
  }

  /** Go's allMatches: successive non-overlapping matches, at most n (all when n < 0). */
  findAllIndex(s: string, n: number): Match[] {
    const out: Match[] = [];
    let pos = 0;
    let prevEnd = -1;
    while ((n < 0 || out.length < n) && pos <= s.length) {
      const m = this.exec(s, pos);
      if (!m) break;
      let accept = true;
      if (m[1] === pos) {
        // An empty match: dropped when it touches the previous match; step one rune either way.
        if (m[0] === prevEnd) accept = false;
        const w = runeWidth(s, pos);
        pos = w > 0 ? pos + w : s.length + 1;
      } else {
        pos = m[1]!;
      }
      prevEnd = m[1]!;
      if (accept) out.push(m);
    }
    return out;
  }

  findAllString(s: string, n: number): string[] {
    return this.findAllIndex(s, n).map((m) => s.slice(m[0], m[1]));
  }

  /** Go's replaceAll loop; `repl` renders one match. */
  private replace(src: string, repl: (m: Match) => string): string {
    let out = "";
    let lastEnd = 0;
    let search = 0;
    while (search <= src.length) {
      const m = this.exec(src, search);
      if (!m) break;
      out += src.slice(lastEnd, m[0]);
      // No replacement for an empty match right after the previous match.
      if (m[1]! > lastEnd || m[0] === 0) out += repl(m);
      lastEnd = m[1]!;
      // Advance at least one rune past the search position (the rune there, as Go measures it).
      const w = runeWidth(src, search);
      if (search + w > m[1]!) search += w;
      else if (search + 1 > m[1]!) search++;
      else search = m[1]!;
    }
    return out + src.slice(lastEnd);
  }

  replaceAllLiteralString(src: string, repl: string): string {
    return this.replace(src, () => repl);
  }

  replaceAllString(src: string, template: string): string {
    return this.replace(src, (m) => this.expand(template, src, m));
  }

  /** Go's Regexp.Expand: `$$` is `$`; `$name`/`${name}` take the longest name; unknown groups expand to "". */
  expand(template: string, src: string, m: Match): string {
    let out = "";
    let rest = template;
    for (;;) {
      const dollar = rest.indexOf("$");
      if (dollar < 0) break;
      out += rest.slice(0, dollar);
      rest = rest.slice(dollar + 1);
      if (rest.startsWith("$")) {
        out += "$";
        rest = rest.slice(1);
        continue;
      }
      const ref = extractRef(rest);
      if (!ref) {
        out += "$"; // malformed: the $ is literal text
        continue;
      }
      rest = ref.rest;
      if (ref.num >= 0) {
        if (2 * ref.num + 1 < m.length && m[2 * ref.num]! >= 0) out += src.slice(m[2 * ref.num], m[2 * ref.num + 1]);
      } else {
        for (let i = 0; i < this.names.length; i++) {
          if (this.names[i] === ref.name && 2 * i + 1 < m.length && m[2 * i]! >= 0) {
            out += src.slice(m[2 * i], m[2 * i + 1]);
            break;
          }
        }
      }
    }
    return out + rest;
  }

  /** Go's Regexp.Split. */
  split(s: string, n: number): string[] {
    if (n === 0) return [];
    if (this.expr.length > 0 && s.length === 0) return [""];
    const out: string[] = [];
    let beg = 0;
    let end = 0;
    for (const m of this.findAllIndex(s, n)) {
      if (n > 0 && out.length >= n - 1) break;
      end = m[0]!;
      if (m[1] !== 0) out.push(s.slice(beg, end));
      beg = m[1]!;
    }
    if (end !== s.length) out.push(s.slice(beg));
    return out;
  }

  /** Number of capturing groups (Go's NumSubexp). */
  numSubexp(): number {
    return this.numCap;
  }
}

const NAME_CHAR = /^[\p{L}\p{Nd}_]$/u;

/** Parses the group reference after a `$`: a name of letters, digits and '_', optionally in braces. */
function extractRef(s: string): { name: string; num: number; rest: string } | undefined {
  let i = 0;
  const brace = s.startsWith("{");
  if (brace) i = 1;
  const startName = i;
  while (i < s.length) {
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (!NAME_CHAR.test(ch)) break;
    i += ch.length;
  }
  if (i === startName) return undefined;
  const name = s.slice(startName, i);
  if (brace) {
    if (s[i] !== "}") return undefined;
    i++;
  }
  // A name of ASCII digits (no leading zero, below 1e8) is a group number.
  let num = -1;
  if (/^[0-9]+$/.test(name) && !(name.length > 1 && name[0] === "0")) {
    num = name.length > 8 ? -1 : Number(name);
  }
  return { name, num, rest: s.slice(i) };
}

// ---- compiling, with Go's error reporting --------------------------------------------------------

const cache = new Map<string, GoRegexp>();
const CACHE_LIMIT = 500;

/** regexp.Compile: a compiled pattern (cached) or Go's compile error. */
export function compile(expr: string): GoRegexp {
  let re = cache.get(expr);
  if (re) return re;
  try {
    re = new GoRegexp(expr);
  } catch (e) {
    if (e instanceof RE2SyntaxError) throw new GoError(e.message);
    throw new GoError(`error parsing regexp: ${(e as Error).message}: \`${expr}\``);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(expr, re);
  return re;
}

/** regexp.MustCompile: the compile error becomes the text of Go's panic. */
export function mustCompile(expr: string): GoRegexp {
  try {
    return compile(expr);
  } catch (e) {
    const shown = canBackquote(expr) ? `\`${expr}\`` : quote(expr);
    throw new GoError(`regexp: Compile(${shown}): ${(e as Error).message}`);
  }
}
