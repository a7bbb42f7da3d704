/**
 * Writing YAML as Kubernetes does: `writeYaml` is `sigs.k8s.io/yaml.Marshal` of a JSON value — go-yaml
 * v2's emitter with its defaults: keys in go-yaml's natural order, two-space indentation, block
 * sequences not indented under a mapping key, scalar styles chosen by go-yaml's analysis (plain, then
 * single quotes, then double quotes; `|` literal blocks for multi-line strings) and long scalars folded
 * at spaces past column 80.
 */
import { formatFloat } from "../strconv.js";
import { plainIsString, WORDS } from "./resolve.js";

const BEST_INDENT = 2;
const BEST_WIDTH = 80;

/** Writes a JSON-shaped value as `sigs.k8s.io/yaml.Marshal` does (always ends with a newline). */
export function writeYaml(value: unknown): string {
  const e = new Emitter();
  e.value(value, ROOT);
  e.writeIndent();
  return flattened(e.out);
}

/**
 * `s` as one flat string. The emitter builds its output with `+=`, which V8 keeps as a rope (a node
 * per piece, several times the memory of the text) until something reads a character; a document
 * kept after writing (a stream's output held by its reader, a test's expected text) would hold the
 * rope, and the garbage collector would copy it from generation to generation. Reading one
 * character makes V8 flatten it once, in place.
 */
function flattened(s: string): string {
  s.charCodeAt(0);
  return s;
}

/** Go-yaml's order for the string keys of a map (sorter.go: digit runs compare as numbers). */
export function compareYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  return yamlKeyLess(a, b) ? -1 : 1;
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

