// Runs the `meshinject` command from source (through tsx), as the end-to-end CLI tests do.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const repoRoot = fileURLToPath(new URL("../", import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `meshinject ARGS...` with no standard input; its exit code and output. */
export function meshinject(...args: string[]): CliRun {
  return meshinjectWithInput(undefined, ...args);
}

/** Runs `meshinject ARGS...` with `input` on standard input (none when undefined). */
export function meshinjectWithInput(input: string | undefined, ...args: string[]): CliRun {
  const r = spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    input,
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
