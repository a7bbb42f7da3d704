/**
 * The istio-proxy container's command line read the way `pilot-agent` reads it (cobra + pflag,
 * pilot/cmd/pilot-agent/app/cmd.go): the `proxy` subcommand, its proxy type (first positional
 * argument, `sidecar` by default) and the flags that shape the start: `--domain`, `--meshConfig`
 * (default `./etc/istio/config/mesh`), `--serviceCluster` (default `istio-proxy`) and the legacy
 * `--concurrency`. The syntax is pflag's (../command-line.ts); unknown flags are accepted, as
 * pilot-agent whitelists them, and take the next argument as their value unless it starts with `-`.
 */
import { parseBool, parseInt64 } from "../../go/strconv.js";
import { CommandLineError, type FlagSyntax, HelpRequested, readCommandLine } from "../command-line.js";
import { LOGGING_FLAGS, PILOT_AGENT, programName } from "../pilot-agent.js";
import { BootstrapError } from "./errors.js";

export interface AgentArgs {
  /** The proxy type: `sidecar`, `router` or `waypoint`. */
  proxyType: string;
  /** `--domain` ("" when not given). */
  domain: string;
  /** `--meshConfig`, the mesh config file path. */
  meshConfig: string;
  /** `--serviceCluster`. */
  serviceCluster: string;
  /** `--concurrency` (0 when not given), as pilot-agent's (64-bit) int. */
  concurrency: bigint;
  /** The flags that shape the running agent (absent when not given; the caller applies pilot-agent's defaults). */
  flags?: AgentRunFlags;
}

/** `pilot-agent proxy` flags read when the agent runs (not when it is only described). */
export interface AgentRunFlags {
  proxyLogLevel?: string;
  proxyComponentLogLevel?: string;
  logOutputLevel?: string;
  logAsJSON?: boolean;
  outlierLogPath?: string;
  stsPort?: string;
  templateFile?: string;
  /** `--profiling` (pilot-agent's default: true): the status server's /debug/pprof/. */
  profiling?: boolean;
}

export const DEFAULT_MESH_CONFIG_PATH = "./etc/istio/config/mesh";
export const DEFAULT_SERVICE_CLUSTER = "istio-proxy";

const PROXY_TYPES = new Set(["sidecar", "router", "waypoint"]);
/** Flags of `pilot-agent proxy` that are booleans: they never take the next argument. */
const BOOL_FLAGS = ["profiling"];
/** Flags known to take a value (besides the ones read here); unknown flags behave alike unless the next argument is a flag. */
const VALUE_FLAGS = [
  "domain",
  "meshConfig",
  "serviceCluster",
  "concurrency",
  "stsPort",
  "tokenManagerPlugin",
  "proxyLogLevel",
  "proxyComponentLogLevel",
  "templateFile",
  "outlierLogPath",
];
const AGENT_FLAGS: readonly FlagSyntax[] = [
  ...BOOL_FLAGS.map((name) => ({ name, kind: "bool" })),
  ...VALUE_FLAGS.map((name) => ({ name, kind: "string" })),
  ...LOGGING_FLAGS,
];

/** strconv.ParseInt(s, 0, 64) as pflag's IntVar calls it; undefined on a syntax or range error. */
export function parseGoInt(s: string): bigint | undefined {
  const { value, err } = parseInt64(s, 0);
  return err === undefined ? value : undefined;
}

/** Go's int32(x) conversion: the low 32 bits, signed. */
export function toInt32(n: bigint | number): number {
  return Number(BigInt.asIntN(32, BigInt(n)));
}

/** Whether `pilot-agent proxy` would print its help for `args` (cobra reads `-h` / `--help` before anything else). */
export function asksForHelp(args: readonly string[]): boolean {
  try {
    readCommandLine(args, AGENT_FLAGS, PILOT_AGENT, () => {}, { allowUnknown: true });
    return false;
  } catch (e) {
    return e instanceof HelpRequested;
  }
}

/**
 * Reads pilot-agent's command line (`command` then `args`, already `$(VAR)`-expanded). A `command`
 * that is not pilot-agent, a subcommand other than `proxy`, an unknown proxy type, a flag without
 * its value, bad flag syntax, a request for the help or a bad `--concurrency` value is a
 * BootstrapError: pilot-agent would not start the proxy.
 */
export function parseAgentArgs(command: readonly string[], args: readonly string[]): AgentArgs {
  const first = command[0];
  if (first !== undefined) {
    if (programName(first) !== PILOT_AGENT) {
      throw new BootstrapError(`the container runs ${JSON.stringify(first)}, not pilot-agent`);
    }
  }
  const flags = new Map<string, string>();
  let positional: string[];
  try {
    positional = readCommandLine(
      [...command.slice(1), ...args],
      AGENT_FLAGS,
      PILOT_AGENT,
      ({ flag, value }) => {
        flags.set(flag.name, value);
      },
      { allowUnknown: true },
    );
  } catch (e) {
    if (e instanceof CommandLineError) throw new BootstrapError(`pilot-agent: ${e.message}`, { cause: e });
    throw e;
  }
  const [subcommand, proxyType = "sidecar"] = positional;
  if (subcommand !== "proxy") {
    throw new BootstrapError(
      subcommand === undefined
        ? "pilot-agent is not started with the proxy subcommand"
        : `pilot-agent runs ${JSON.stringify(subcommand)}, not proxy`,
    );
  }
  if (!PROXY_TYPES.has(proxyType)) throw new BootstrapError(`pilot-agent: Invalid proxy Type: ${proxyType}`);
  const concurrencyText = flags.get("concurrency");
  let concurrency = 0n;
  if (concurrencyText !== undefined) {
    const n = parseGoInt(concurrencyText);
    if (n === undefined) {
      throw new BootstrapError(
        `pilot-agent: invalid argument ${JSON.stringify(concurrencyText)} for "--concurrency" flag`,
      );
    }
    concurrency = n;
  }
  const run: AgentRunFlags = {};
  const copy = (flag: string, key: Exclude<keyof AgentRunFlags, "logAsJSON" | "profiling">) => {
    const v = flags.get(flag);
    if (v !== undefined) run[key] = v;
  };
  copy("proxyLogLevel", "proxyLogLevel");
  copy("proxyComponentLogLevel", "proxyComponentLogLevel");
  copy("log_output_level", "logOutputLevel");
  copy("outlierLogPath", "outlierLogPath");
  copy("stsPort", "stsPort");
  copy("templateFile", "templateFile");
  const json = flags.get("log_as_json");
  if (json !== undefined)
    run.logAsJSON = json === "true" || json === "1" || json === "t" || json === "TRUE" || json === "True";
  const profiling = flags.get("profiling");
  if (profiling !== undefined) {
    // pflag's BoolVar: strconv.ParseBool, and a value it refuses is an error.
    const b = parseBool(profiling);
    if (b === undefined) {
      throw new BootstrapError(`pilot-agent: invalid argument ${JSON.stringify(profiling)} for "--profiling" flag`);
    }
    run.profiling = b;
  }
  const parsed: AgentArgs = {
    proxyType,
    domain: flags.get("domain") ?? "",
    meshConfig: flags.get("meshConfig") ?? DEFAULT_MESH_CONFIG_PATH,
    serviceCluster: flags.get("serviceCluster") ?? DEFAULT_SERVICE_CLUSTER,
    concurrency,
  };
  if (Object.keys(run).length > 0) parsed.flags = run;
  return parsed;
}
