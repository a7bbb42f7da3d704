/**
 * The errors `meshinject agent` reports in one line and exit code 1 (a bad start: Envoy, a server, the
 * options). Kept apart from the dispatch table (./index.ts), which loads no subcommand's modules
 * before it runs: this file imports the modules those errors come from.
 */
import { EnvoyStartError } from "../envoy/supervisor.js";
import { isAgentStartError } from "../options/agent-options.js";
import { ServerStartError } from "../process/servers.js";

/** An error the agent reports in one line and exit code 1. */
export function isAgentCommandError(e: unknown): e is Error {
  return e instanceof EnvoyStartError || e instanceof ServerStartError || isAgentStartError(e);
}
