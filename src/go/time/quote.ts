/** How Go's time package quotes text in its error messages. */

/** time's own quoting for error messages: only `"` and `\` are escaped; bytes outside ASCII print as \x. */
export function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, "utf8")) out += `\\x${b.toString(16).padStart(2, "0")}`;
    } else out += c === 0x22 || c === 0x5c ? `\\${ch}` : ch;
  }
  return `${out}"`;
}
