/**
 * A fast reader for the plain block-YAML subset that rendered injection templates and typical
 * Kubernetes manifests are written in, used by `readYaml` before the full parser.
 *
 * It accepts only text it can read with certainty: printable ASCII without tabs or carriage
 * returns; block mappings with plain keys that read as strings; block sequences (also compact
 * `- key: value` items and sequences not indented under their key); single-line plain,
 * single-quoted and double-quoted (without escapes) scalars; `|` and `|-` literal blocks; `{}` and
 * `[]`; comments. For anything else — anchors, aliases, tags, flow collections, multi-line plain or
 * quoted scalars, merge keys, duplicate keys, documents markers, odd indentation, and every
 * malformed text — it returns {@link UNSUPPORTED}, and the full parser decides (and reports errors
 * with their line and column). Where it accepts a text, its value is exactly the full parser's.
 */

import { plainIsString, resolvePlain } from "./resolve.js";

/** The text is outside the subset: read it with the full parser. */
export const UNSUPPORTED: unique symbol = Symbol("unsupported");

/** Thrown inside the reader to give up; never escapes {@link readBlockYaml}. */
const BAIL = { bail: true };

const SPACE = 0x20;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const PIPE = 0x7c;
const COMMA = 0x2c;
const OPEN_SEQ = 0x5b;
const CLOSE_SEQ = 0x5d;
const OPEN_MAP = 0x7b;
const CLOSE_MAP = 0x7d;

/** Characters that may not start a plain scalar here (YAML indicators; `-` is checked apart). */
const INDICATOR = new Uint8Array(128);
for (const c of "-?:,[]{}#&*!|>'\"%@`") INDICATOR[c.charCodeAt(0)] = 1;

/** Characters that end a plain scalar inside a flow collection. */
const FLOW_STOP = new Uint8Array(128);
for (const c of ",[]{}:#") FLOW_STOP[c.charCodeAt(0)] = 1;

/** Characters allowed in a plain key: enough for Kubernetes field names, labels and annotations. */
const KEY_CHAR = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-$") KEY_CHAR[c.charCodeAt(0)] = 1;

/** Anything but printable ASCII and line feeds; document markers at the start of a line. */
const OUTSIDE = /[^\n\x20-\x7e]|^(?:---|\.\.\.)/m;

/**
 * Reads `text` as `readYaml` would, or returns {@link UNSUPPORTED} when the text is outside the
 * subset (including every text the full parser rejects).
 */
export function readBlockYaml(text: string): unknown {
  if (OUTSIDE.test(text)) return UNSUPPORTED;
  try {
    return new BlockReader(text).document();
  } catch (e) {
    if (e === BAIL) return UNSUPPORTED;
    throw e;
  }
}

class BlockReader {
  private readonly lines: string[];
  /** Per line: the column where its unread content starts (its indentation until an item moves it). */
  private readonly start: number[];
  private readonly n: number;
  /** The current line. */
  private i = 0;

  constructor(text: string) {
    this.lines = text.split("\n");
    this.n = this.lines.length;
    this.start = new Array<number>(this.n);
    for (let k = 0; k < this.n; k++) {
      const line = this.lines[k] as string;
      let s = 0;
      while (s < line.length && line.charCodeAt(s) === SPACE) s++;
      this.start[k] = s;
    }
  }

  document(): unknown {
    this.skip();
    if (this.i >= this.n || this.start[this.i] !== 0) throw BAIL;
    const first = this.line().charCodeAt(0);
    const root = first === OPEN_MAP || first === OPEN_SEQ ? this.inlineValue(this.line(), 0, -1, false) : this.block(0);
    this.skip();
    if (this.i < this.n) throw BAIL;
    return root;
  }

  private line(): string {
    return this.lines[this.i] as string;
  }

  /** Moves past blank and comment lines. */
  private skip(): void {
    while (this.i < this.n) {
      const line = this.lines[this.i] as string;
      const s = this.start[this.i] as number;
      if (s < line.length && line.charCodeAt(s) !== HASH) return;
      this.i++;
    }
  }

  /** A block node whose first line (the current one) starts at column `indent`. */
  private block(indent: number): unknown {
    return isDash(this.line(), indent) ? this.sequence(indent) : this.mapping(indent);
  }

