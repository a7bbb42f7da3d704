/**
 * Go's strconv.Unquote for interpreted ("...") and raw (`...`) string literals, and the reading of
 * a character constant ('a', '\\n') as Go's parser does it (strconv.UnquoteChar's escapes).
 */

/** strconv.Unquote for "..." and `...` literals; undefined on bad syntax. */
export function unquoteString(literal: string): string | undefined {
  const q = literal[0];
  if (literal.length < 2 || literal[literal.length - 1] !== q) return undefined;
  const body = literal.slice(1, -1);
  if (q === "`") return body.includes("`") ? undefined : body.replaceAll("\r", "");
  if (q !== '"') return undefined;
  if (!body.includes("\\")) return body.includes('"') || body.includes("\n") ? undefined : body;
  let out = "";
  for (let i = 0; i < body.length; ) {
    const r = readChar(body, i, '"');
    if (r === undefined) return undefined;
    out += r.value;
    i = r.next;
  }
  return out;
}

/**
 * Reads a character constant like `'a'` or `'\n'` to its code point; "malformed" when more than one
 * character stands between the quotes; undefined on bad syntax.
 */
export function unquoteChar(literal: string): number | "malformed" | undefined {
  const body = literal.slice(1);
  const r = readChar(body, 0, "'");
  if (r === undefined) return undefined;
  if (body.slice(r.next) !== "'") return "malformed";
  return r.code;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
};

/** Reads one (possibly escaped) character of a quoted literal; undefined on bad syntax. */
function readChar(s: string, i: number, q: "'" | '"'): { value: string; code: number; next: number } | undefined {
  const c = s.codePointAt(i);
  if (c === undefined) return undefined;
  const ch = String.fromCodePoint(c);
  if (ch === q || ch === "\n") return undefined;
  if (ch !== "\\") return { value: ch, code: c, next: i + ch.length };
  const e = s[i + 1];
  if (e === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return { value: simple, code: simple.charCodeAt(0), next: i + 2 };
  if (e === q) return { value: q, code: q.charCodeAt(0), next: i + 2 };
  const hexLen = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
  if (hexLen > 0) {
    const digits = s.slice(i + 2, i + 2 + hexLen);
    if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(digits)) return undefined;
    const code = Number.parseInt(digits, 16);
    if (e !== "x" && (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))) return undefined;
    return { value: String.fromCodePoint(code), code, next: i + 2 + hexLen };
  }
  if (e >= "0" && e <= "7") {
    const digits = s.slice(i + 1, i + 4);
    if (!/^[0-7]{3}$/.test(digits)) return undefined;
    const code = Number.parseInt(digits, 8);
    if (code > 255) return undefined;
    return { value: String.fromCharCode(code), code, next: i + 4 };
  }
  return undefined;
}
