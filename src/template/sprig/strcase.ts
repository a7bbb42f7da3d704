// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Go's rune-level Unicode helpers (package unicode, strings.ToUpper/ToLower/Title/TrimSpace) and
 * the word algorithms Sprig borrows from Masterminds/goutils v1.1.1 and huandu/xstrings v1.3.3.
 *
 * Go maps case one rune at a time with the simple (1:1) Unicode mappings, while JavaScript's
 * toUpperCase/toLowerCase apply the full mappings (ß → SS) and context rules (final sigma). So
 * every mapping here works on single code points and falls back to Go's simple mapping where the
 * full one would produce several.
 *
 * Some goutils functions walk a string byte by byte and write each byte back as a rune; the
 * ports keep that (non-ASCII text comes out as Latin-1 mojibake, exactly as in Go).
 */

const UPPER = /^\p{Lu}$/u;
const LOWER = /^\p{Ll}$/u;
const TITLE = /^\p{Lt}$/u;
const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;
const NUMBER = /^\p{N}$/u;
const PUNCT = /^\p{P}$/u;
const WHITE_SPACE = /^\p{White_Space}$/u;

const ch = (cp: number) => String.fromCodePoint(cp);

export const isUpper = (cp: number) => UPPER.test(ch(cp));
export const isLower = (cp: number) => LOWER.test(ch(cp));
export const isTitle = (cp: number) => TITLE.test(ch(cp));
export const isLetter = (cp: number) => LETTER.test(ch(cp));
export const isDigit = (cp: number) => DIGIT.test(ch(cp));
export const isNumber = (cp: number) => NUMBER.test(ch(cp));
export const isPunct = (cp: number) => PUNCT.test(ch(cp));
/** unicode.IsSpace: the White_Space property (which includes U+0085 and U+00A0, but not U+FEFF). */
export const isSpace = (cp: number) => WHITE_SPACE.test(ch(cp));

/** The code point a JS case mapping gives a single rune, or undefined when it gives several. */
function single(mapped: string): number | undefined {
  const cp = mapped.codePointAt(0)!;
  return mapped.length === (cp > 0xffff ? 2 : 1) ? cp : undefined;
}

/** unicode.ToUpper. */
export function toUpper(cp: number): number {
  if (cp < 0x80) return cp >= 0x61 && cp <= 0x7a ? cp - 32 : cp;
  const m = single(ch(cp).toUpperCase());
  if (m !== undefined) return m;
  // Greek letters with ypogegrammeni: the full mapping splits off an iota, the simple one keeps
  // the precomposed capital (ᾀ → ᾈ).
  if ((cp >= 0x1f80 && cp <= 0x1f87) || (cp >= 0x1f90 && cp <= 0x1f97) || (cp >= 0x1fa0 && cp <= 0x1fa7)) return cp + 8;
  if (cp === 0x1fb3 || cp === 0x1fc3 || cp === 0x1ff3) return cp + 9;
  return cp; // ß, ŉ, ligatures...: no simple uppercase
}

/** unicode.ToLower. */
export function toLower(cp: number): number {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp;
  if (cp === 0x130) return 0x69; // İ: the full mapping adds a combining dot
  return single(ch(cp).toLowerCase()) ?? cp;
}

/** unicode.ToTitle. */
export function toTitle(cp: number): number {
  // The DŽ, LJ, NJ and DZ digraphs have a distinct titlecase form.
  if (cp >= 0x1c4 && cp <= 0x1cc) return 0x1c5 + 3 * Math.floor((cp - 0x1c4) / 3);
  if (cp >= 0x1f1 && cp <= 0x1f3) return 0x1f2;
  // Georgian Mkhedruli has uppercase (Mtavruli) forms but is its own titlecase.
  if ((cp >= 0x10d0 && cp <= 0x10fa) || (cp >= 0x10fd && cp <= 0x10ff)) return cp;
  return toUpper(cp);
}

function mapRunes(s: string, f: (cp: number) => number): string {
  let out = "";
  for (const c of s) out += String.fromCodePoint(f(c.codePointAt(0)!));
  return out;
}

/** strings.ToUpper. */
export function goToUpper(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII fast path
  return /^[\x00-\x7f]*$/.test(s) ? s.toUpperCase() : mapRunes(s, toUpper);
}

