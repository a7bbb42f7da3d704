// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Go's regular-expression syntax (RE2, as Go 1.19's regexp/syntax parses it with the Perl flags
 * `regexp.Compile` uses): decides whether a pattern is valid and reports Go's errors with Go's text
 * (`error parsing regexp: invalid or unsupported Perl syntax: `(?=``), so what RE2 rejects (lookaround,
 * backreferences, possessive or stacked repeats, repeat counts over 1000, nesting too deep...) is
 * rejected here with the message Go gives. It also gives the capture count and the group names by
 * number (Go's SubexpNames).
 *
 * Matching is not done here: regexp.ts runs the pattern on re2js, a linear-time port of RE2, whose own
 * error texts differ from Go's. The parser still builds each class's members (ranges, Unicode
 * properties, case orbits) as it did when it translated patterns for the JS engine; what a class
 * holds is no longer used beyond validating it.
 */

const MAX_RUNE = 0x10ffff;

/** A syntax error with Go's message: `error parsing regexp: CODE: `EXPR``. */
export class RE2SyntaxError extends Error {
  constructor(
    readonly code: string,
    readonly expr: string,
  ) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = "RE2SyntaxError";
  }
}

const ERR = {
  invalidCharRange: "invalid character class range",
  invalidEscape: "invalid escape sequence",
  invalidNamedCapture: "invalid named capture",
  invalidPerlOp: "invalid or unsupported Perl syntax",
  invalidRepeatOp: "invalid nested repetition operator",
  invalidRepeatSize: "invalid repeat count",
  missingBracket: "missing closing ]",
  missingParen: "missing closing )",
  missingRepeatArgument: "missing argument to repetition operator",
  trailingBackslash: "trailing backslash at end of expression",
  unexpectedParen: "unexpected )",
  nestingDepth: "expression nests too deeply",
} as const;

/** What the parser tells about a valid pattern. */
export interface ParsedRegexp {
  /**
   * The pattern with each `(?P<name>` opener made a plain `(`: Go 1.19 accepts names RE2 engines
   * refuse (the same name twice), and the names are known from {@link names} anyway.
   */
  readonly withoutNames: string;
  /** Number of capturing groups. */
  readonly numCap: number;
  /** Group names by group number; index 0 (the whole match) and unnamed groups are "". */
  readonly names: readonly string[];
}

// ---- case folding -------------------------------------------------------------------------------

let orbitOf: Map<number, number[]> | undefined;
let foldable: number[] = [];

/** The single code point a JS case mapping produces, or undefined. */
function singleCp(s: string): number | undefined {
  const cp = s.codePointAt(0);
  return cp !== undefined && s.length === (cp > 0xffff ? 2 : 1) ? cp : undefined;
}

/**
 * Builds the case orbits Go's unicode.SimpleFold walks: code points linked by their simple upper
 * and lower case mappings (all cased scripts sit below U+20000). ı (U+0131) uppercases to I but
 * does not fold with it in Go (nor in Unicode's CaseFolding), so that one link is left out.
 */
function buildOrbits(): Map<number, number[]> {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  for (let cp = 0; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const s = String.fromCodePoint(cp);
    const up = singleCp(s.toUpperCase());
    const low = singleCp(s.toLowerCase());
    if (up !== undefined && up !== cp && cp !== 0x131) union(cp, up);
    if (low !== undefined && low !== cp) union(cp, low);
  }
  const groups = new Map<number, number[]>();
  for (const cp of parent.keys()) {
    const root = find(cp);
    const g = groups.get(root);
    if (g) g.push(cp);
    else groups.set(root, [cp]);
  }
  const out = new Map<number, number[]>();
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    g.sort((a, b) => a - b);
    for (const cp of g) out.set(cp, g);
  }
  foldable = [...out.keys()].sort((a, b) => a - b);
  return out;
}

/** The code points equivalent to cp under Go's simple case folding (cp itself included). */
export function caseOrbit(cp: number): readonly number[] {
  orbitOf ??= buildOrbits();
  return orbitOf.get(cp) ?? [cp];
}

/** Adds lo..hi and everything case-equivalent to a member of it. */
function addFoldedRange(out: Range[], lo: number, hi: number): void {
  out.push([lo, hi]);
  orbitOf ??= buildOrbits();
  // First foldable code point >= lo (binary search).
  let a = 0;
  let b = foldable.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (foldable[mid]! < lo) a = mid + 1;
    else b = mid;
  }
  for (let i = a; i < foldable.length && foldable[i]! <= hi; i++) {
    for (const c of orbitOf.get(foldable[i]!)!) out.push([c, c]);
  }
}

