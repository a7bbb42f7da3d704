/**
 * A YAML stream read document by document, for the commands that report on manifests: each
 * document's value with where it stands (`SOURCE: document N`), and a stream or a document that
 * cannot be read turned into the caller's error, on one line, naming it.
 */

import { readYaml, YamlError } from "../go/yaml/read.js";
import { oneLine } from "./one-line.js";
import { splitYamlStream, YamlStreamError } from "./stream.js";

export interface StreamDocument {
  /** The document read as Kubernetes reads YAML (null for an empty one). */
  obj: unknown;
  /** `SOURCE: document N`, for messages. */
  where: string;
}

/** The documents of `text`; `fail` makes the error to throw for what cannot be read (its cause given). */
export function readStream(
  text: string,
  source: string,
  fail: (message: string, cause: Error) => Error,
): StreamDocument[] {
  let docs: string[];
  try {
    docs = splitYamlStream(text);
  } catch (e) {
    if (e instanceof YamlStreamError) throw fail(`${source}: ${oneLine(e.message)}`, e);
    throw e;
  }
  return docs.map((raw, i) => {
    const where = `${source}: document ${i + 1}`;
    try {
      return { obj: readYaml(raw), where };
    } catch (e) {
      if (e instanceof YamlError) throw fail(`${where}: ${oneLine(e.message)}`, e);
      throw e;
    }
  });
}