/** strings.ToLower. */
export function goToLower(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII fast path
  return /^[\x00-\x7f]*$/.test(s) ? s.toLowerCase() : mapRunes(s, toLower);
}

/** strings.Title's word separators: anything but ASCII alphanumerics, '_', letters, digits; but non-ASCII only if a space. */
function isTitleSeparator(cp: number): boolean {
  if (cp <= 0x7f) return !/[0-9A-Za-z_]/.test(ch(cp));
  if (isLetter(cp) || isDigit(cp)) return false;
  return isSpace(cp);
}

/** strings.Title: titlecases the first rune of every word. */
export function goTitle(s: string): string {
  let prev = 0x20;
  return mapRunes(s, (cp) => {
    const out = isTitleSeparator(prev) ? toTitle(cp) : cp;
    prev = cp;
    return out;
  });
}

/** strings.TrimSpace (unicode.IsSpace, unlike String.prototype.trim which also strips U+FEFF). */
export function trimSpace(s: string): string {
  const cps = Array.from(s);
  let a = 0;
  let b = cps.length;
  while (a < b && isSpace(cps[a]!.codePointAt(0)!)) a++;
  while (b > a && isSpace(cps[b - 1]!.codePointAt(0)!)) b--;
  return cps.slice(a, b).join("");
}

// ---- goutils ----------------------------------------------------------------------------------

const utf8 = (s: string) => Buffer.from(s, "utf8");
/** Decodes bytes as UTF-8; a multi-byte character cut in half becomes U+FFFD (Go would keep the raw bytes). */
const fromUtf8 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8");

/** goutils.Uncapitalize: lowercases the first rune of each whitespace-separated word. */
export function uncapitalize(s: string): string {
  let next = true;
  return mapRunes(s, (cp) => {
    if (isSpace(cp)) {
      next = true;
      return cp;
    }
    if (next) {
      next = false;
      return toLower(cp);
    }
    return cp;
  });
}

/** goutils.SwapCase: upper/title → lower; lower → title after whitespace (or at the start), else upper. */
export function swapCase(s: string): string {
  let afterSpace = true;
  return mapRunes(s, (cp) => {
    if (isUpper(cp) || isTitle(cp)) {
      afterSpace = false;
      return toLower(cp);
    }
    if (isLower(cp)) {
      if (afterSpace) {
        afterSpace = false;
        return toTitle(cp);
      }
      return toUpper(cp);
    }
    afterSpace = isSpace(cp);
    return cp;
  });
}

/** goutils.Initials: the first byte of each whitespace-separated word, each byte written back as a rune. */
export function initials(s: string): string {
  let out = "";
  let gap = true;
  for (const b of utf8(s)) {
    if (isSpace(b)) gap = true;
    else if (gap) {
      out += String.fromCharCode(b);
      gap = false;
    }
  }
  return out;
}

/** goutils.DeleteWhiteSpace: byte-wise; the bytes kept are written back as runes unless nothing was removed. */
export function deleteWhiteSpace(s: string): string {
  const bytes = utf8(s);
  let out = "";
  let kept = 0;
  for (const b of bytes) {
    if (isSpace(b)) continue;
    out += String.fromCharCode(b);
    kept++;
  }
  return kept === bytes.length ? s : out;
}

/** goutils.AbbreviateFull (byte offsets and widths), with Sprig's argument checks already applied. */
export function abbreviateFull(s: string, offset: number, maxWidth: number): string {
  const b = utf8(s);
  const len = b.length;
  if (len === 0) return "";
  if (maxWidth < 4) return ""; // goutils reports an error; Sprig discards it and keeps the ""
  if (len <= maxWidth) return s;
  let off = Math.min(offset, len);
  if (len - off < maxWidth - 3) off = len - (maxWidth - 3);
  if (off <= 4) return `${fromUtf8(b.subarray(0, maxWidth - 3))}...`;
  if (maxWidth < 7) return "";
  if (off + maxWidth - 3 < len) return `...${abbreviateFull(fromUtf8(b.subarray(off)), 0, maxWidth - 3)}`;
  return `...${fromUtf8(b.subarray(len - (maxWidth - 3)))}`;
}