// ---- code point sets ----------------------------------------------------------------------------

type Range = [number, number];

/** Sorts and merges overlapping or adjacent ranges. */
function normalize(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const out: Range[] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_RUNE) out.push([next, MAX_RUNE]);
  return out;
}

/** Go's Perl (\d \s \w) and POSIX ([:alpha:]) classes: ASCII ranges. */
const PERL_GROUPS: Record<string, Range[]> = {
  d: [[0x30, 0x39]],
  s: [
    [0x09, 0x0a],
    [0x0c, 0x0d],
    [0x20, 0x20],
  ],
  w: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
};

const POSIX_GROUPS: Record<string, Range[]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

/** Go 1.19's unicode.Categories names. */
const CATEGORIES = new Set(
  "C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs".split(" "),
);

/** Go 1.19's unicode.Scripts names. */
const SCRIPTS = new Set(
  (
    "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki " +
    "Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee " +
    "Chorasmian Common Coptic Cuneiform Cypriot Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan " +
    "Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati " +
    "Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited " +
    "Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kayah_Li Kharoshthi " +
    "Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian " +
    "Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui " +
    "Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nandinagari " +
    "New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic " +
    "Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Oriya Osage Osmanya " +
    "Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra " +
    "Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac " +
    "Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta " +
    "Ugaritic Vai Wancho Warang_Citi Yezidi Yi Zanabazar_Square"
  ).split(" "),
);

/** The JS class body for a Go Unicode table name, or undefined when Go does not know the name. */
function unicodeTableBody(name: string): string | undefined {
  if (name === "Any") return "\\u{0}-\\u{10ffff}";
  if (name === "C") return "\\p{Cc}\\p{Cf}\\p{Co}\\p{Cs}"; // Go's C leaves out unassigned code points
  if (CATEGORIES.has(name)) return `\\p{${name}}`;
  if (SCRIPTS.has(name)) return `\\p{Script=${name}}`;
  return undefined;
}

// ---- syntax tree --------------------------------------------------------------------------------

/**
 * A character class as a union of explicit ranges, JS property escapes, and complemented JS class
 * bodies (what a negated \P{...} becomes once case folding has widened it).
 */
interface CharClass {
  ranges: Range[];
}

type Node =
  | { k: "lit"; cp: number; fold: boolean }
  | { k: "class"; cls: CharClass; negated: boolean }
  | { k: "dot"; nl: boolean }
  | { k: "assert"; js: string }
  | { k: "cap"; index: number; sub: Node }
  | { k: "group"; sub: Node }
  | { k: "cat"; subs: Node[] }
  | { k: "alt"; subs: Node[] }
  | { k: "rep"; min: number; max: number; greedy: boolean; counted: boolean; sub: Node };

interface Flags {
  /** (?i): case-insensitive. */
  i: boolean;
  /** (?m): ^ and $ match at line boundaries (Go's flag clears OneLine). */
  m: boolean;
  /** (?s): . matches \n. */
  s: boolean;
  /** (?U): repetition operators are lazy by default. */
  U: boolean;
}

/** Go's limit on the height of the syntax tree. */
const MAX_HEIGHT = 1000;
/**
 * Our own bound on group nesting, which keeps the recursive parser well inside the JS stack.
 * Go counts only tree height, so it accepts deeper stacks of non-capturing groups than this.
 */
const MAX_DEPTH = 1000;

/**
 * The height of the tree as Go's parser builds it: non-capturing groups are no nodes, and a
 * concatenation or alternation directly inside another of its kind merges into it.
 */
function goHeight(n: Node): number {
  switch (n.k) {
    case "group":
      return goHeight(n.sub);
    case "cap":
    case "rep":
      return 1 + goHeight(n.sub);
    case "cat":
    case "alt": {
      let h = 0;
      for (const c of n.subs) h = Math.max(h, c.k === "group" && c.sub.k === n.k ? goHeight(c.sub) - 1 : goHeight(c));
      return 1 + h;
    }
    default:
      return 1;
  }
}

