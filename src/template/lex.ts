/**
 * The template lexer: turns template text into items (tokens), the way Go's text/template/parse lexer
 * does, including trim markers (`{{- ` / ` -}}`), comments and the error texts the parser reports.
 *
 * It is a small state machine: each state is a function that consumes input, emits items and returns
 * the next state. The whole input is lexed eagerly into an array; lexing stops at the first error,
 * which becomes an `Error` item the parser reports when it reaches it (as Go's lazy lexer would).
 */

export enum ItemType {
  Error = 0,
  Bool,
  Char, // printable ASCII character; grab bag for comma etc.
  CharConstant,
  Comment,
  Complex,
  Assign, // =
  Declare, // :=
  EOF,
  Field, // .Field
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable, // $x
  // Keywords come after all the rest; `Item.toString` relies on this order.
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
}

export interface Item {
  readonly type: ItemType;
  /** Offset of the item in the template text (a UTF-16 index). */
  readonly pos: number;
  readonly val: string;
  /** 1-based line of the item's start. */
  readonly line: number;
}

const KEYWORDS: ReadonlyMap<string, ItemType> = new Map([
  [".", ItemType.Dot],
  ["block", ItemType.Block],
  ["break", ItemType.Break],
  ["continue", ItemType.Continue],
  ["define", ItemType.Define],
  ["else", ItemType.Else],
  ["end", ItemType.End],
  ["if", ItemType.If],
  ["range", ItemType.Range],
  ["nil", ItemType.Nil],
  ["template", ItemType.Template],
  ["with", ItemType.With],
]);

const LEFT_DELIM = "{{";
const RIGHT_DELIM = "}}";
const LEFT_COMMENT = "/*";
const RIGHT_COMMENT = "*/";
const TRIM_MARKER_LEN = 2; // a space and a minus

export interface LexOptions {
  /** Whether `break` / `continue` are keywords (they are not when a function of that name exists). */
  breakOK: boolean;
  continueOK: boolean;
}

type StateFn = ((l: Lexer) => StateFn) | null;

/** What Lexer.atRightDelim finds. */
enum RightDelim {
  None,
  Plain,
  /** ` -}}` */
  Trimmed,
}

class Lexer {
  readonly items: Item[] = [];
  pos = 0;
  start = 0;
  /** Line at `start`. */
  startLine = 1;
  parenDepth = 0;

  constructor(
    readonly input: string,
    readonly options: LexOptions,
  ) {}

  next(): number {
    if (this.pos >= this.input.length) {
      this.pos = this.input.length + 1; // so that backup() after EOF is harmless
      return EOF_RUNE;
    }
    const c = this.input.codePointAt(this.pos) as number;
    this.pos += c > 0xffff ? 2 : 1;
    return c;
  }

  peek(): number {
    return this.pos >= this.input.length ? EOF_RUNE : (this.input.codePointAt(this.pos) as number);
  }

  /** Steps back over the last rune read by next(). */
  backup(): void {
    if (this.pos > this.input.length) {
      this.pos = this.input.length;
      return;
    }
    const prev = this.input.charCodeAt(this.pos - 1);
    this.pos -= prev >= 0xdc00 && prev <= 0xdfff && this.pos >= 2 ? 2 : 1;
  }

  emit(type: ItemType): void {
    this.items.push({ type, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine });
    this.ignore();
  }

  /** Drops the pending input, keeping line counting right. */
  ignore(): void {
    this.startLine += countNewlines(this.input, this.start, this.pos);
    this.start = this.pos;
  }

  accept(valid: string): boolean {
    const c = this.peek();
    if (c !== EOF_RUNE && c < 0x80 && valid.includes(String.fromCharCode(c))) {
      this.pos++;
      return true;
    }
    return false;
  }

  acceptRun(valid: string): void {
    while (this.accept(valid)) {
      // keep accepting
    }
  }

  errorf(message: string): StateFn {
    this.items.push({ type: ItemType.Error, pos: this.start, val: message, line: this.startLine });
    return null;
  }