  /** The value of an entry whose text ends its line: a nested block on the next lines, or null. */
  private valueOnNextLines(parent: number, inMapping: boolean): unknown {
    this.skip();
    if (this.i >= this.n) return null;
    const s = this.start[this.i] as number;
    if (s > parent) return this.block(s);
    // A sequence may sit at its key's own indentation.
    if (inMapping && s === parent && isDash(this.line(), s)) return this.sequence(s);
    return null;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skip();
      if (this.i >= this.n) break;
      const s = this.start[this.i] as number;
      if (s < indent) break;
      if (s > indent) throw BAIL;
      const line = this.line();
      const sep = keyEnd(line, s);
      if (sep < 0) throw BAIL;
      const key = line.slice(s, sep);
      if (key === "__proto__" || Object.hasOwn(out, key) || !plainIsString(key)) throw BAIL;
      let r = sep + 1;
      while (r < line.length && line.charCodeAt(r) === SPACE) r++;
      out[key] = this.inlineValue(line, r, indent, true);
    }
    return out;
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      this.skip();
      if (this.i >= this.n) break;
      const s = this.start[this.i] as number;
      if (s < indent) break;
      if (s > indent) throw BAIL;
      const line = this.line();
      if (!isDash(line, s)) break;
      let r = s + 1;
      while (r < line.length && line.charCodeAt(r) === SPACE) r++;
      if (r < line.length && line.charCodeAt(r) !== HASH && keyEnd(line, r) >= 0) {
        // `- key: value`: a mapping whose indentation is the key's column.
        this.start[this.i] = r;
        out.push(this.mapping(r));
      } else {
        out.push(this.inlineValue(line, r, indent, false));
      }
    }
    return out;
  }

  /**
   * The value that starts at `r` on the current line (after `key:` or `- `), consuming its lines.
   * `parent` is the indentation of the mapping or sequence holding it.
   */
  private inlineValue(line: string, r: number, parent: number, inMapping: boolean): unknown {
    const len = line.length;
    if (r >= len || line.charCodeAt(r) === HASH) {
      this.i++;
      return this.valueOnNextLines(parent, inMapping);
    }
    const c = line.charCodeAt(r);
    let value: unknown;
    if (c === DQUOTE) {
      const close = line.indexOf('"', r + 1);
      if (close < 0) throw BAIL;
      value = line.slice(r + 1, close);
      if ((value as string).includes("\\")) throw BAIL;
      trailer(line, close + 1);
    } else if (c === SQUOTE) {
      let text = "";
      let k = r + 1;
      for (;;) {
        const q = line.indexOf("'", k);
        if (q < 0) throw BAIL;
        text += line.slice(k, q);
        if (line.charCodeAt(q + 1) === SQUOTE) {
          text += "'";
          k = q + 2;
        } else {
          k = q + 1;
          break;
        }
      }
      value = text;
      trailer(line, k);
    } else if (c === PIPE) {
      let k = r + 1;
      const strip = line.charCodeAt(k) === DASH;
      if (strip) k++;
      trailer(line, k);
      this.i++;
      return this.literal(parent, strip);
    } else if (c === OPEN_MAP || c === OPEN_SEQ) {
      this.pos = r;
      this.flowParent = parent;
      value = this.flowNode(0);
      trailer(this.line(), this.pos);
    } else {
      if (c >= 128 || (INDICATOR[c] === 1 && (c !== DASH || r + 1 >= len || line.charCodeAt(r + 1) === SPACE))) {
        throw BAIL;
      }
      const hash = line.indexOf(" #", r);
      let end = hash < 0 ? len : hash;
      while (end > r && line.charCodeAt(end - 1) === SPACE) end--;
      const text = line.slice(r, end);
      if (text.charCodeAt(text.length - 1) === COLON || text.includes(": ")) throw BAIL;
      if (plainIsString(text)) value = text;
      else {
        const v = resolvePlain(text).value;
        if (typeof v === "number" && !Number.isFinite(v)) throw BAIL;
        value = v;
      }
    }
    this.i++;
    this.noContinuation(parent);
    return value;
  }

  // -------------------------------------------------------------------------------------------
  // Flow collections: `[a, "b", {c: d}]`, possibly over several lines, with plain or quoted scalars.

  /** The position on the current line while reading a flow collection. */
  private pos = 0;
  /** The indentation of the block collection holding the flow collection being read. */
  private flowParent = 0;

  /** A flow node at {@link pos}: a collection or a scalar. `depth` counts the enclosing flow collections. */
  private flowNode(depth: number): unknown {
    const line = this.line();
    const c = line.charCodeAt(this.pos);
    if (c === OPEN_SEQ) {
      this.pos++;
      const out: unknown[] = [];
      this.flowSpace(depth + 1);
      while (this.line().charCodeAt(this.pos) !== CLOSE_SEQ) {
        out.push(this.flowNode(depth + 1));
        if (this.flowSeparator(depth + 1, CLOSE_SEQ) === 0) break;
      }
      this.pos++;
      return out;
    }
    if (c === OPEN_MAP) {
      this.pos++;
      const out: Record<string, unknown> = {};
      this.flowSpace(depth + 1);
      while (this.line().charCodeAt(this.pos) !== CLOSE_MAP) {
        const key = this.flowScalar(true);
        if (typeof key !== "string" || key === "__proto__" || Object.hasOwn(out, key)) throw BAIL;
        const l = this.line();
        if (l.charCodeAt(this.pos) !== COLON) throw BAIL;
        this.pos++;
        this.flowSpaceInLine();
        const v = this.line().charCodeAt(this.pos);
        // The value on the key's line (an empty one reads as null: left to the full parser).
        if (Number.isNaN(v) || v === COMMA || v === CLOSE_MAP || v === HASH) throw BAIL;
        out[key] = this.flowNode(depth + 1);
        if (this.flowSeparator(depth + 1, CLOSE_MAP) === 0) break;
      }
      this.pos++;
      return out;
    }
    const v = this.flowScalar(false);
    this.flowSpace(depth);
    return v;
  }

  /**
   * After an item: spaces, then `,` (and more space) or the closing bracket. Returns 0 when the
   * collection ends (at the bracket), 1 when another item follows.
   */
  private flowSeparator(depth: number, close: number): number {
    this.flowSpace(depth);
    const c = this.line().charCodeAt(this.pos);
    if (c === close) return 0;
    if (c !== COMMA) throw BAIL;
    this.pos++;
    this.flowSpace(depth);
    const next = this.line().charCodeAt(this.pos);
    if (next === COMMA) throw BAIL;
    return next === close ? 0 : 1;
  }

  /** Skips spaces, comments and line breaks inside a flow collection; checks continuation lines' indentation. */
  private flowSpace(depth: number): void {
    let line = this.line();
    for (;;) {
      while (this.pos < line.length && line.charCodeAt(this.pos) === SPACE) this.pos++;
      if (this.pos < line.length) {
        if (line.charCodeAt(this.pos) !== HASH) return;
        if (this.pos > 0 && line.charCodeAt(this.pos - 1) !== SPACE) throw BAIL; // `#` not after a space
      }
      this.i++;
      if (this.i >= this.n) throw BAIL;
      line = this.line();
      const s = this.start[this.i] as number;
      this.pos = s;
      if (s === line.length) continue;
      if (s <= this.flowParent) {
        // Only the closing bracket of the outermost collection may sit at the holder's indentation.
        const c = line.charCodeAt(s);
        if (!(s === this.flowParent && depth === 1 && (c === CLOSE_SEQ || c === CLOSE_MAP))) throw BAIL;
      }
    }
  }

  /** A quoted or plain scalar inside a flow collection, ending on its line. */
  private flowScalar(isKey: boolean): unknown {
    const line = this.line();
    const r = this.pos;
    const c = line.charCodeAt(r);
    if (c === DQUOTE) {
      const close = line.indexOf('"', r + 1);
      if (close < 0) throw BAIL;
      const text = line.slice(r + 1, close);
      if (text.includes("\\")) throw BAIL;
      this.pos = close + 1;
      if (isKey) this.flowSpaceInLine();
      return text;
    }
    if (c === SQUOTE) {
      let text = "";
      let k = r + 1;
      for (;;) {
        const q = line.indexOf("'", k);
        if (q < 0) throw BAIL;
        text += line.slice(k, q);
        if (line.charCodeAt(q + 1) !== SQUOTE) {
          k = q + 1;
          break;
        }
        text += "'";
        k = q + 2;
      }
      this.pos = k;
      if (isKey) this.flowSpaceInLine();
      return text;
    }
    if (c >= 128 || INDICATOR[c] === 1) {
      // `-` may start a plain scalar when a non-space follows (`-1`, `--flag`).
      const next = line.charCodeAt(r + 1);
      if (c !== DASH || next === SPACE || Number.isNaN(next) || FLOW_STOP[next] === 1) throw BAIL;
    }
    let k = r;
    while (k < line.length && FLOW_STOP[line.charCodeAt(k)] !== 1) k++;
    let end = k;
    while (end > r && line.charCodeAt(end - 1) === SPACE) end--;
    if (end === r) throw BAIL;
    const stop = line.charCodeAt(k);
    if (stop === HASH && end === k) throw BAIL; // `a#b`
    if (stop === COLON) {
      // Only a key's `: ` (or `:` at the line end) may stop a plain scalar.
      const after = line.charCodeAt(k + 1);
      if (!isKey || end !== k || !(after === SPACE || Number.isNaN(after))) throw BAIL;
    } else if (isKey) throw BAIL;
    if (k === line.length && !this.flowScalarEndsLine()) throw BAIL;
    const text = line.slice(r, end);
    if (isKey) {
      // The same plain keys as in block mappings (no `<<` merge keys, no spaces).
      for (let j = r; j < end; j++) if (KEY_CHAR[line.charCodeAt(j)] !== 1) throw BAIL;
    }
    const resolved = resolvePlain(text);
    if (isKey && resolved.tag !== "str") throw BAIL;
    const v = resolved.value;
    if (typeof v === "number" && !Number.isFinite(v)) throw BAIL;
    this.pos = end;
    return v;
  }

  /** Whether a plain scalar reaching the line end stops there: the next line starts with `,`, `]` or `}`. */
  private flowScalarEndsLine(): boolean {
    let k = this.i + 1;
    while (k < this.n && (this.start[k] as number) === (this.lines[k] as string).length) k++;
    if (k >= this.n) return false;
    const c = (this.lines[k] as string).charCodeAt(this.start[k] as number);
    return c === COMMA || c === CLOSE_SEQ || c === CLOSE_MAP;
  }

  /** Spaces between a quoted key and its `:` (on the same line). */
  private flowSpaceInLine(): void {
    const line = this.line();
    while (this.pos < line.length && line.charCodeAt(this.pos) === SPACE) this.pos++;
  }

  /** After a one-line scalar: a following line indented past `parent` would continue it (or be an error). */
  private noContinuation(parent: number): void {
    let k = this.i;
    while (k < this.n && (this.start[k] as number) === (this.lines[k] as string).length) k++;
    if (k < this.n && (this.start[k] as number) > parent) throw BAIL;
  }

  /** A `|` (clip) or `|-` (strip) block whose header ended the previous line. */
  private literal(parent: number, strip: boolean): string {
    const lines = this.lines;
    let k = this.i;
    let leadingBlank = 0;
    while (k < this.n && (this.start[k] as number) === (lines[k] as string).length) {
      leadingBlank = Math.max(leadingBlank, (lines[k] as string).length);
      k++;
    }
    if (k >= this.n) throw BAIL;
    const indent = this.start[k] as number;
    if (indent <= parent || leadingBlank > indent) throw BAIL;
    const parts: string[] = [];
    for (let b = this.i; b < k; b++) parts.push("");
    for (; k < this.n; k++) {
      const line = lines[k] as string;
      const s = this.start[k] as number;
      if (s === line.length) {
        if (s > indent) throw BAIL;
        parts.push("");
        continue;
      }
      if (s < indent) {
        if (s > parent) throw BAIL;
        break;
      }
      parts.push(line.slice(indent));
    }
    let end = parts.length;
    while (end > 0 && parts[end - 1] === "") end--;
    // The last content line must end with a line break for clipping to keep one.
    if (end === parts.length && k >= this.n) throw BAIL;
    this.i = k;
    const body = parts.slice(0, end).join("\n");
    return strip ? body : `${body}\n`;
  }
}