/** Go's limit on `{n,m}`: no more than 1000 copies of anything, counting nested repeats. */
function repeatIsValid(n: Node, limit: number): boolean {
  if (n.k === "rep" && n.counted) {
    let m = n.max;
    if (m === 0) return true;
    if (m < 0) m = n.min;
    if (m > limit) return false;
    if (m > 0) limit = Math.floor(limit / m);
  }
  switch (n.k) {
    case "cap":
    case "group":
    case "rep":
      return repeatIsValid(n.sub, limit);
    case "cat":
    case "alt":
      return n.subs.every((s) => repeatIsValid(s, limit));
    default:
      return true;
  }
}

const isAsciiAlnum = (c: string | undefined) => c !== undefined && /^[0-9A-Za-z]$/.test(c);
const isOctal = (c: string | undefined) => c !== undefined && c >= "0" && c <= "7";

function unhex(c: string | undefined): number {
  if (c === undefined || !/^[0-9A-Fa-f]$/.test(c)) return -1;
  return Number.parseInt(c, 16);
}

class Parser {
  private pos = 0;
  private flags: Flags = { i: false, m: false, s: false, U: false };
  private depth = 0;
  numCap = 0;
  readonly names: string[] = [""];
  /** Where each `(?P<name>` opener stands: [start, end) in the pattern. */
  readonly namePrefixes: Array<[number, number]> = [];

  constructor(private readonly src: string) {}

  parse(): Node {
    const n = this.parseAlt();
    // parseAlt stops only at the end or at a ')' that closes nothing.
    if (this.pos < this.src.length) throw new RE2SyntaxError(ERR.unexpectedParen, this.src);
    if (goHeight(n) > MAX_HEIGHT) throw new RE2SyntaxError(ERR.nestingDepth, this.src);
    return n;
  }

  /** The code point at i and its length in UTF-16 units (undefined at the end). */
  private runeAt(i: number): [string | undefined, number] {
    if (i >= this.src.length) return [undefined, 0];
    const cp = this.src.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    return [this.src.slice(i, i + w), w];
  }

  private parseAlt(): Node {
    const subs = [this.parseConcat()];
    while (this.src[this.pos] === "|") {
      this.pos++;
      subs.push(this.parseConcat());
    }
    return subs.length === 1 ? subs[0]! : { k: "alt", subs };
  }

