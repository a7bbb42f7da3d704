/**
 * An error message on one line: Go's multierror text (`2 errors occurred:\n\t* a\n\t* b\n\n`, what
 * annotation and mesh validation report, alone or after a prefix such as a file name) becomes
 * `a; b`; any other line breaks become `; ` too.
 */
export function oneLine(message: string): string {
  const lines = message
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const at = lines.findIndex((l) => /\d+ errors? occurred:$/.test(l));
  if (at < 0) return lines.join("; ");
  // "PREFIX: N errors occurred:" then "* item" lines: PREFIX: item; item.
  const prefix = (lines[at] as string).replace(/:?\s*\d+ errors? occurred:$/, "");
  const items = lines.slice(at + 1).map((l) => l.replace(/^\* /, ""));
  const joined = items.join("; ");
  return [...lines.slice(0, at), prefix ? `${prefix}: ${joined}` : joined].join("; ");
}