/** Whether the content at `s` is a sequence entry (`-` followed by a space or the line end). */
function isDash(line: string, s: number): boolean {
  return line.charCodeAt(s) === DASH && (s + 1 === line.length || line.charCodeAt(s + 1) === SPACE);
}

/**
 * The index of the `:` ending a plain key that starts at `s` (followed by a space or the line end),
 * or -1 when the content is not such a `key:` (also when the key holds unusual characters).
 */
function keyEnd(line: string, s: number): number {
  const first = line.charCodeAt(s);
  if (first === DASH || first === COLON) return -1;
  const len = Math.min(line.length, s + 1000);
  for (let k = s; k < len; k++) {
    const c = line.charCodeAt(k);
    if (c === COLON) {
      if (k === s) return -1;
      const next = line.charCodeAt(k + 1);
      return k + 1 === line.length || next === SPACE ? k : -1;
    }
    if (KEY_CHAR[c] !== 1) return -1;
  }
  return -1;
}

/** What may follow a closed scalar on its line: spaces, then nothing or a comment. */
function trailer(line: string, k: number): void {
  const from = k;
  while (k < line.length && line.charCodeAt(k) === SPACE) k++;
  if (k === line.length) return;
  if (line.charCodeAt(k) === HASH && k > from) return;
  throw BAIL;
}