  private parseConcat(): Node {
    const items: Node[] = [];
    // Where the previous token's repetition operator started, when the previous token was one:
    // Go rejects stacked operators such as a** or a{2}{3}.
    let lastRepeat = -1;
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (c === "|" || c === ")") break;
      let repeatStart = -1;
      switch (c) {
        case "(": {
          const group = src[this.pos + 1] === "?" ? this.parsePerlFlags() : this.parseCapture("");
          if (group) items.push(group);
          break;
        }
        case "^":
          items.push({ k: "assert", js: this.flags.m ? "(?<![^\\n])" : "^" });
          this.pos++;
          break;
        case "$":
          items.push({ k: "assert", js: this.flags.m ? "(?![^\\n])" : "$" });
          this.pos++;
          break;
        case ".":
          items.push({ k: "dot", nl: this.flags.s });
          this.pos++;
          break;
        case "[":
          items.push(this.parseClass());
          break;
        case "*":
        case "+":
        case "?": {
          repeatStart = this.pos;
          this.pos++;
          const [min, max] = c === "*" ? [0, -1] : c === "+" ? [1, -1] : [0, 1];
          this.applyRepeat(items, min, max, false, repeatStart, lastRepeat);
          break;
        }
        case "{": {
          const rep = this.parseRepeatBraces();
          if (!rep) {
            items.push(this.literal(0x7b));
            this.pos++;
            break;
          }
          const [min, max, end] = rep;
          if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) {
            throw new RE2SyntaxError(ERR.invalidRepeatSize, src.slice(this.pos, end));
          }
          repeatStart = this.pos;
          this.pos = end;
          this.applyRepeat(items, min, max, true, repeatStart, lastRepeat);
          break;
        }
        case "\\":
          this.parseBackslash(items);
          break;
        default: {
          const [ch, w] = this.runeAt(this.pos);
          items.push(this.literal(ch!.codePointAt(0)!));
          this.pos += w;
        }
      }
      lastRepeat = repeatStart;
    }
    return items.length === 1 ? items[0]! : { k: "cat", subs: items };
  }

  private literal(cp: number): Node {
    return { k: "lit", cp, fold: this.flags.i };
  }

  /** Applies a repetition operator (already consumed) to the last item. */
  private applyRepeat(
    items: Node[],
    min: number,
    max: number,
    counted: boolean,
    start: number,
    lastRepeat: number,
  ): void {
    let greedy = !this.flags.U;
    if (this.src[this.pos] === "?") {
      this.pos++;
      greedy = !greedy;
    }
    if (lastRepeat >= 0) throw new RE2SyntaxError(ERR.invalidRepeatOp, this.src.slice(lastRepeat, this.pos));
    const sub = items.pop();
    if (!sub) throw new RE2SyntaxError(ERR.missingRepeatArgument, this.src.slice(start, this.pos));
    const rep: Node = { k: "rep", min, max, greedy, counted, sub };
    if (counted && (min >= 2 || max >= 2) && !repeatIsValid(rep, 1000)) {
      throw new RE2SyntaxError(ERR.invalidRepeatSize, this.src.slice(start, this.pos));
    }
    items.push(rep);
  }

  /** Parses `{n}`, `{n,}` or `{n,m}` at pos: [min, max (-1: none), end], min -1 when too big; undefined if not a repeat. */
  private parseRepeatBraces(): [number, number, number] | undefined {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 64));
    if (!m) return undefined;
    // Go rejects leading zeros, which makes the brace a literal.
    const bad = (d: string) => d.length > 1 && d[0] === "0";
    if (bad(m[1]!) || (m[3] && bad(m[3]))) return undefined;
    const num = (d: string) => (d.length > 8 ? -1 : Number(d)); // Go gives up at 1e8
    let min = num(m[1]!);
    let max = min;
    if (m[2] !== undefined) {
      max = m[3] === "" ? -1 : num(m[3]!);
      if (m[3] !== "" && max < 0) min = -1;
    }
    return [min, max, this.pos + m[0].length];
  }

  private enterGroup(): void {
    if (++this.depth > MAX_DEPTH) throw new RE2SyntaxError(ERR.nestingDepth, this.src);
  }

  /** Parses a group body up to its `)`, with the flags restored afterwards. */
  private groupBody(): Node {
    const saved = this.flags;
    this.enterGroup();
    const body = this.parseAlt();
    if (this.pos >= this.src.length) throw new RE2SyntaxError(ERR.missingParen, this.src);
    this.pos++; // )
    this.depth--;
    this.flags = saved;
    return body;
  }

  /** A capturing group; pos is at `(` or just past a `(?P<name>` prefix. */
  private parseCapture(name: string): Node {
    if (name === "") this.pos++;
    const index = ++this.numCap;
    this.names.push(name);
    return { k: "cap", index, sub: this.groupBody() };
  }

  /** Parses `(?P<name>`, `(?flags)`, `(?flags:` at pos. Returns the group, or null for a flags-only change. */
  private parsePerlFlags(): Node | null {
    const src = this.src;
    const start = this.pos;
    if (src.length - start > 4 && src[start + 2] === "P" && src[start + 3] === "<") {
      const end = src.indexOf(">", start);
      if (end < 0) throw new RE2SyntaxError(ERR.invalidNamedCapture, src.slice(start));
      const name = src.slice(start + 4, end);
      if (!/^[0-9A-Za-z_]+$/.test(name)) throw new RE2SyntaxError(ERR.invalidNamedCapture, src.slice(start, end + 1));
      this.pos = end + 1;
      this.namePrefixes.push([start, end + 1]);
      return this.parseCapture(name);
    }
    this.pos += 2;
    const flags = { ...this.flags };
    let negate = false;
    let sawFlag = false;
    while (this.pos < src.length) {
      const [c, w] = this.runeAt(this.pos);
      this.pos += w;
      switch (c) {
        case "i":
        case "s":
        case "U":
        case "m":
          flags[c] = !negate;
          sawFlag = true;
          continue;
        case "-":
          if (negate) break;
          negate = true;
          sawFlag = false;
          continue;
        case ":":
        case ")": {
          if (negate && !sawFlag) break;
          if (c === ")") {
            this.flags = flags;
            return null;
          }
          const saved = this.flags;
          this.flags = flags;
          const body = this.groupBody();
          this.flags = saved;
          return { k: "group", sub: body };
        }
      }
      break;
    }
    throw new RE2SyntaxError(ERR.invalidPerlOp, src.slice(start, this.pos));
  }

  /** A backslash outside a class: anchors, \Q...\E, Unicode and Perl classes, or an escaped character. */
  private parseBackslash(items: Node[]): void {
    const src = this.src;
    const next = src[this.pos + 1];
    switch (next) {
      case "A":
        items.push({ k: "assert", js: "^" });
        this.pos += 2;
        return;
      case "z":
        items.push({ k: "assert", js: "$" });
        this.pos += 2;
        return;
      case "b":
        items.push({ k: "assert", js: "\\b" }); // ASCII word boundary, as JS's without the i flag
        this.pos += 2;
        return;
      case "B":
        items.push({ k: "assert", js: "\\B" });
        this.pos += 2;
        return;
      case "C":
        throw new RE2SyntaxError(ERR.invalidEscape, "\\C");
      case "Q": {
        let end = src.indexOf("\\E", this.pos + 2);
        if (end < 0) end = src.length;
        for (const ch of src.slice(this.pos + 2, end)) items.push(this.literal(ch.codePointAt(0)!));
        this.pos = Math.min(end + 2, src.length);
        return;
      }
    }
    const cls: CharClass = { ranges: [] };
    if (next === "p" || next === "P") {
      this.parseUnicodeClass(cls);
      items.push({ k: "class", cls, negated: false });
      return;
    }
    if (this.parsePerlClass(cls)) {
      items.push({ k: "class", cls, negated: false });
      return;
    }
    items.push(this.literal(this.parseEscape()));
  }

  /** Adds a Perl class (\d \D \s \S \w \W) at pos, if there is one. */
  private parsePerlClass(cls: CharClass): boolean {
    const letter = this.src[this.pos + 1];
    if (this.src[this.pos] !== "\\" || letter === undefined) return false;
    const group = PERL_GROUPS[letter.toLowerCase()];
    if (!group || !/[dswDSW]/.test(letter)) return false;
    this.addGroup(cls, group, letter === letter.toUpperCase());
    this.pos += 2;
    return true;
  }

  /** Adds an ASCII group, folded under (?i) and then complemented when negated, as Go does. */
  private addGroup(cls: CharClass, group: Range[], negated: boolean): void {
    let ranges: Range[] = group;
    if (this.flags.i) {
      ranges = [];
      for (const [lo, hi] of group) addFoldedRange(ranges, lo, hi);
    }
    cls.ranges.push(...(negated ? complement(ranges) : ranges));
  }

  /** Parses \pX, \p{Name}, \p{^Name}, \PX... at pos into cls. */
  private parseUnicodeClass(_cls: CharClass): void {
    const src = this.src;
    const start = this.pos;
    const [c, w] = this.runeAt(start + 2);
    let seq: string;
    let name: string;
    if (c !== "{") {
      seq = src.slice(start, start + 2 + w);
      name = c ?? "";
      this.pos = start + 2 + w;
    } else {
      const end = src.indexOf("}", start);
      if (end < 0) throw new RE2SyntaxError(ERR.invalidCharRange, src.slice(start));
      seq = src.slice(start, end + 1);
      name = src.slice(start + 3, end);
      this.pos = end + 1;
    }
    if (name.startsWith("^")) name = name.slice(1);
    // Only validity matters here: the matcher (re2js) reads the pattern itself.
    if (unicodeTableBody(name) === undefined) throw new RE2SyntaxError(ERR.invalidCharRange, seq);
  }

  /** Parses an escape sequence at pos (a backslash) and returns its code point. */
  private parseEscape(): number {
    const src = this.src;
    const start = this.pos;
    if (start + 1 >= src.length) throw new RE2SyntaxError(ERR.trailingBackslash, "");
    const [c, w] = this.runeAt(start + 1);
    let t = start + 1 + w;
    const fail = (): never => {
      throw new RE2SyntaxError(ERR.invalidEscape, src.slice(start, t));
    };
    const ch = c!;
    if (ch >= "1" && ch <= "7" && !isOctal(src[t])) fail(); // a backreference
    if (ch >= "0" && ch <= "7") {
      // Up to three octal digits.
      let r = ch.charCodeAt(0) - 48;
      for (let i = 1; i < 3 && isOctal(src[t]); i++) r = r * 8 + (src.charCodeAt(t++) - 48);
      this.pos = t;
      return r;
    }
    switch (ch) {
      case "x": {
        if (t >= src.length) fail();
        const [c2, w2] = this.runeAt(t);
        t += w2;
        if (c2 === "{") {
          let r = 0;
          let digits = 0;
          for (;;) {
            if (t >= src.length) fail();
            const [d, wd] = this.runeAt(t);
            t += wd;
            if (d === "}") break;
            const v = unhex(d);
            if (v < 0) fail();
            r = r * 16 + v;
            if (r > MAX_RUNE) fail();
            digits++;
          }
          if (digits === 0) fail();
          this.pos = t;
          return r;
        }
        const x = unhex(c2);
        const [c3, w3] = this.runeAt(t);
        t += w3;
        const y = unhex(c3);
        if (x < 0 || y < 0) fail();
        this.pos = t;
        return x * 16 + y;
      }
      case "a":
        this.pos = t;
        return 7;
      case "f":
        this.pos = t;
        return 12;
      case "n":
        this.pos = t;
        return 10;
      case "r":
        this.pos = t;
        return 13;
      case "t":
        this.pos = t;
        return 9;
      case "v":
        this.pos = t;
        return 11;
    }
    // Escaped ASCII punctuation stands for itself; letters and digits not handled above are errors.
    if (ch.codePointAt(0)! < 0x80 && !isAsciiAlnum(ch)) {
      this.pos = t;
      return ch.codePointAt(0)!;
    }
    return fail();
  }

  /** Parses a bracketed class at pos. */
  private parseClass(): Node {
    const src = this.src;
    const whole = src.slice(this.pos); // Go's "missing closing ]" shows the rest of the pattern
    this.pos++;
    let negated = false;
    if (src[this.pos] === "^") {
      negated = true;
      this.pos++;
    }
    const cls: CharClass = { ranges: [] };
    let first = true;
    while (this.pos >= src.length || src[this.pos] !== "]" || first) {
      first = false;
      // POSIX [:alpha:] and [:^alpha:].
      if (src.startsWith("[:", this.pos) && src.length - this.pos > 2) {
        const end = src.indexOf(":]", this.pos + 2);
        if (end >= 0) {
          const name = src.slice(this.pos, end + 2);
          const neg = name[2] === "^";
          const group = Object.hasOwn(POSIX_GROUPS, name.slice(neg ? 3 : 2, -2))
            ? POSIX_GROUPS[name.slice(neg ? 3 : 2, -2)]
            : undefined;
          if (!group) throw new RE2SyntaxError(ERR.invalidCharRange, name);
          this.addGroup(cls, group, neg);
          this.pos = end + 2;
          continue;
        }
      }
      if (src[this.pos] === "\\" && (src[this.pos + 1] === "p" || src[this.pos + 1] === "P")) {
        this.parseUnicodeClass(cls);
        continue;
      }
      if (this.parsePerlClass(cls)) continue;
      // A single character or a range.
      const rangeStart = this.pos;
      const lo = this.classChar(whole);
      let hi = lo;
      if (src[this.pos] === "-" && this.pos + 1 < src.length && src[this.pos + 1] !== "]") {
        this.pos++;
        hi = this.classChar(whole);
        if (hi < lo) throw new RE2SyntaxError(ERR.invalidCharRange, src.slice(rangeStart, this.pos));
      }
      if (this.flags.i) addFoldedRange(cls.ranges, lo, hi);
      else cls.ranges.push([lo, hi]);
    }
    this.pos++; // ]
    return { k: "class", cls, negated };
  }

  private classChar(whole: string): number {
    if (this.pos >= this.src.length) throw new RE2SyntaxError(ERR.missingBracket, whole);
    if (this.src[this.pos] === "\\") return this.parseEscape();
    const [ch, w] = this.runeAt(this.pos);
    this.pos += w;
    return ch!.codePointAt(0)!;
  }
}

// ---- emitting JavaScript ------------------------------------------------------------------------

/** Parses a Go regular expression; throws {@link RE2SyntaxError} where Go's regexp.Compile fails. */
export function parseRE2(pattern: string): ParsedRegexp {
  const p = new Parser(pattern);
  p.parse();
  let withoutNames = "";
  let from = 0;
  for (const [start, end] of p.namePrefixes) {
    withoutNames += `${pattern.slice(from, start)}(`;
    from = end;
  }
  withoutNames += pattern.slice(from);
  return { numCap: p.numCap, names: p.names, withoutNames };
}

/** Go's regexp.QuoteMeta: backslash-escapes the characters that are special in a pattern. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}