  /**
   * Whether the input at pos is a right delimiter, and whether it carries a trim marker. A number,
   * not a tuple: this runs at every rune of an action, in V8's interpreter for a short command,
   * where each returned array and destructuring allocates.
   */
  atRightDelim(): RightDelim {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT_DELIM, this.pos + TRIM_MARKER_LEN)) {
      return RightDelim.Trimmed;
    }
    return this.input.startsWith(RIGHT_DELIM, this.pos) ? RightDelim.Plain : RightDelim.None;
  }

  /** Whether the next rune ends an operand. */
  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    switch (r) {
      case EOF_RUNE:
      case 0x2e: // .
      case 0x2c: // ,
      case 0x7c: // |
      case 0x3a: // :
      case 0x29: // )
      case 0x28: // (
        return true;
    }
    return this.input.startsWith(RIGHT_DELIM, this.pos);
  }
}

const EOF_RUNE = -1;

/** Lexes the whole template text. The last item is EOF or Error. */
export function lex(input: string, options: LexOptions = { breakOK: true, continueOK: true }): Item[] {
  const l = new Lexer(input, options);
  let state: StateFn = lexText;
  while (state !== null) state = state(l);
  return l.items;
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf("\n", from); i !== -1 && i < to; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0d || r === 0x0a;
}

function isAlphaNumeric(r: number): boolean {
  if (r === 0x5f) return true;
  if (r < 0x80) return (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a);
  return r !== EOF_RUNE && /[\p{L}\p{Nd}]/u.test(String.fromCodePoint(r));
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s.charCodeAt(at) === 0x2d && isSpace(s.charCodeAt(at + 1));
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return isSpace(s.charCodeAt(at)) && s.charCodeAt(at + 1) === 0x2d;
}

/** Length of the trailing white space of s[from, to). */
function rightTrimLength(s: string, from: number, to: number): number {
  let i = to;
  while (i > from && isSpace(s.charCodeAt(i - 1))) i--;
  return to - i;
}

function leftTrimLength(s: string, from: number): number {
  let i = from;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i - from;
}

function lexText(l: Lexer): StateFn {
  const x = l.input.indexOf(LEFT_DELIM, l.pos);
  if (x < 0) {
    l.pos = l.input.length;
    if (l.pos > l.start) l.emit(ItemType.Text);
    l.emit(ItemType.EOF);
    return null;
  }
  if (x > l.pos) {
    l.pos = x;
    const trim = hasLeftTrimMarker(l.input, x + LEFT_DELIM.length) ? rightTrimLength(l.input, l.start, x) : 0;
    l.pos -= trim;
    if (l.pos > l.start) l.emit(ItemType.Text);
    l.pos += trim;
    l.ignore();
  }
  return lexLeftDelim;
}

function lexLeftDelim(l: Lexer): StateFn {
  l.pos += LEFT_DELIM.length;
  const trim = hasLeftTrimMarker(l.input, l.pos);
  const afterMarker = trim ? TRIM_MARKER_LEN : 0;
  if (l.input.startsWith(LEFT_COMMENT, l.pos + afterMarker)) {
    l.pos += afterMarker;
    l.ignore();
    return lexComment;
  }
  l.emit(ItemType.LeftDelim);
  l.pos += afterMarker;
  l.ignore();
  l.parenDepth = 0;
  return lexInsideAction;
}

function lexComment(l: Lexer): StateFn {
  l.pos += LEFT_COMMENT.length;
  const x = l.input.indexOf(RIGHT_COMMENT, l.pos);
  if (x < 0) return l.errorf("unclosed comment");
  l.pos = x + RIGHT_COMMENT.length;
  const delim = l.atRightDelim();
  if (delim === RightDelim.None) return l.errorf("comment ends before closing delimiter");
  const trim = delim === RightDelim.Trimmed;
  // Comments are not kept: the parser would drop them anyway.
  if (trim) l.pos += TRIM_MARKER_LEN;
  l.pos += RIGHT_DELIM.length;
  if (trim) l.pos += leftTrimLength(l.input, l.pos);
  l.ignore();
  return lexText;
}

