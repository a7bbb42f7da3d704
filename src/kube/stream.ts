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

/** A separator line followed by something other than spaces or a comment; `line` is its 1-based line. */
export class YamlStreamError extends Error {
  override name = "YamlStreamError";
  constructor(
    message: string,
    readonly line = 0,
  ) {
    super(message);
  }
}

const SEPARATOR = "---";

/** One raw document of a stream and the 1-based line of the stream where it starts. */
export interface RawDocument {
  text: string;
  /** 1-based line of the whole stream where the document's first line is. */
  line: number;
}

/**
 * Splits a YAML stream that arrives in pieces (any boundaries, even inside a line) into raw
 * documents as soon as each one ends, with the same result as {@link splitYamlStream} on the whole
 * text: `push` returns the documents a piece completes, `end` the last one. Holds only the current
 * document and the current unfinished line.
 */
export class YamlStreamSplitter {
  /** The unfinished last line of what was pushed (no `\n` yet). */
  private partial = "";
  private buffer = "";
  private bufferLine = 0;
  /** Lines seen so far. */
  private lines = 0;

  /** The documents that `piece` completes. Throws {@link YamlStreamError} at a bad separator line. */
  push(piece: string): RawDocument[] {
    const done: RawDocument[] = [];
    let text = piece;
    if (this.partial !== "") {
      text = this.partial + piece;
      this.partial = "";
    }
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) {
        this.partial = text.slice(start);
        break;
      }
      // bufio.Reader.ReadLine drops the \r of a \r\n ending; LineReader appends a \n.
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      this.line(text, start, end, done);
      start = nl + 1;
    }
    return done;
  }

  /** The last document (a last line without a line break gets one). */
  end(): RawDocument[] {
    const done: RawDocument[] = [];
    if (this.partial !== "") {
      const last = this.partial;
      this.partial = "";
      this.line(last, 0, last.length, done);
    }
    if (this.buffer.length > 0) done.push({ text: this.buffer, line: this.bufferLine });
    this.buffer = "";
    return done;
  }

  private line(text: string, start: number, end: number, done: RawDocument[]): void {
    this.lines++;
    if (text.startsWith(SEPARATOR, start) && start + SEPARATOR.length <= end) {
      // Go's strings.TrimSpace: ASCII whitespace plus Unicode spaces.
      const trimmed = text.slice(start + SEPARATOR.length, end).trim();
      if (trimmed.length > 0 && !trimmed.startsWith("#")) {
        throw new YamlStreamError(`invalid Yaml document separator: ${trimmed}`, this.lines);
      }
      if (this.buffer.length > 0) done.push({ text: this.buffer, line: this.bufferLine });
      this.buffer = "";
      return;
    }
    if (this.buffer.length === 0) this.bufferLine = this.lines;
    this.buffer += `${text.slice(start, end)}\n`;
  }
}

/** The raw documents of a YAML stream, each exactly as the Kubernetes reader returns it. */
export function splitYamlStream(text: string): string[] {
  return splitYamlStreamAt(text).map((d) => d.text);
}

/** {@link splitYamlStream} with the line where each document starts. */
export function splitYamlStreamAt(text: string): RawDocument[] {
  const splitter = new YamlStreamSplitter();
  return [...splitter.push(text), ...splitter.end()];
}

/**
 * The documents of a stream that arrives in pieces, each turned into `each`'s text as soon as it
 * has been read (so the first result comes before the last piece is read): one document is held at
 * a time. Throws {@link YamlStreamError} when the stream gets to a bad separator line.
 */
export async function* mapYamlStream(
  pieces: AsyncIterable<string> | Iterable<string>,
  each: (raw: RawDocument, index: number) => string | Promise<string>,
): AsyncGenerator<string> {
  const splitter = new YamlStreamSplitter();
  let index = 0;
  for await (const piece of pieces) {
    for (const raw of splitter.push(piece)) yield await each(raw, index++);
  }
  for (const raw of splitter.end()) yield await each(raw, index++);
}

/** What kube-inject writes after every document, raw or re-serialised. */
export const DOCUMENT_TERMINATOR = "---\n";

/** Joins documents the way kube-inject writes its output: each followed by `---\n`. */
export function joinYamlStream(docs: readonly string[]): string {
  return docs.map((d) => d + DOCUMENT_TERMINATOR).join("");
}
