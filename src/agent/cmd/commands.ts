/**
 * pilot-agent's subcommands besides `proxy` (pilot/cmd/pilot-agent/app/cmd.go `NewRootCommand`), by
 * the name the container's command line gives them.
 */
import type { AgentSubcommand } from "./io.js";
import { istioIptablesCommand } from "./istio-iptables/command.js";
import { requestCommand } from "./request.js";
import { versionCommand } from "./version.js";
import { waitCommand } from "./wait.js";

export const PILOT_AGENT_COMMANDS: Readonly<Record<string, AgentSubcommand>> = {
  wait: waitCommand,
  request: requestCommand,
  version: versionCommand,
  "istio-iptables": istioIptablesCommand,
};