/** goutils.WrapCustom: breaks at spaces so that lines fit `width` bytes; long words are cut when `wrapLong`. */
export function wrapCustom(s: string, width: number, newline: string, wrapLong: boolean): string {
  if (s === "") return "";
  const nl = utf8(newline === "" ? "\n" : newline);
  const w = Math.max(1, width);
  const b = utf8(s);
  const len = b.length;
  const out: Uint8Array[] = [];
  let offset = 0;
  while (len - offset > w) {
    if (b[offset] === 0x20) {
      offset++;
      continue;
    }
    const space = b.subarray(offset, w + offset + 1).lastIndexOf(0x20);
    if (space >= 0) {
      out.push(b.subarray(offset, offset + space), nl);
      offset += space + 1;
    } else if (wrapLong) {
      out.push(b.subarray(offset, offset + w), nl);
      offset += w;
    } else {
      const next = b.indexOf(0x20, w + offset);
      if (next < 0) {
        out.push(b.subarray(offset));
        offset = len;
      } else {
        out.push(b.subarray(offset, next), nl);
        offset = next + 1;
      }
    }
  }
  out.push(b.subarray(offset));
  return fromUtf8(Buffer.concat(out));
}

/** String.fromCodePoint over an array of any length (spreading a huge array would overflow the stack). */
function fromCodePoints(cps: number[]): string {
  let s = "";
  for (let i = 0; i < cps.length; i += 8192) s += String.fromCodePoint(...cps.slice(i, i + 8192));
  return s;
}

// ---- xstrings ---------------------------------------------------------------------------------

const RUNE_ERROR = 0xfffd;
const isConnector = (cp: number) => cp === 0x2d || cp === 0x5f || isSpace(cp);

/** xstrings' "alphabet": a letter that is not a CJK ideograph. */
function isAlphabet(cp: number): boolean {
  if (!isLetter(cp)) return false;
  if (cp < 0x3400) return true;
  return !((cp >= 0x4e00 && cp <= 0x9fcc) || (cp >= 0x3400 && cp <= 0x4d85) || (cp >= 0x20000 && cp <= 0x2b81d));
}

/** xstrings.ToCamelCase: drops connectors ('-', '_', spaces), uppercasing the rune after each. */
export function toCamelCase(s: string): string {
  if (s === "") return "";
  const cps = Array.from(s, (c) => c.codePointAt(0)!);
  const out: number[] = [];
  let i = 0;
  let r0 = 0;
  // Leading connectors are kept; the first other rune is uppercased.
  while (i < cps.length) {
    r0 = cps[i++]!;
    if (!isConnector(r0)) {
      r0 = toUpper(r0);
      break;
    }
    out.push(r0);
  }
  if (i >= cps.length) {
    // xstrings writes the last rune once more here, even when it was a connector already written.
    out.push(r0);
    return fromCodePoints(out);
  }
  while (i < cps.length) {
    const r1 = r0;
    r0 = cps[i++]!;
    if (isConnector(r0) && isConnector(r1)) {
      out.push(r1);
      continue;
    }
    if (isConnector(r1)) r0 = toUpper(r0);
    else {
      r0 = toLower(r0);
      out.push(r1);
    }
  }
  out.push(r0);
  return fromCodePoints(out);
}

enum Word {
  Invalid,
  Number,
  UpperCase,
  Alphabet,
  Connector,
  Punct,
  Other,
}

/**
 * The next rune at or after i that is not U+FFFD (xstrings skips undecodable runes, and Go decodes
 * a literal U+FFFD as an error too). Returns the rune (or `prev` if none is left) and how many
 * runes were consumed.
 */
function nextValidRune(cps: number[], i: number, prev: number): [number, number] {
  let size = 0;
  for (; i < cps.length; i++) {
    size++;
    if (cps[i] !== RUNE_ERROR) return [cps[i]!, size];
  }
  return [prev, size];
}