const NON_ASCII = /[\u0080-\uffff]/;

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isAsciiDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function yamlKeyLess(a: string, b: string): boolean {
  if (!NON_ASCII.test(a) && !NON_ASCII.test(b)) return asciiKeyLess(a, b);
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i] as string;
    const y = br[i] as string;
    if (x === y) continue;
    const al = LETTER.test(x);
    const bl = LETTER.test(y);
    if (al && bl) return cp(x) < cp(y);
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (x === "0" || y === "0") {
      for (let j = i - 1; j >= 0 && DIGIT.test(ar[j] as string); j--) {
        if (ar[j] !== "0") {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && DIGIT.test(ar[ai] as string); ai++) an = an * 10 + (cp(ar[ai] as string) - 48);
    let bi = i;
    for (; bi < br.length && DIGIT.test(br[bi] as string); bi++) bn = bn * 10 + (cp(br[bi] as string) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return cp(x) < cp(y);
  }
  return ar.length < br.length;
}

/** {@link yamlKeyLess} for ASCII strings (code units are code points; letters and digits are ASCII). */
function asciiKeyLess(a: string, b: string): boolean {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const al = isAsciiLetter(x);
    const bl = isAsciiLetter(y);
    if (al && bl) return x < y;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (x === 0x30 || y === 0x30) {
      for (let j = i - 1; j >= 0 && isAsciiDigit(a.charCodeAt(j)); j--) {
        if (a.charCodeAt(j) !== 0x30) {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < a.length && isAsciiDigit(a.charCodeAt(ai)); ai++) an = an * 10 + (a.charCodeAt(ai) - 48);
    let bi = i;
    for (; bi < b.length && isAsciiDigit(b.charCodeAt(bi)); bi++) bn = bn * 10 + (b.charCodeAt(bi) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return x < y;
  }
  return a.length < b.length;
}

function cp(c: string): number {
  return c.codePointAt(0) ?? 0;
}

/** A string and the style go-yaml's encoder asks for (the emitter may still change it). */
interface StringScalar {
  text: string;
  style: "plain" | "double" | "literal";
}

/** The keys of a map that are written (undefined members are absent in JSON), in go-yaml's order. */
function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  let present = keys;
  for (let i = 0; i < keys.length; i++) {
    if (obj[keys[i] as string] !== undefined) continue;
    present = keys.filter((k) => obj[k] !== undefined);
    break;
  }
  if (present.length === 2) {
    const [a, b] = present as [string, string];
    if (yamlKeyLess(b, a)) return [b, a];
    return present;
  }
  if (present.length > 2) present.sort(present.every(isAscii) ? compareAsciiYamlKeys : compareYamlKeys);
  return present;
}

const isAscii = (s: string) => !NON_ASCII.test(s);

/** {@link compareYamlKeys} for keys known to be ASCII (tested once per key, not per comparison). */
function compareAsciiYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  return asciiKeyLess(a, b) ? -1 : 1;
}

/** Characters of {@link isSafePlain} strings after the first. */
const SAFE_PLAIN = /^[A-Za-z_/][\w./=:@+,-]*$/;

/**
 * Whether a string is written plain and unchanged in block context, without the emitter's
 * analysis: ASCII, starting with a letter, `_` or `/` (so it resolves as a string unless it is one
 * of go-yaml's words, and is neither a number, a timestamp nor a base-60 float), no spaces (so it
 * never folds), no quotes, `#` or indicators, and no trailing `:`.
 */
function isSafePlain(s: string): boolean {
  return s.length <= 128 && SAFE_PLAIN.test(s) && s.charCodeAt(s.length - 1) !== 0x3a && !WORDS.has(s);
}

/** A JSON number as go-yaml prints it after reading the JSON text back (int, uint or float64). */
function numberText(v: number): string {
  if (Number.isNaN(v)) return ".nan";
  if (!Number.isFinite(v)) return v > 0 ? ".inf" : "-.inf";
  if (Number.isInteger(v) && Math.abs(v) < 2 ** 64 && !(v < 0 && v < -(2 ** 63))) {
    return Object.is(v, -0) ? "0" : BigInt(v).toString();
  }
  return formatFloat(v, "g", -1, 64);
}

/** go-yaml's encoder.stringv: quote what would read back as another type. */
function stringScalar(s: string): StringScalar {
  if (s.includes("\n")) return { text: s, style: "literal" };
  const canUsePlain = plainIsString(s) && !isBase60Float(s);
  return { text: s, style: canUsePlain ? "plain" : "double" };
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function isBase60Float(s: string): boolean {
  const c = s.charAt(0);
  if (!(c === "+" || c === "-" || (c >= "0" && c <= "9")) || !s.includes(":")) return false;
  return BASE60_FLOAT.test(s);
}

interface Context {
  readonly root: boolean;
  readonly sequence: boolean;
  readonly mapping: boolean;
  readonly simpleKey: boolean;
}

const ROOT: Context = { root: true, sequence: false, mapping: false, simpleKey: false };
const IN_SEQUENCE: Context = { root: false, sequence: true, mapping: false, simpleKey: false };
const IN_MAPPING: Context = { root: false, sequence: false, mapping: true, simpleKey: false };
const MAPPING_KEY: Context = { root: false, sequence: false, mapping: true, simpleKey: true };
const NO_CONTEXT: Context = { root: false, sequence: false, mapping: false, simpleKey: false };

/** Runs of spaces for indentation, by length. */
const SPACES: string[] = [];
function spaces(n: number): string {
  let s = SPACES[n];
  if (s === undefined) {
    s = " ".repeat(n);
    if (n < 256) SPACES[n] = s;
  }
  return s;
}

interface Analysis {
  multiline: boolean;
  flowPlainAllowed: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

function isPrintable(c: number): boolean {
  return (
    c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff)
  );
}

function isBreak(c: number | undefined): boolean {
  return c === 0x0d || c === 0x0a || c === 0x85 || c === 0x2028 || c === 0x2029;
}

function isBlank(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09;
}

function isBlankZ(c: number | undefined): boolean {
  return c === undefined || c === 0 || isBlank(c) || isBreak(c);
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** Indicators that make a scalar's first character special (`#,[]{}&*!|>'"%@` and backquote). */
const FIRST_INDICATOR = new Uint8Array(128);
for (const c of "#,[]{}&*!|>'\"%@`") FIRST_INDICATOR[c.charCodeAt(0)] = 1;
/** Flow indicators anywhere after the first character. */
const FLOW_INDICATOR = new Uint8Array(128);
for (const c of ",?[]{}") FLOW_INDICATOR[c.charCodeAt(0)] = 1;

/** yaml_emitter_analyze_scalar (over code points). */
function analyzeScalar(value: string): Analysis {
  if (value.length === 0) {
    return {
      multiline: false,
      flowPlainAllowed: false,
      blockPlainAllowed: true,
      singleQuotedAllowed: true,
      blockAllowed: false,
    };
  }
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  if (value.startsWith("---") || value.startsWith("...")) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  const len = value.length;
  for (let i = 0; i < len; ) {
    const c = value.codePointAt(i) as number;
    const next = i + (c > 0xffff ? 2 : 1);
    const first = i === 0;
    const last = next >= len;
    // Blanks are in the BMP: the next code unit tells.
    const followedByWhitespace = last || isBlank(value.charCodeAt(next));
    if (first) {
      if (c < 128 && FIRST_INDICATOR[c] === 1) {
        flowIndicators = true;
        blockIndicators = true;
      } else if (c === 0x3f || c === 0x3a) {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      } else if (c === 0x2d) {
        if (followedByWhitespace) {
          flowIndicators = true;
          blockIndicators = true;
        }
      }
    } else if (c < 128 && FLOW_INDICATOR[c] === 1) {
      flowIndicators = true;
    } else if (c === 0x3a) {
      flowIndicators = true;
      if (followedByWhitespace) blockIndicators = true;
    } else if (c === 0x23) {
      if (precededByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    }
    if (!isPrintable(c)) specialCharacters = true;
    if (c === 0x20) {
      if (first) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (first) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankZ(c);
    i = next;
  }
  const a: Analysis = {
    multiline: lineBreaks,
    flowPlainAllowed: true,
    blockPlainAllowed: true,
    singleQuotedAllowed: true,
    blockAllowed: true,
  };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
  }
  if (trailingSpace) a.blockAllowed = false;
  if (breakSpace) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
  }
  if (spaceBreak || specialCharacters) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
    a.blockAllowed = false;
  }
  if (lineBreaks) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
  }
  if (flowIndicators) a.flowPlainAllowed = false;
  if (blockIndicators) a.blockPlainAllowed = false;
  return a;
}

/** Whether the text holds a line break (of any kind go-yaml knows). */
const ANY_BREAK = /[\r\n\u0085\u2028\u2029]/;
/** Printable ASCII but the double-quoted escapes (`"` and backslash). */
const PLAIN_ASCII = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/** The number of code points of a string. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = s.charCodeAt(i - 1);
      if (h >= 0xd800 && h <= 0xdbff) n--;
    }
  }
  return n;
}

/** The parts of go-yaml's emitter state that the JSON-to-YAML events exercise. */
class Emitter {
  out = "";
  private column = 0;
  private indent = -1;
  private readonly indents: number[] = [];
  private whitespace = true;
  private indention = true;
  private flowLevel = 0;
  private ctx: Context = NO_CONTEXT;

  private put(s: string): void {
    this.out += s;
    this.column++;
  }

  /** Writes text of `columns` code points and no line breaks. */
  private putRun(s: string, columns: number): void {
    this.out += s;
    this.column += columns;
  }

  private putBreak(): void {
    this.out += "\n";
    this.column = 0;
  }

  private writeAll(s: string): void {
    for (const ch of s) this.put(ch);
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop() ?? -1;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    if (this.column < indent) this.putRun(spaces(indent - this.column), indent - this.column);
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    this.putRun(ind, ind.length);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** Emits a JSON value (what go-yaml sees after sigs.k8s.io/yaml reads the JSON back). */
  value(v: unknown, ctx: Context): void {
    this.ctx = ctx;
    if (v === null || v === undefined) {
      this.plainRun("null");
      return;
    }
    switch (typeof v) {
      case "string":
        if (this.flowLevel === 0 && isSafePlain(v)) this.plainRun(v);
        else this.scalar(stringScalar(v));
        return;
      case "boolean":
        this.plainRun(v ? "true" : "false");
        return;
      case "number":
        this.plainRun(numberText(v));
        return;
      case "bigint":
        this.plainRun(v.toString());
        return;
    }
    if (Array.isArray(v)) {
      if (this.flowLevel > 0 || v.length === 0) this.flowSequence(v);
      else this.blockSequence(v);
      return;
    }
    if (typeof v === "object") {
      const obj = v as Record<string, unknown>;
      const keys = sortedKeys(obj);
      if (this.flowLevel > 0 || keys.length === 0) this.flowMapping(obj, keys);
      else this.blockMapping(obj, keys);
      return;
    }
    throw new TypeError(`writeYaml: cannot marshal ${typeof v}`);
  }

  /**
   * A scalar that the emitter's analysis would write plain and in one piece (ASCII, no spaces, no
   * indicators: null, booleans, numbers and {@link isSafePlain} strings).
   */
  private plainRun(text: string): void {
    if (!this.whitespace) {
      this.out += " ";
      this.column++;
    }
    this.out += text;
    this.column += text.length;
    this.whitespace = false;
    this.indention = false;
  }

  /** A mapping key (a string), then the `:` indicator. */
  private key(k: string, flow: boolean): void {
    if (this.flowLevel === 0 && isSafePlain(k)) {
      // Simple (at most 128 bytes, one line) and plain.
      this.ctx = MAPPING_KEY;
      this.plainRun(k);
      this.writeIndicator(":", false, false, false);
      return;
    }
    if (isSimpleKey(k)) {
      this.ctx = MAPPING_KEY;
      this.scalar(stringScalar(k));
      this.writeIndicator(":", false, false, false);
    } else {
      this.writeIndicator("?", true, false, !flow);
      this.ctx = IN_MAPPING;
      this.scalar(stringScalar(k));
      if (flow) {
        if (this.column > BEST_WIDTH) this.writeIndent();
      } else this.writeIndent();
      this.writeIndicator(":", true, false, !flow);
    }
  }

  private blockSequence(items: unknown[]): void {
    this.increaseIndent(false, this.ctx.mapping && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator("-", true, false, true);
      this.value(item, IN_SEQUENCE);
    }
    this.popIndent();
  }

  private blockMapping(obj: Record<string, unknown>, keys: string[]): void {
    this.increaseIndent(false, false);
    for (const k of keys) {
      this.writeIndent();
      this.key(k, false);
      this.value(obj[k], IN_MAPPING);
    }
    this.popIndent();
  }

  private flowSequence(items: unknown[]): void {
    this.writeIndicator("[", true, true, false);
    this.increaseIndent(true, false);
    this.flowLevel++;
    let first = true;
    for (const item of items) {
      if (!first) this.writeIndicator(",", false, false, false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      this.value(item, IN_SEQUENCE);
      first = false;
    }
    this.flowLevel--;
    this.popIndent();
    this.writeIndicator("]", false, false, false);
  }

  private flowMapping(obj: Record<string, unknown>, keys: string[]): void {
    this.writeIndicator("{", true, true, false);
    this.increaseIndent(true, false);
    this.flowLevel++;
    let first = true;
    for (const k of keys) {
      if (!first) this.writeIndicator(",", false, false, false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      this.key(k, true);
      this.value(obj[k], IN_MAPPING);
      first = false;
    }
    this.flowLevel--;
    this.popIndent();
    this.writeIndicator("}", false, false, false);
  }

  private scalar(n: StringScalar): void {
    const a = analyzeScalar(n.text);
    let style: "plain" | "single" | "double" | "literal" = n.style;
    if (this.ctx.simpleKey && a.multiline) style = "double";
    if (style === "plain") {
      if ((this.flowLevel > 0 && !a.flowPlainAllowed) || (this.flowLevel === 0 && !a.blockPlainAllowed)) {
        style = "single";
      }
      if (n.text.length === 0 && (this.flowLevel > 0 || this.ctx.simpleKey)) style = "single";
    }
    if (style === "single" && !a.singleQuotedAllowed) style = "double";
    if (style === "literal" && (!a.blockAllowed || this.flowLevel > 0 || this.ctx.simpleKey)) style = "double";
    this.increaseIndent(true, false);
    const allowBreaks = !this.ctx.simpleKey;
    switch (style) {
      case "plain":
        this.writePlain(n.text, allowBreaks);
        break;
      case "single":
        this.writeSingleQuoted(n.text, allowBreaks);
        break;
      case "double":
        this.writeDoubleQuoted(n.text, allowBreaks);
        break;
      case "literal":
        this.writeLiteral(n.text);
        break;
    }
    this.popIndent();
  }

  /** write_break: a line feed becomes the emitter's break; other breaks are copied. */
  private writeBreak(ch: string): void {
    if (ch === "\n") this.putBreak();
    else {
      this.out += ch;
      this.column = 0;
    }
  }

  /**
   * Whether a one-line scalar can be written in one piece: no line breaks, and no space at which
   * the emitter could fold it (one past the best width).
   */
  private fitsUnfolded(value: string, allowBreaks: boolean, extra: number): boolean {
    if (ANY_BREAK.test(value)) return false;
    return !allowBreaks || this.column + value.length + extra <= BEST_WIDTH || !value.includes(" ");
  }

  private writePlain(value: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(" ");
    if (this.fitsUnfolded(value, allowBreaks, 0)) {
      this.putRun(value, codePoints(value));
      this.whitespace = false;
      this.indention = false;
      return;
    }
    const chars = Array.from(value);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] as string;
      if (ch === " ") {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== " ") this.writeIndent();
        else this.put(ch);
        spaces = true;
      } else if (isBreak(cp(ch))) {
        if (!breaks && ch === "\n") this.putBreak();
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingleQuoted(value: string, allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    if (!value.includes("'") && this.fitsUnfolded(value, allowBreaks, 0)) {
      this.putRun(value, codePoints(value));
      this.writeIndicator("'", false, false, false);
      this.whitespace = false;
      this.indention = false;
      return;
    }
    const chars = Array.from(value);
    const last = utf8Length(value) - 1;
    let bytePos = 0;
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] as string;
      if (ch === " ") {
        if (
          allowBreaks &&
          !spaces &&
          this.column > BEST_WIDTH &&
          bytePos > 0 &&
          bytePos < last &&
          chars[i + 1] !== " "
        ) {
          this.writeIndent();
        } else this.put(ch);
        spaces = true;
      } else if (isBreak(cp(ch))) {
        if (!breaks && ch === "\n") this.putBreak();
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
      bytePos += utf8Length(ch);
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeDoubleQuoted(value: string, allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    if (PLAIN_ASCII.test(value) && this.fitsUnfolded(value, allowBreaks, 0)) {
      this.putRun(value, value.length);
      this.writeIndicator('"', false, false, false);
      this.whitespace = false;
      this.indention = false;
      return;
    }
    const chars = Array.from(value);
    const bom = value.startsWith("\ufeff");
    const last = utf8Length(value) - 1;
    let bytePos = 0;
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] as string;
      const c = cp(ch);
      if (!isPrintable(c) || bom || isBreak(c) || ch === '"' || ch === "\\") {
        this.put("\\");
        this.writeAll(escapeFor(c));
        spaces = false;
      } else if (ch === " ") {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && bytePos > 0 && bytePos < last) {
          this.writeIndent();
          if (chars[i + 1] === " ") this.put("\\");
        } else this.put(ch);
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
      bytePos += utf8Length(ch);
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(value: string): void {
    this.writeIndicator("|", true, false, false);
    this.writeBlockScalarHints(value);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    if (!/[\r\u0085\u2028\u2029]/.test(value)) {
      // Only line feeds: write line by line.
      const lines = value.split("\n");
      for (let i = 0; i < lines.length; i++) {
        if (i > 0) {
          this.putBreak();
          this.indention = true;
          breaks = true;
        }
        const line = lines[i] as string;
        if (line === "") continue;
        if (breaks) this.writeIndent();
        this.putRun(line, codePoints(line));
        this.indention = false;
        breaks = false;
      }
      return;
    }
    for (const ch of value) {
      if (isBreak(cp(ch))) {
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        breaks = false;
      }
    }
  }

  private writeBlockScalarHints(value: string): void {
    const chars = Array.from(value);
    const first = chars[0];
    if (first !== undefined && (first === " " || isBreak(cp(first)))) {
      this.writeIndicator(String(BEST_INDENT), false, false, false);
    }
    let chomp = "";
    if (chars.length === 0) chomp = "-";
    else {
      const lastChar = chars[chars.length - 1] as string;
      if (!isBreak(cp(lastChar))) chomp = "-";
      else if (chars.length === 1) chomp = "+";
      else if (isBreak(cp(chars[chars.length - 2] as string))) chomp = "+";
    }
    if (chomp) this.writeIndicator(chomp, false, false, false);
  }
}

function isSimpleKey(k: string): boolean {
  return !ANY_BREAK.test(k) && (k.length <= 42 || utf8Length(k) <= 128);
}

function escapeFor(c: number): string {
  switch (c) {
    case 0x00:
      return "0";
    case 0x07:
      return "a";
    case 0x08:
      return "b";
    case 0x09:
      return "t";
    case 0x0a:
      return "n";
    case 0x0b:
      return "v";
    case 0x0c:
      return "f";
    case 0x0d:
      return "r";
    case 0x1b:
      return "e";
    case 0x22:
      return '"';
    case 0x5c:
      return "\\";
    case 0x85:
      return "N";
    case 0xa0:
      return "_";
    case 0x2028:
      return "L";
    case 0x2029:
      return "P";
  }
  const hex = c.toString(16).toUpperCase();
  if (c <= 0xff) return `x${hex.padStart(2, "0")}`;
  if (c <= 0xffff) return `u${hex.padStart(4, "0")}`;
  return `U${hex.padStart(8, "0")}`;
}
