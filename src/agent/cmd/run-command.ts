/**
 * The part of cobra every pilot-agent subcommand shares: `-h` / `--help` prints the command's help
 * on standard output and exits 0; a flag pflag refuses, or an error the command returns, ends it the
 * way pilot-agent ends (read-flags.ts `commandFailed`: `Error: ...` on standard error, exit 255).
 */
import { CommandLineError, HelpRequested } from "../command-line.js";
import { type Logger, LogLevelError } from "../process/log.js";
import { type CommandHelp, PILOT_AGENT_GLOBAL_FLAGS, renderHelp } from "./cobra-usage.js";
import type { AgentIo } from "./io.js";
import { commandFailed, commandLogger, type ReadFlags, readFlags } from "./read-flags.js";

/** An error a command returns (cobra's RunE error): printed as pilot-agent prints it. */
export class CommandError extends Error {
  override name = "CommandError";
}

export interface CobraCommand {
  readonly help: Omit<CommandHelp, "globalFlags">;
  /** Cobra's Args check on the positional arguments: a message when they do not fit. */
  readonly checkArgs?: (positional: readonly string[]) => string | undefined;
  readonly run: (flags: ReadFlags, log: Logger) => Promise<void>;
}

/** Runs `command` on `args` (after its name); resolves with pilot-agent's exit code. */
export async function runCobraCommand(command: CobraCommand, args: readonly string[], io: AgentIo): Promise<number> {
  const help: CommandHelp = { ...command.help, globalFlags: PILOT_AGENT_GLOBAL_FLAGS };
  let flags: ReadFlags;
  let log: Logger;
  try {
    flags = readFlags(args, help.flags, help.path);
    log = commandLogger(flags.global, io);
  } catch (e) {
    if (e instanceof HelpRequested) {
      io.stdout(renderHelp(help));
      return 0;
    }
    if (e instanceof CommandLineError || e instanceof LogLevelError) return commandFailed(io, undefined, e.message);
    throw e;
  }
  const argsProblem = command.checkArgs?.(flags.positional);
  if (argsProblem !== undefined) return commandFailed(io, log, argsProblem);
  try {
    await command.run(flags, log);
    return 0;
  } catch (e) {
    if (e instanceof CommandError) return commandFailed(io, log, e.message);
    throw e;
  }
}
