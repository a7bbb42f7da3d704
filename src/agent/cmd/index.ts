/**
 * `meshinject agent`'s subcommands behind one dispatch table: each is a composition root of its own
 * (./proxy.ts, ./bootstrap.ts), given the command line after the subcommand, the environment, the
 * root folder and the output streams; each resolves with its exit code. Errors of a bad start are
 * one line (isAgentCommandError); anything else is a defect and is thrown.
 */

import { asksForHelp } from "../bootstrap/agent-args.js";
import { EnvoyStartError } from "../envoy/supervisor.js";
import { isAgentStartError } from "../options/agent-options.js";
import { ServerStartError } from "../process/servers.js";
import { bootstrapCommand } from "./bootstrap.js";
import { istioIptablesCommand } from "./istio-iptables/command.js";
import { proxyCommand } from "./proxy.js";
import { proxyHelp } from "./proxy-help.js";
import { requestCommand } from "./request.js";
import { versionCommand } from "./version.js";
import { waitCommand } from "./wait.js";

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

/** `-h` / `--help` for `proxy` and `bootstrap`: pilot-agent's proxy help and ours, exit 0 (cobra reads it first). */
function withHelp(name: "proxy" | "bootstrap", command: AgentCommand): AgentCommand {
  return async (io) => {
    if (!asksForHelp(io.args)) return command(io);
    io.stdout(proxyHelp(name));
    return 0;
  };
}

/**
 * The subcommands, by name: pilot-agent's `proxy`, `wait`, `request`, `version` and
 * `istio-iptables` (pilot/cmd/pilot-agent/app/cmd.go `NewRootCommand`), and `bootstrap` (ours: the
 * bootstrap `proxy` would write).
 */
export const AGENT_COMMANDS: Readonly<Record<string, AgentCommand>> = {
  proxy: withHelp("proxy", (io) => proxyCommand({ ...io, args: ["proxy", ...io.args], writeLog: io.stderr })),
  bootstrap: withHelp("bootstrap", (io) => bootstrapCommand({ ...io, args: ["proxy", ...io.args] })),
  wait: (io) => waitCommand(io.args, io),
  request: (io) => requestCommand(io.args, io),
  version: (io) => versionCommand(io.args, io),
  "istio-iptables": (io) => istioIptablesCommand(io.args, io),
};

/** An error the agent reports in one line and exit code 1. */
export function isAgentCommandError(e: unknown): e is Error {
  return e instanceof EnvoyStartError || e instanceof ServerStartError || isAgentStartError(e);
}
