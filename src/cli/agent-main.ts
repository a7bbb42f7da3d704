/**
 * `meshinject agent ...` on its own: what program.ts's main() does for `agent`, and the entry of the
 * agent's bundle (dist/cli/agent.js, see scripts/build.mjs), which main.js loads for `agent` so that
 * the sidecar's process holds the agent's code and nothing of the other commands (commander, the
 * injector, its templates and YAML).
 */
import type { CliIo } from "./io.js";

export { processIo } from "./io.js";

/** Runs `meshinject agent ARGS` (the arguments after `agent`); resolves with the exit code. */
export async function runAgentCli(args: readonly string[], io: CliIo): Promise<number> {
  try {
    // Loaded only here: the agent's servers (gRPC, DNS, metrics) are not needed by the other commands.
    const { agentCommand } = await import("./agent.js");
    return await agentCommand(args, io);
  } catch (e) {
    io.stderr.write(`meshinject: internal error: ${e instanceof Error ? e.stack : String(e)}\n`);
    return 1;
  }
}

/** main() of program.ts for a command line whose command is `agent` (node, script, `agent`, ...). */
export function main(argv: readonly string[], io: CliIo): Promise<number> {
  return runAgentCli(argv.slice(3), io);
}