/** Splits the next word off cps[start:]: its type, where it ends and where the rest begins. */
function nextWord(cps: number[], start: number): [Word, number, number] {
  const n = cps.length;
  if (start >= n) return [Word.Invalid, start, start];
  let [r, size] = nextValidRune(cps, start, RUNE_ERROR);
  let end = start + size;
  if (r === RUNE_ERROR) return [Word.Invalid, end, end];
  let rest = end;
  // Extends the word while `more` holds for the next valid rune.
  const extend = (more: (cp: number) => boolean) => {
    while (rest < n) {
      [r, size] = nextValidRune(cps, rest, r);
      if (!more(r)) break;
      end += size;
      rest += size;
    }
  };
  let wt: Word;
  if (isConnector(r)) {
    wt = Word.Connector;
    extend(isConnector);
  } else if (isPunct(r)) {
    wt = Word.Punct;
    extend(isPunct);
  } else if (isUpper(r)) {
    wt = Word.UpperCase;
    if (rest < n) {
      [r, size] = nextValidRune(cps, rest, r);
      if (isUpper(r)) {
        // An uppercase run; its last capital starts the next word when a lowercase letter follows (HTTPServer).
        let prevSize = size;
        end += size;
        rest += size;
        while (rest < n) {
          [r, size] = nextValidRune(cps, rest, r);
          if (!isUpper(r)) break;
          prevSize = size;
          end += size;
          rest += size;
        }
        if (rest < n && isAlphabet(r)) {
          end -= prevSize;
          rest = end;
        }
      } else if (isAlphabet(r)) {
        end += size;
        rest += size;
        extend((c) => isAlphabet(c) && !isUpper(c));
      }
    }
  } else if (isAlphabet(r)) {
    wt = Word.Alphabet;
    extend((c) => isAlphabet(c) && !isUpper(c));
  } else if (isNumber(r)) {
    wt = Word.Number;
    extend(isNumber);
  } else {
    wt = Word.Other;
    extend((c) => !(isConnector(c) || isAlphabet(c) || isNumber(c) || isPunct(c)));
  }
  return [wt, end, rest];
}

/** Writes a word, lowercasing uppercase words and turning connectors into `connector`. */
function writeLower(out: number[], wt: Word, word: number[], connector: number): void {
  if (wt !== Word.UpperCase && wt !== Word.Connector) {
    out.push(...word);
    return;
  }
  for (const cp of word) out.push(isConnector(cp) ? connector : isUpper(cp) ? toLower(cp) : cp);
}

/** xstrings' camelCaseToLowerCase, behind ToSnakeCase ('_') and ToKebabCase ('-'). */
function camelCaseToLowerCase(s: string, connector: number): string {
  if (s === "") return "";
  const cps = Array.from(s, (c) => c.codePointAt(0)!);
  const out: number[] = [];
  let pos = 0;
  // `next` reads the word at pos and advances pos.
  const next = (): [Word, number[]] => {
    const [t, end, rest] = nextWord(cps, pos);
    const w = cps.slice(pos, end);
    pos = rest;
    return [t, w];
  };
  const remaining = () => pos < cps.length;
  let [wt, word] = next();
  while (remaining()) {
    if (wt !== Word.Connector) writeLower(out, wt, word, connector);
    const prev: Word = wt;
    const last = word;
    [wt, word] = next();
    switch (prev) {
      case Word.Number:
        while (wt === Word.Alphabet || wt === Word.Number) {
          writeLower(out, wt, word, connector);
          [wt, word] = next();
        }
        if (wt !== Word.Invalid && wt !== Word.Punct && wt !== Word.Connector) out.push(connector);
        break;
      case Word.Connector:
        writeLower(out, prev, last, connector);
        break;
      case Word.Punct:
        break;
      default: {
        if (wt !== Word.Number) {
          if (wt !== Word.Connector && wt !== Word.Punct) out.push(connector);
          break;
        }
        if (!remaining()) break;
        const num = word;
        [wt, word] = next();
        if (wt !== Word.Alphabet) {
          writeLower(out, Word.Number, num, connector);
          if (wt !== Word.Connector && wt !== Word.Punct) out.push(connector);
          break;
        }
        out.push(connector);
        writeLower(out, Word.Number, num, connector);
        while (wt === Word.Alphabet || wt === Word.Number) {
          writeLower(out, wt, word, connector);
          [wt, word] = next();
        }
        if (wt !== Word.Invalid && wt !== Word.Connector && wt !== Word.Punct) out.push(connector);
      }
    }
  }
  writeLower(out, wt, word, connector);
  return fromCodePoints(out);
}

export const toSnakeCase = (s: string) => camelCaseToLowerCase(s, 0x5f);
export const toKebabCase = (s: string) => camelCaseToLowerCase(s, 0x2d);
