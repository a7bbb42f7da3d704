/**
 * `meshinject agent`: the sidecar's own process, in place of Istio's pilot-agent.
 *   meshinject agent proxy [sidecar|router] [pilot-agent's flags] [--root DIR]
 *   meshinject agent bootstrap [the same]     prints Envoy's bootstrap, starts nothing
 *   meshinject agent wait|request|version|istio-iptables ...   pilot-agent's other subcommands
 * The arguments are read as pilot-agent reads them (pflag syntax, unknown flags accepted), so the
 * injected istio-proxy container's command line works unchanged; `--root` (ours) is where
 * pilot-agent's paths resolve (default `/`). Errors are one line and exit 1; otherwise the exit code
 * is Envoy's when it exits by itself, 0 after a SIGTERM drain.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { AGENT_COMMANDS, isAgentCommandError } from "../agent/cmd/index.js";
import { AGENT_USAGE } from "./agent-usage.js";
import type { CliIo } from "./io.js";

/** Our own flags, split off pilot-agent's arguments: `--root DIR` and `--status-host ADDR`. */
export function splitOwnFlags(args: readonly string[]): { root: string; statusHost?: string; rest: string[] } {
  const rest: string[] = [];
  const own: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const name = ["--root", "--status-host"].find((f) => a === f || a.startsWith(`${f}=`));
    if (name === undefined) {
      rest.push(a);
      continue;
    }
    let value = a.slice(name.length + 1);
    if (a === name) {
      const next = args[i + 1];
      if (next === undefined) throw new AgentCliError(`${name} needs a value`);
      value = next;
      i++;
    }
    own[name] = value;
  }
  return { root: usableRoot(resolve(own["--root"] ?? "/")), statusHost: own["--status-host"], rest };
}

/** `--root` must name a folder: pilot-agent's paths resolve under it. */
function usableRoot(root: string): string {
  let isFolder: boolean;
  try {
    isFolder = statSync(root).isDirectory();
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such folder" : (e as Error).message;
    throw new AgentCliError(`--root ${root}: ${why}`);
  }
  if (!isFolder) throw new AgentCliError(`--root ${root}: not a folder`);
  return root;
}

export class AgentCliError extends Error {
  override name = "AgentCliError";
}

/** The variables that are set (the agent reads no unset one). */
function setVariables(env: CliIo["env"]): Record<string, string> {
  const set: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) set[name] = value;
  return set;
}

/** Runs `meshinject agent ...` (args after `agent`); resolves with the exit code. */
export async function agentCommand(args: readonly string[], cli: CliIo): Promise<number> {
  const io = {
    env: setVariables(cli.env),
    stdout: (text: string) => cli.stdout.write(text),
    stderr: (text: string) => cli.stderr.write(text),
  };
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "help" || sub === "--help" || sub === "-h") {
    io.stdout(AGENT_USAGE);
    return sub === undefined ? 1 : 0;
  }
  try {
    const command = Object.hasOwn(AGENT_COMMANDS, sub) ? AGENT_COMMANDS[sub] : undefined;
    if (command === undefined) {
      throw new AgentCliError(
        `unknown agent command ${JSON.stringify(sub)} (${Object.keys(AGENT_COMMANDS).join(", ")})`,
      );
    }
    const { root, statusHost, rest: commandArgs } = splitOwnFlags(rest);
    return await command({ ...io, args: commandArgs, root, statusHost });
  } catch (e) {
    if (e instanceof AgentCliError || (await isAgentCommandError(e))) {
      io.stderr(`meshinject agent: ${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
}
