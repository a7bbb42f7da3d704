/**
 * Go's strconv.Quote (the `%q` verb on strings), which Go's error messages use to show input.
 * Printable characters stay as they are; the usual C escapes and \x, \u, \U forms cover the rest.
 * (Invalid UTF-8, which Go would show as \xNN, cannot occur in a JavaScript string.)
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (isPrintable(c)) out += ch;
    else if (c < 0x80) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += `\\U${c.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** Approximates unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrintable(c: number): boolean {
  if (c < 0x80) return c >= 0x20 && c !== 0x7f;
  if (c >= 0xd800 && c <= 0xdfff) return false; // lone surrogate
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(String.fromCodePoint(c));
}
