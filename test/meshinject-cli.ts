// Runs the `meshinject` command for the CLI tests: in process through main(argv, io) with in-memory
// streams (most tests), or as the real binary from source through tsx (where the process matters).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/program.js";

/** The repository's root folder. */
export const repoRoot = fileURLToPath(new URL("../", import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Standard input (none: an empty one). */
  input?: string | Uint8Array;
  /** The run's whole environment (default: none set, so the host's variables cannot change a result). */
  env?: Record<string, string | undefined>;
}

/**
 * Runs `meshinject ARGS...` in this process: its exit code and what it wrote. Relative paths are
 * read from the test process's folder; pass absolute ones (`join(repoRoot, ...)`).
 */
export async function runMeshinject(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const run: CliRun = { code: null, stdout: "", stderr: "" };
  const { input } = options;
  const io: CliIo = {
    stdin: (async function* () {
      if (input !== undefined) yield typeof input === "string" ? Buffer.from(input) : input;
    })(),
    stdout: {
      write: (text) => {
        run.stdout += text;
      },
    },
    stderr: {
      write: (text) => {
        run.stderr += text;
      },
    },
    env: options.env ?? {},
  };
  run.code = await main(["node", "meshinject", ...args], io);
  return run;
}

/** Runs `meshinject ARGS...` in this process with no standard input. */
export function meshinject(...args: string[]): Promise<CliRun> {
  return runMeshinject(args);
}

/** Runs `meshinject ARGS...` in this process with `input` on standard input. */
export function meshinjectWithInput(input: string, ...args: string[]): Promise<CliRun> {
  return runMeshinject(args, { input });
}

/**
 * Runs the real binary from source (`node --import tsx src/cli/main.ts ARGS...`) in the repository
 * folder, with `input` on standard input (none when undefined) and the test's environment over
 * `env`: for what only a process shows (exit status, streams, the environment it inherits).
 */
export function meshinjectProcess(args: readonly string[], input?: string, env: NodeJS.ProcessEnv = {}): CliRun {
  const r = spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    input,
    env: { ...process.env, ...env },
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Starts `meshinject agent proxy sidecar` from source under `root` (status server on 127.0.0.1) with
 * only PATH and `env` in its environment, its output piped: the agent tests' pod in a process.
 */
export function spawnAgentSidecar(root: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/main.ts", "agent", "proxy", "sidecar", "--root", root, "--status-host", "127.0.0.1"],
    { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** What a child process writes (text so far, as it comes) and its exit code, for tests that watch it run. */
export interface ChildOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code (null when a signal ended it), once its streams are closed. */
  readonly exited: Promise<number | null>;
}

/** Collects a spawned child's standard output and error (those that are pipes) and its exit. */
export function childOutput(child: ChildProcess): ChildOutput {
  const out = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    exited,
  };
}
