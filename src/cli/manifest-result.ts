/**
 * Writing what a manifest command (kube-inject, uninject) made of its input: the whole result, or
 * with --diff a unified diff per changed document (coloured on a terminal), on stdout or into the
 * -o file, which is replaced atomically.
 */

import { colourDiff, documentDiffs } from "../kube/document-diff.js";
import type { CliIo } from "./io.js";
import { WriteError, writeFileAtomic } from "./output.js";

export interface ResultFlags {
  filename: string;
  output?: string;
  diff?: boolean;
}

/** Writes `result` (or its diff from `input`); a failed -o write is `makeError`'s error, naming the file. */
export async function writeManifestResult(
  flags: ResultFlags,
  input: string,
  result: string,
  makeError: (message: string) => Error,
  io: CliIo,
): Promise<void> {
  let text = result;
  if (flags.diff) {
    text = documentDiffs(flags.filename === "-" ? "stdin" : flags.filename, input, result);
    const terminal = flags.output === undefined && io.stdout.isTTY === true && !io.env.NO_COLOR;
    if (terminal) text = colourDiff(text);
  }
  if (flags.output === undefined) {
    io.stdout.write(text);
    return;
  }
  try {
    await writeFileAtomic(flags.output, text);
  } catch (e) {
    if (!(e instanceof WriteError)) throw e;
    throw makeError(`-o ${flags.output}: ${e.message}`);
  }
}
