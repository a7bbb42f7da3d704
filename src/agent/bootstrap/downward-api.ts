/**
 * The downward-API files pilot-agent reads (`./etc/istio/pod/annotations`, `labels`): one
 * `key="Go-quoted value"` line per entry, as the kubelet writes them (kubectl's fieldpath.FormatMap).
 * Read as Istio's ParseDownwardAPI does: each line split at its first `=`, lines without one
 * skipped, the value unquoted with Go's strconv.Unquote (the template engine's, src/template/literal.ts);
 * a value that does not unquote fails the file.
 */

import { quote } from "../../go/strconv.js";
import { unquoteString } from "../../go/unquote.js";

/** A downward-API file that does not parse; the message names the bad value. */
export class DownwardAPIError extends Error {
  override name = "DownwardAPIError";
}

/** ParseDownwardAPI: the file's entries; throws DownwardAPIError for a value that does not unquote. */
export function parseDownwardAPI(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const raw = line.slice(eq + 1);
    const value = unquoteString(raw);
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
