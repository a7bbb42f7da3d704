/**
 * `meshinject agent`'s subcommands behind one dispatch table: each is a composition root of its own
 * (./proxy.ts, ./bootstrap.ts), given the command line after the subcommand, the environment, the
 * root folder and the output streams; each resolves with its exit code. Errors of a bad start are
 * one line (isAgentCommandError); anything else is a defect and is thrown.
 */
import { EnvoyStartError } from "../envoy/supervisor.js";
import { isAgentStartError } from "../options/agent-options.js";
import { ServerStartError } from "../process/servers.js";
import { bootstrapCommand } from "./bootstrap.js";
import { proxyCommand } from "./proxy.js";

export interface AgentCommandIO {
  /** The arguments after the subcommand (our own flags already taken off). */
  args: readonly string[];
  /** The variables that are set. */
  env: Readonly<Record<string, string>>;
  root: string;
  statusHost?: string;
  stdout(text: string): void;
  stderr(text: string): void;
}

export type AgentCommand = (io: AgentCommandIO) => Promise<number>;

/** The subcommands, by name: pilot-agent's `proxy`, and `bootstrap` (ours: the bootstrap `proxy` would write). */
export const AGENT_COMMANDS: Readonly<Record<string, AgentCommand>> = {
  proxy: (io) => proxyCommand({ ...io, args: ["proxy", ...io.args], writeLog: io.stderr }),
  bootstrap: (io) => bootstrapCommand({ ...io, args: ["proxy", ...io.args] }),
};

/** An error the agent reports in one line and exit code 1. */
export function isAgentCommandError(e: unknown): e is Error {
  return e instanceof EnvoyStartError || e instanceof ServerStartError || isAgentStartError(e);
}