function lexRightDelim(l: Lexer): StateFn {
  const trim = l.atRightDelim() === RightDelim.Trimmed;
  if (trim) {
    l.pos += TRIM_MARKER_LEN;
    l.ignore();
  }
  l.pos += RIGHT_DELIM.length;
  l.emit(ItemType.RightDelim);
  if (trim) {
    l.pos += leftTrimLength(l.input, l.pos);
    l.ignore();
  }
  return lexText;
}

function lexInsideAction(l: Lexer): StateFn {
  if (l.atRightDelim() !== RightDelim.None) {
    if (l.parenDepth === 0) return lexRightDelim;
    return l.errorf("unclosed left paren");
  }
  const r = l.next();
  if (r === EOF_RUNE) return l.errorf("unclosed action");
  if (isSpace(r)) {
    l.backup(); // put the space back in case it starts " -}}"
    return lexSpace;
  }
  switch (r) {
    case 0x3d: // =
      l.emit(ItemType.Assign);
      return lexInsideAction;
    case 0x3a: // :
      if (l.next() !== 0x3d) return l.errorf("expected :=");
      l.emit(ItemType.Declare);
      return lexInsideAction;
    case 0x7c: // |
      l.emit(ItemType.Pipe);
      return lexInsideAction;
    case 0x22: // "
      return lexQuote;
    case 0x60: // `
      return lexRawQuote;
    case 0x24: // $
      return lexVariable;
    case 0x27: // '
      return lexChar;
    case 0x2e: {
      // "." starts a field unless a digit follows (then it is a number like .5)
      const n = l.input.charCodeAt(l.pos);
      if (l.pos < l.input.length && (n < 0x30 || n > 0x39)) return lexField;
      l.backup();
      return lexNumber;
    }
    case 0x28: // (
      l.emit(ItemType.LeftParen);
      l.parenDepth++;
      return lexInsideAction;
    case 0x29: // ) — an unbalanced one is reported by the parser
      l.parenDepth--;
      l.emit(ItemType.RightParen);
      return lexInsideAction;
  }
  if (r === 0x2b || r === 0x2d || (r >= 0x30 && r <= 0x39)) {
    l.backup();
    return lexNumber;
  }
  if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  }
  if (r < 0x80 && r >= 0x20 && r !== 0x7f) {
    l.emit(ItemType.Char);
    return lexInsideAction;
  }
  return l.errorf(`unrecognized character in action: ${formatRuneU(r)}`);
}

function lexSpace(l: Lexer): StateFn {
  let spaces = 0;
  while (isSpace(l.peek())) {
    l.next();
    spaces++;
  }
  // A space followed by "-}}" belongs to the trim marker.
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(RIGHT_DELIM, l.pos - 1 + TRIM_MARKER_LEN)) {
    l.backup();
    if (spaces === 1) return lexInsideAction;
  }
  l.emit(ItemType.Space);
  return lexInsideAction;
}

function lexIdentifier(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (isAlphaNumeric(r)) continue;
    l.backup();
    const word = l.input.slice(l.start, l.pos);
    if (!l.atTerminator()) return l.errorf(`bad character ${formatRuneU(r)}`);
    const key = KEYWORDS.get(word);
    if (key !== undefined) {
      const demoted =
        (key === ItemType.Break && !l.options.breakOK) || (key === ItemType.Continue && !l.options.continueOK);
      l.emit(demoted ? ItemType.Identifier : key);
    } else if (word[0] === ".") {
      l.emit(ItemType.Field);
    } else if (word === "true" || word === "false") {
      l.emit(ItemType.Bool);
    } else {
      l.emit(ItemType.Identifier);
    }
    return lexInsideAction;
  }
}

function lexField(l: Lexer): StateFn {
  return lexFieldOrVariable(l, ItemType.Field);
}

function lexVariable(l: Lexer): StateFn {
  return lexFieldOrVariable(l, ItemType.Variable);
}

