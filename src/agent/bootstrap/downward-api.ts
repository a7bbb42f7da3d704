/**
 * The downward-API files pilot-agent reads (`./etc/istio/pod/annotations`, `labels`): one
 * `key="Go-quoted value"` line per entry, as the kubelet writes them (kubectl's fieldpath.FormatMap).
 * Read as Istio's ParseDownwardAPI does: each line split at its first `=`, lines without one
 * skipped, the value unquoted with Go's strconv.Unquote; a value that does not unquote fails the file.
 */
import { quote } from "../../template/strconv.js";

/** A downward-API file that does not parse; the message names the bad value. */
export class DownwardAPIError extends Error {
  override name = "DownwardAPIError";
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
};

/** Go's strconv.Unquote for a double-quoted or backquoted string; undefined where Go gives ErrSyntax. */
export function goUnquote(s: string): string | undefined {
  if (s.length < 2) return undefined;
  const q = s[0];
  if (q !== s[s.length - 1]) return undefined;
  const body = s.slice(1, -1);
  if (q === "`") return body.includes("`") ? undefined : body.replaceAll("\r", "");
  if (q !== '"') return undefined;
  let out = "";
  for (let i = 0; i < body.length; ) {
    const c = body[i] as string;
    if (c === '"' || c === "\n") return undefined;
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined;
    if (e === '"') {
      out += '"';
      i += 2;
      continue;
    }
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    const hexLength = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (hexLength > 0) {
      const hex = body.slice(i + 2, i + 2 + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) return undefined;
      const n = Number.parseInt(hex, 16);
      if (e === "x") {
        // A \x byte: only a complete UTF-8 text is representable here; ASCII bytes are the common case.
        if (n >= 0x80) return undefined;
        out += String.fromCharCode(n);
      } else {
        if (n > 0x10ffff || (n >= 0xd800 && n < 0xe000)) return undefined;
        out += String.fromCodePoint(n);
      }
      i += 2 + hexLength;
      continue;
    }
    if (e >= "0" && e <= "7") {
      const oct = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(oct)) return undefined;
      const n = Number.parseInt(oct, 8);
      if (n >= 0x80) return undefined;
      out += String.fromCharCode(n);
      i += 4;
      continue;
    }
    return undefined;
  }
  return out;
}

/** ParseDownwardAPI: the file's entries; throws DownwardAPIError for a value that does not unquote. */
export function parseDownwardAPI(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const raw = line.slice(eq + 1);
    const value = goUnquote(raw);
    if (value === undefined) throw new DownwardAPIError(`failed to unquote ${raw}: invalid syntax`);
    out[line.slice(0, eq)] = value;
  }
  return out;
}

/** The file text the kubelet writes for a map (keys sorted, `key="value"` lines). */
export function formatDownwardAPI(entries: Readonly<Record<string, string>>): string {
  return Object.keys(entries)
    .sort()
    .map((k) => `${k}=${quote(entries[k] as string)}`)
    .join("\n");
}
