/**
 * What one `meshinject` run reads and writes besides files: its standard streams and environment.
 * The binary passes the process's own (processIo); tests run the command in process with in-memory
 * ones (test/meshinject-cli.ts). Commands write only through it, so a run leaves no trace in the
 * process it runs in; the exit code is main()'s result.
 */

/** Where a command writes text: process.stdout or process.stderr, or a buffer in tests. */
export interface CliWriter {
  write(text: string): void;
  /** True on a terminal (coloured diffs, help wrapped to its width); absent for a buffer or a pipe. */
  readonly isTTY?: boolean;
  /** The terminal's width, when `isTTY`. */
  readonly columns?: number;
}

export interface CliIo {
  /** Standard input, read by `-f -`: chunks of bytes (strings are taken as UTF-8). */
  readonly stdin: AsyncIterable<Uint8Array | string>;
  readonly stdout: CliWriter;
  readonly stderr: CliWriter;
  /** The environment: the templates' `env`, COMPLIANCE_POLICY, NO_COLOR, MESHINJECT_DEBUG, the agent's pod variables. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The process's streams and environment, for the binary. A reader that stops early (`| head`)
 * closes standard output: what is left to write has nowhere to go and is dropped, as by a program
 * that SIGPIPE ends, instead of ending the run in an unhandled EPIPE error (kube-inject also stops
 * its work then; see manifest-result.ts).
 */
export function processIo(): CliIo {
  if (!process.stdout.listeners("error").includes(dropWhenClosed)) process.stdout.on("error", dropWhenClosed);
  return {
    // Read only when asked for: touching process.stdin opens it.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  };
}

function dropWhenClosed(e: NodeJS.ErrnoException): void {
  if (e.code !== "EPIPE") throw e;
}

/**
 * `io.stdin`, touched only when it is read: a command handed a file still passes standard input
 * along (for `-f -`), and opening process.stdin loads Node's file-stream modules (node:fs/promises,
 * readline), a few milliseconds of a short command's start.
 */
export function stdinOnRead(io: CliIo): AsyncIterable<Uint8Array | string> {
  return { [Symbol.asyncIterator]: () => io.stdin[Symbol.asyncIterator]() };
}