/** Lexes `.name` or `$name` (the leading character is already consumed). */
function lexFieldOrVariable(l: Lexer, type: ItemType.Field | ItemType.Variable): StateFn {
  if (l.atTerminator()) {
    // A lone "." is dot, a lone "$" the variable $.
    l.emit(type === ItemType.Variable ? ItemType.Variable : ItemType.Dot);
    return lexInsideAction;
  }
  let r: number;
  for (;;) {
    r = l.next();
    if (!isAlphaNumeric(r)) {
      l.backup();
      break;
    }
  }
  if (!l.atTerminator()) return l.errorf(`bad character ${formatRuneU(r)}`);
  l.emit(type);
  return lexInsideAction;
}

function lexChar(l: Lexer): StateFn {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF_RUNE && r !== 0x0a) continue;
    }
    if (r === EOF_RUNE || r === 0x0a) return l.errorf("unterminated character constant");
    if (r === 0x27) break;
  }
  l.emit(ItemType.CharConstant);
  return lexInsideAction;
}

function lexNumber(l: Lexer): StateFn {
  if (!scanNumber(l)) return l.errorf(`bad number syntax: ${goQuote(l.input.slice(l.start, l.pos))}`);
  const sign = l.peek();
  if (sign === 0x2b || sign === 0x2d) {
    // A complex number like 1+2i: no spaces, must end in 'i'.
    if (!scanNumber(l) || l.input[l.pos - 1] !== "i") {
      return l.errorf(`bad number syntax: ${goQuote(l.input.slice(l.start, l.pos))}`);
    }
    l.emit(ItemType.Complex);
  } else {
    l.emit(ItemType.Number);
  }
  return lexInsideAction;
}

function scanNumber(l: Lexer): boolean {
  l.accept("+-");
  let digits = "0123456789_";
  if (l.accept("0")) {
    // A leading 0 does not mean octal in floats.
    if (l.accept("xX")) digits = "0123456789abcdefABCDEF_";
    else if (l.accept("oO")) digits = "01234567_";
    else if (l.accept("bB")) digits = "01_";
  }
  l.acceptRun(digits);
  if (l.accept(".")) l.acceptRun(digits);
  if (digits.length === 11 && l.accept("eE")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  if (digits.length === 23 && l.accept("pP")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  l.accept("i"); // imaginary
  if (isAlphaNumeric(l.peek())) {
    l.next();
    return false;
  }
  return true;
}

function lexQuote(l: Lexer): StateFn {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF_RUNE && r !== 0x0a) continue;
    }
    if (r === EOF_RUNE || r === 0x0a) return l.errorf("unterminated quoted string");
    if (r === 0x22) break;
  }
  l.emit(ItemType.String);
  return lexInsideAction;
}

function lexRawQuote(l: Lexer): StateFn {
  const end = l.input.indexOf("`", l.pos);
  if (end < 0) return l.errorf("unterminated raw quoted string");
  l.pos = end + 1;
  l.emit(ItemType.RawString);
  return lexInsideAction;
}

/** Go's `%#U` form of a rune: `U+0041 'A'`. */
export function formatRuneU(r: number): string {
  const hex = r.toString(16).toUpperCase().padStart(4, "0");
  const printable = r >= 0x20 && r !== 0x7f && !(r >= 0x80 && r < 0xa0) && r !== EOF_RUNE;
  return printable ? `U+${hex} '${String.fromCodePoint(r)}'` : `U+${hex}`;
}

/** A minimal strconv.Quote for lexer messages (ASCII-safe escapes). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** How Go prints an item in parse errors (`item.String()`). */
export function itemString(item: Item, quote: (s: string) => string): string {
  if (item.type === ItemType.EOF) return "EOF";
  if (item.type === ItemType.Error) return item.val;
  if (item.type > ItemType.Keyword) return `<${item.val}>`;
  const runes = [...item.val];
  if (runes.length > 10) return `${quote(runes.slice(0, 10).join(""))}...`;
  return quote(item.val);
}
