/**
 * Writing what a manifest command (kube-inject, uninject) makes of its input, one document at a
 * time as it is read: each result (or with --diff its unified diff, coloured on a terminal) goes to
 * stdout as soon as it is done, waiting when stdout is slower than the injection (and stopping
 * quietly when its reader has gone, as after `| head`); or to -o (output-target.ts): a regular
 * file only appears, complete, when the last document is done (a temporary file renamed over it;
 * removed on any error), a device or FIFO is written as the documents come. Nothing but the
 * current document is held.
 */

import { colourDiff, documentDiff } from "../kube/document-diff.js";
import { DOCUMENT_TERMINATOR, mapYamlStream, type RawDocument } from "../kube/stream.js";
import type { CliIo } from "./io.js";
import { inputName } from "./manifest-command.js";
import { WriteError } from "./output.js";
import { type OutputSink, openOutput, writerSink } from "./output-target.js";
import { readInputPieces } from "./read-input.js";

export interface ResultFlags {
  filename: string;
  output?: string;
  diff?: boolean;
}

/**
 * The input's text piece by piece; the first piece is read before this returns, so that an input
 * that cannot be read is reported before anything else is done. Throws InputError.
 */
export async function openInput(
  filename: string,
  stdin: AsyncIterable<Uint8Array | string>,
): Promise<AsyncIterable<string>> {
  const pieces = readInputPieces(filename, stdin, "input");
  const first = await pieces.next();
  return {
    async *[Symbol.asyncIterator]() {
      if (first.done) return;
      yield first.value;
      yield* pieces;
    },
  };
}

/**
 * Turns each document of `input` into `each`'s result and writes it out as soon as it is done (its
 * diff with --diff). A failed -o write is `makeError`'s error naming the file; every other error
 * (the documents', InputError, a YamlStreamError) is thrown on, the -o file left as it was.
 */
/** The process's stdout as a Node stream (which reports a reader gone as an error event), else undefined. */
function nodeStream(out: CliIo["stdout"]): NodeJS.EventEmitter | undefined {
  const emitter = out as Partial<NodeJS.EventEmitter>;
  return typeof emitter.on === "function" && typeof emitter.off === "function"
    ? (emitter as NodeJS.EventEmitter)
    : undefined;
}

export async function streamManifestResult(
  flags: ResultFlags,
  input: AsyncIterable<string>,
  each: (raw: RawDocument, index: number) => string | Promise<string>,
  makeError: (message: string) => Error,
  io: CliIo,
): Promise<void> {
  const writeFailure = (e: unknown) =>
    e instanceof WriteError ? makeError(`-o ${flags.output as string}: ${e.message}`) : e;
  const sink: OutputSink =
    flags.output === undefined
      ? writerSink(io.stdout, true)
      : await openOutput(flags.output, io).catch((e) => Promise.reject(writeFailure(e)));
  // Interrupted (Ctrl-C, a stopped job) while the -o file is being written: its temporary file goes
  // too, and the exit status is the shell's for the signal.
  const interrupted = (signal: NodeJS.Signals) => {
    sink.abortNow();
    process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGHUP" ? 1 : 15));
  };
  const signals = sink.isStdout ? [] : (["SIGINT", "SIGTERM", "SIGHUP"] as const);
  for (const signal of signals) process.once(signal, interrupted);
  const name = inputName(flags.filename);
  const colour = sink.isStdout && io.stdout.isTTY === true && !io.env.NO_COLOR;
  const present = async (raw: RawDocument, index: number) => {
    const result = await each(raw, index);
    if (!flags.diff) return result;
    const diff = documentDiff(name, index, raw.text, result.slice(0, -DOCUMENT_TERMINATOR.length));
    return colour ? colourDiff(diff) : diff;
  };
  // A reader that stops early (`| head`) closes stdout: the write fails with EPIPE, and the work stops.
  const closed = (e: unknown) => sink.isStdout && (e as NodeJS.ErrnoException).code === "EPIPE";
  const ignore = () => undefined;
  const out = sink.isStdout ? nodeStream(io.stdout) : undefined;
  out?.on("error", ignore);
  try {
    for await (const text of mapYamlStream(input, present)) if (text !== "") await sink.write(text);
    await sink.commit();
  } catch (e) {
    await sink.abort();
    if (!closed(e)) throw writeFailure(e);
  } finally {
    out?.off("error", ignore);
    for (const signal of signals) process.off(signal, interrupted);
  }
}
