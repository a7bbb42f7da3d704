/**
 * Splits a multi-document YAML stream the way Kubernetes' YAML reader does
 * (k8s.io/apimachinery/pkg/util/yaml: `NewYAMLReader` over a `LineReader`).
 *
 * - The text is read line by line; every line is kept with a `\n` ending (a `\r\n` ending becomes
 *   `\n`, and a last line without a line break gets one).
 * - A line that starts with `---` separates documents when the rest of it is blank or a comment;
 *   anything else after `---` is an error (`invalid Yaml document separator: ...`).
 * - Empty chunks (nothing between two separators) are skipped; separator lines belong to no chunk.
 */

/** A separator line followed by something other than spaces or a comment. */
export class YamlStreamError extends Error {
  override name = "YamlStreamError";
}

const SEPARATOR = "---";

/** The raw documents of a YAML stream, each exactly as the Kubernetes reader returns it. */
export function splitYamlStream(text: string): string[] {
  const docs: string[] = [];
  let buffer = "";
  for (const line of readLines(text)) {
    if (line.startsWith(SEPARATOR)) {
      // Go's strings.TrimSpace: ASCII whitespace plus Unicode spaces.
      const trimmed = line.slice(SEPARATOR.length).trim();
      if (trimmed.length > 0 && !trimmed.startsWith("#")) {
        throw new YamlStreamError(`invalid Yaml document separator: ${trimmed}`);
      }
      if (buffer.length > 0) docs.push(buffer);
      buffer = "";
      continue;
    }
    buffer += line;
  }
  if (buffer.length > 0) docs.push(buffer);
  return docs;
}

/** bufio.Reader.ReadLine plus the `\n` that LineReader appends. */
function readLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) {
      lines.push(`${text.slice(start)}\n`);
      break;
    }
    let end = nl;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    lines.push(`${text.slice(start, end)}\n`);
    start = nl + 1;
  }
  return lines;
}

/** What kube-inject writes after every document, raw or re-serialised. */
export const DOCUMENT_TERMINATOR = "---\n";

/** Joins documents the way kube-inject writes its output: each followed by `---\n`. */
export function joinYamlStream(docs: readonly string[]): string {
  return docs.map((d) => d + DOCUMENT_TERMINATOR).join("");
}
