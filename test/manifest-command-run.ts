// Runs a manifest command (capture-rules, proxy-config) in-process on in-memory files, as the CLI
// tests do: what it wrote to stdout and stderr, and whether it failed.
import assert from "node:assert/strict";
import type { Command } from "commander";
import type { ManifestCommandIO } from "../src/cli/manifest-command.js";

export interface Run {
  stdout: string;
  stderr: string;
  failed: boolean;
}

/** I/O on in-memory files (`-f NAME` reads `files[NAME]`), recording what is written in `out`. */
export function recordingIo(files: Record<string, string> = {}): { io: ManifestCommandIO; out: Run } {
  const out: Run = { stdout: "", stderr: "", failed: false };
  const io: ManifestCommandIO = {
    readInput: async (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`test: no file ${path}`);
      return text;
    },
    stdout: (text) => {
      out.stdout += text;
    },
    stderr: (text) => {
      out.stderr += text;
    },
    fail: () => {
      out.failed = true;
    },
  };
  return { io, out };
}

/** Runs `make(io)`'s action with `args`, reading `-f NAME` from `files[NAME]`. */
export async function runManifestCommand(
  make: (io: ManifestCommandIO) => Command,
  files: Record<string, string>,
  args: string[],
): Promise<Run> {
  const { io, out } = recordingIo(files);
  const command = make(io);
  command.exitOverride();
  await command.parseAsync(args, { from: "user" });
  return out;
}

/** A failed run: nothing on stdout, one `meshinject: ` line on stderr matching `pattern`. */
export function assertFailed(r: Run, pattern: RegExp): void {
  assert.equal(r.failed, true, r.stdout);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^meshinject: [^\n]+\n$/, `not one line: ${JSON.stringify(r.stderr)}`);
  assert.match(r.stderr, pattern);
}
