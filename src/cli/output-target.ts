/**
 * Where `-o PATH` writes, for every command that has it: `-` and the standard streams' names
 * (/dev/stdout, /dev/stderr, /dev/fd/1, /proc/self/fd/2, ...) are the run's own stdout or stderr;
 * a character or block device and a FIFO are opened and written directly (their reader gets the
 * text; /dev/null stays a device); a Unix socket is connected to and written; anything else is a
 * regular file, written atomically (output.ts AtomicFile: a temporary file renamed over it, so
 * that it appears only complete). Replacing a device or FIFO with a regular file, as a rename
 * does, would leave its reader with nothing and /dev/null a file.
 */
import { constants } from "node:fs";
import { dirname } from "node:path";
import type { CliWriter } from "./io.js";
import { AtomicFile, fsErrorText, WriteError } from "./output.js";

/** Where a command's result goes, piece by piece. Every method throws WriteError. */
export interface OutputSink {
  write(text: string): Promise<void>;
  /** After the last piece: the file appears (regular files), the stream is closed. */
  commit(): Promise<void>;
  /** After an error: leaves nothing half-written behind where it can (a regular file stays as it was). */
  abort(): Promise<void>;
  /** For a signal handler about to exit: removes a temporary file at once. */
  abortNow(): void;
  /** True for the run's own standard output (a reader that goes away, as `| head`, is no error). */
  readonly isStdout: boolean;
}

/** The run's streams `-o` may name. */
export interface OutputStreams {
  readonly stdout: CliWriter;
  readonly stderr: CliWriter;
}

/** A Node stream (the process's stdout), which says when a write is done. */
type NodeWriter = CliWriter & { write(text: string, done: (e?: Error | null) => void): boolean };

const isNodeWriter = (out: CliWriter): out is NodeWriter => typeof (out as { on?: unknown }).on === "function";

/**
 * A stream of the run, one write at a time: on a Node stream the next piece waits while a slow
 * reader catches up; another writer (a test's buffer) takes each text at once.
 */
export function writerSink(out: CliWriter, isStdout: boolean): OutputSink {
  return {
    write: (text) =>
      new Promise<void>((resolve, reject) => {
        if (isNodeWriter(out)) out.write(text, (e) => (e ? reject(e) : resolve()));
        else {
          out.write(text);
          resolve();
        }
      }),
    commit: async () => undefined,
    abort: async () => undefined,
    abortNow: () => undefined,
    isStdout,
  };
}

/** Which of the run's streams `path` names (`-`, /dev/stdout, /dev/fd/2, /proc/self/fd/1), if any. */
export function standardStream(path: string): "stdout" | "stderr" | undefined {
  if (path === "-") return "stdout";
  const m = /^(?:\/dev\/std(out|err)|\/dev\/fd\/([12])|\/proc\/self\/fd\/([12]))$/.exec(path);
  if (m === null) return undefined;
  return m[1] === "out" || m[2] === "1" || m[3] === "1" ? "stdout" : "stderr";
}

function fsp(): typeof import("node:fs/promises") {
  return process.getBuiltinModule("node:fs/promises");
}

const writeError = (e: unknown, folder: string) =>
  e instanceof WriteError ? e : new WriteError(fsErrorText(e, folder), (e as NodeJS.ErrnoException).code);

/** A device or FIFO, opened for writing only: not created, not truncated, not replaced. */
async function deviceSink(path: string): Promise<OutputSink> {
  const folder = dirname(path);
  // Opening a FIFO waits for its reader (in Node's thread pool, so the run is not blocked).
  const handle = await fsp()
    .open(path, constants.O_WRONLY)
    .catch((e) => Promise.reject(writeError(e, folder)));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return {
    write: (text) => handle.writeFile(text).catch((e) => Promise.reject(writeError(e, folder))),
    commit: () => close().catch((e) => Promise.reject(writeError(e, folder))),
    abort: () => close().catch(() => undefined),
    abortNow: () => undefined,
    isStdout: false,
  };
}

/** A Unix socket: connected to, written, and ended. */
async function socketSink(path: string): Promise<OutputSink> {
  const net = process.getBuiltinModule("node:net");
  const folder = dirname(path);
  const socket = net.createConnection({ path });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", (e) => reject(writeError(e, folder)));
  });
  let failure: unknown;
  socket.on("error", (e) => {
    failure = e;
  });
  return {
    write: (text) =>
      new Promise<void>((resolve, reject) =>
        socket.write(text, (e) => (e ? reject(writeError(e, folder)) : resolve())),
      ),
    commit: () =>
      new Promise<void>((resolve, reject) =>
        socket.end(() => (failure === undefined ? resolve() : reject(writeError(failure, folder)))),
      ),
    abort: async () => {
      socket.destroy();
    },
    abortNow: () => socket.destroy(),
    isStdout: false,
  };
}

/** The sink of `-o PATH`; `mode` is a new regular file's. Throws WriteError. */
export async function openOutput(path: string, streams: OutputStreams, mode?: number): Promise<OutputSink> {
  const stream = standardStream(path);
  if (stream !== undefined) return writerSink(streams[stream], stream === "stdout");
  // stat follows symbolic links (and /proc's links to pipes and sockets): what the path leads to.
  const info = await fsp()
    .stat(path)
    .catch(() => undefined);
  if (info !== undefined && (info.isCharacterDevice() || info.isBlockDevice() || info.isFIFO())) {
    return deviceSink(path);
  }
  if (info?.isSocket()) return socketSink(path);
  const file = await AtomicFile.open(path, mode);
  return {
    write: (text) => file.write(text),
    commit: () => file.commit(),
    abort: () => file.abort(),
    abortNow: () => file.abortNow(),
    isStdout: false,
  };
}

/** Writes `text` to `-o PATH` ({@link openOutput}) in one piece. Throws WriteError. */
export async function writeOutput(path: string, text: string, streams: OutputStreams, mode?: number): Promise<void> {
  const sink = await openOutput(path, streams, mode);
  try {
    await sink.write(text);
    await sink.commit();
  } catch (e) {
    await sink.abort();
    throw e;
  }
}
