/**
 * `pilot-agent version` (pkg/version/cobra.go `CobraCommand`, without the remote options pilot-agent
 * does not give it): `client version: ` and the build information as Go's `%#v` prints
 * version.BuildInfo, `--short` / `-s` the version alone, `-o json` / `-o yaml` the Version object.
 * The build information is this agent's: the Istio release it stands in for as version and tag
 * (AGENT_ISTIO_VERSION), Node's version where Go's would be, and Istio's `unknown` for what a
 * build stamps in (revision, status).
 */
import { quote } from "../../go/strconv.js";
import { writeYaml } from "../../go/yaml/write.js";
import { AGENT_ISTIO_VERSION } from "../version.js";
import type { AgentIo } from "./io.js";
import { CommandError, runCobraCommand } from "./run-command.js";

/** pkg/version's BuildInfo, in its field order. */
export interface BuildInfo {
  version: string;
  revision: string;
  golang_version: string;
  status: string;
  tag: string;
}

export function buildInfo(): BuildInfo {
  return {
    version: AGENT_ISTIO_VERSION,
    revision: "unknown",
    golang_version: process.version,
    status: "unknown",
    tag: AGENT_ISTIO_VERSION,
  };
}

/** BuildInfo.LongForm: Go's `%#v` of the struct. */
export function longForm(b: BuildInfo): string {
  return (
    `version.BuildInfo{Version:${quote(b.version)}, GitRevision:${quote(b.revision)}, ` +
    `GolangVersion:${quote(b.golang_version)}, BuildStatus:${quote(b.status)}, GitTag:${quote(b.tag)}}`
  );
}

export const VERSION_FLAGS = [
  {
    name: "short",
    shorthand: "s",
    type: "bool",
    defValue: "false",
    usage: "Use --short=false to generate full version information",
  },
  { name: "output", shorthand: "o", type: "string", defValue: "", usage: "One of 'yaml' or 'json'." },
] as const;

export function versionCommand(args: readonly string[], io: AgentIo): Promise<number> {
  return runCobraCommand(
    {
      help: { path: "pilot-agent version", description: "Prints out build version information", flags: VERSION_FLAGS },
      async run({ values }) {
        const output = values.get("output") as string;
        if (output !== "" && output !== "yaml" && output !== "json") {
          throw new CommandError("--output must be 'yaml' or 'json'");
        }
        const info = buildInfo();
        if (output === "json") io.stdout(`${JSON.stringify({ clientVersion: info }, null, 2)}\n`);
        else if (output === "yaml") io.stdout(`${writeYaml({ clientVersion: info })}\n`);
        else if (values.get("short") === true) io.stdout(`client version: ${info.version}\n`);
        else io.stdout(`client version: ${longForm(info)}\n`);
      },
    },
    args,
    io,
  );
}
