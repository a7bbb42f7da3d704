/**
 * `meshinject agent`'s subcommands behind one dispatch table: each is a composition root of its own
 * (./proxy.ts, ./bootstrap.ts), given the command line after the subcommand, the environment, the
 * root folder and the output streams; each resolves with its exit code. Errors of a bad start are
 * one line (isAgentCommandError); anything else is a defect and is thrown. Each subcommand's modules
 * are loaded when it runs: `wait` and `request` (the pod's lifecycle hooks) and `version` do not load
 * the running agent's servers, gRPC and protos.
 */

import { asksForHelp } from "../bootstrap/agent-args.js";
import { proxyHelp } from "./proxy-help.js";

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
  proxy: withHelp("proxy", async (io) =>
    (await import("./proxy.js")).proxyCommand({ ...io, args: ["proxy", ...io.args], writeLog: io.stderr }),
  ),
  bootstrap: withHelp("bootstrap", async (io) =>
    (await import("./bootstrap.js")).bootstrapCommand({ ...io, args: ["proxy", ...io.args] }),
  ),
  wait: async (io) => (await import("./wait.js")).waitCommand(io.args, io),
  request: async (io) => (await import("./request.js")).requestCommand(io.args, io),
  version: async (io) => (await import("./version.js")).versionCommand(io.args, io),
  "istio-iptables": async (io) => (await import("./istio-iptables/command.js")).istioIptablesCommand(io.args, io),
};

/** Whether `e` is an error the agent reports in one line and exit code 1 (./errors.ts, loaded then). */
export async function isAgentCommandError(e: unknown): Promise<boolean> {
  return (await import("./errors.js")).isAgentCommandError(e);
}
