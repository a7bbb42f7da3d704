/**
 * What the commands that report on an injected manifest share (`capture-rules`, `proxy-config`):
 * their `-f` and `-n` options, reading `-f FILE` (or standard input for `-`, a byte-order mark
 * dropped), writing, and turning their errors into one `meshinject: MESSAGE` line and exit code 1.
 * The I/O is replaceable for tests.
 */

import { Option } from "commander";
import { type CliIo, stdinOnRead } from "./io.js";
import { InputError as ManifestInputError, readInputText } from "./read-input.js";

/** `-f, --filename <file>` (required): the injected manifest. */
export function filenameOption(): Option {
  return new Option(
    "-f, --filename <file>",
    "injected Kubernetes YAML; - reads standard input (required)",
  ).makeOptionMandatory();
}

/** `-n, --namespace <namespace>`: the namespace of objects that name none (default `default`, as kubectl applies). */
export function namespaceOption(): Option {
  return new Option(
    "-n, --namespace <namespace>",
    "namespace of objects that name none (what kubectl applies them to; also the downward API's metadata.namespace)",
  ).default("default");
}

/** What a manifest command reads and writes; replaceable for tests. */
export interface ManifestCommandIO {
  /** A file's text; `-` is standard input. */
  readInput(path: string): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Marks the run as failed (exit code 1). */
  fail(): void;
}

/** A file that cannot be read; one line naming it. */
export { InputError as ManifestInputError } from "./read-input.js";

/** The files and a run's streams; `fail` marks the run as failed. */
export function manifestCommandIo(io: CliIo, fail: () => void): ManifestCommandIO {
  return {
    readInput: (path) => readInputText(path, stdinOnRead(io)),
    stdout: (text) => io.stdout.write(text),
    stderr: (text) => io.stderr.write(text),
    fail,
  };
}

/** The input's name in messages: `stdin` for `-`, else the path. */
export function inputName(path: string): string {
  return path === "-" ? "stdin" : path;
}

/**
 * Runs a command's work: an error for which `isUserError` holds (or a ManifestInputError) is
 * printed as `meshinject: MESSAGE` and fails the run; any other error is thrown on (a bug).
 */
export async function runManifestCommand(
  io: ManifestCommandIO,
  isUserError: (e: unknown) => boolean,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (e) {
    if (!(e instanceof ManifestInputError || isUserError(e))) throw e;
    io.stderr(`meshinject: ${(e as Error).message}\n`);
    io.fail();
  }
}
