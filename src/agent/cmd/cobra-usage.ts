/**
 * A command's help as cobra prints it for `--help` / `-h` (spf13/cobra's default help and usage
 * templates, spf13/pflag's FlagUsages): the long or short description, `Usage:`, the command's own
 * flags (with cobra's `-h, --help`) and the flags it inherits from pilot-agent, each sorted by name,
 * its usage text aligned three spaces after the longest flag, its default when it is not the type's
 * zero value. Written by hand: the layout is cobra's, which no Node library reproduces.
 */

/** One flag as pflag describes it. */
export interface FlagHelp {
  readonly name: string;
  readonly shorthand?: string;
  /** pflag's type name: `string`, `bool`, `int`, `int32`, `duration`, `stringArray`, `uint16`, ... */
  readonly type: string;
  /** The default as pflag prints it (`DefValue`): `60`, `http://...`, `[stdout]`, `false`. */
  readonly defValue: string;
  readonly usage: string;
}

/** A command's help: cobra's `Use` (after the program), its description and its flags. */
export interface CommandHelp {
  /** The command path as cobra prints it: `pilot-agent wait`. */
  readonly path: string;
  /** What follows the path in the usage line (cobra's `Use` minus its first word): `<method> <path> [<body>]`. */
  readonly args?: string;
  /** The `Long` description, or the `Short` one when there is no long one. */
  readonly description: string;
  readonly flags: readonly FlagHelp[];
  readonly globalFlags: readonly FlagHelp[];
}

const ZERO_DEFAULTS = new Set(["false", "<nil>", "", "0"]);

/** pflag's defaultIsZeroValue, by type. */
function defaultIsZero(f: FlagHelp): boolean {
  switch (f.type) {
    case "bool":
      return f.defValue === "false";
    case "duration":
      return f.defValue === "0" || f.defValue === "0s";
    case "int":
    case "int32":
    case "int64":
    case "uint":
    case "uint16":
    case "uint32":
    case "uint64":
      return f.defValue === "0";
    case "string":
      return f.defValue === "";
    case "stringArray":
    case "stringSlice":
      return f.defValue === "[]";
    default:
      return ZERO_DEFAULTS.has(f.defValue);
  }
}

/** pflag's UnquoteUsage: the name shown after the flag (a back-quoted word of the usage, else from the type). */
function varName(f: FlagHelp): { name: string; usage: string } {
  const quoted = /`([^`]*)`/.exec(f.usage);
  if (quoted !== null) return { name: quoted[1] as string, usage: f.usage.replace(/`/g, "") };
  const byType: Record<string, string> = {
    bool: "",
    float64: "float",
    int64: "int",
    uint64: "uint",
    stringSlice: "strings",
  };
  return { name: byType[f.type] ?? f.type, usage: f.usage };
}

/** pflag's FlagUsages for a flag set (sorted by name). */
export function flagUsages(flags: readonly FlagHelp[]): string {
  const lines: { head: string; tail: string }[] = [];
  for (const f of [...flags].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    let head = f.shorthand === undefined ? `      --${f.name}` : `  -${f.shorthand}, --${f.name}`;
    const { name, usage } = varName(f);
    if (name !== "") head += ` ${name}`;
    let tail = usage;
    if (!defaultIsZero(f))
      tail += f.type === "string" ? ` (default ${JSON.stringify(f.defValue)})` : ` (default ${f.defValue})`;
    lines.push({ head, tail });
  }
  const width = Math.max(0, ...lines.map((l) => l.head.length)) + 1;
  return lines.map((l) => `${l.head}${" ".repeat(width - l.head.length + 2)}${l.tail}`.trimEnd()).join("\n");
}

/** cobra's `-h, --help` flag for a command named `name`. */
export function helpFlag(name: string): FlagHelp {
  return { name: "help", shorthand: "h", type: "bool", defValue: "false", usage: `help for ${name}` };
}

/** The help text cobra prints for `--help` (its help template with the usage template inside). */
export function renderHelp(c: CommandHelp): string {
  const name = c.path.slice(c.path.lastIndexOf(" ") + 1);
  const local = [...c.flags, helpFlag(name)];
  const useLine = `${c.path}${c.args === undefined ? "" : ` ${c.args}`} [flags]`;
  let text = `${c.description.trimEnd()}\n\nUsage:\n  ${useLine}\n\nFlags:\n${flagUsages(local)}\n`;
  if (c.globalFlags.length > 0) text += `\nGlobal Flags:\n${flagUsages(c.globalFlags)}\n`;
  return text;
}

const LEVELS = "[debug, info, warn, error, fatal, none]";

/**
 * pilot-agent's persistent flags (pkg/log's AttachCobraFlags, and klog's `--vklog`), which every
 * subcommand shows as Global Flags. Istio lists every logging scope of its binary in two of the
 * texts; the scopes are not listed here.
 */
export const PILOT_AGENT_GLOBAL_FLAGS: readonly FlagHelp[] = [
  {
    name: "log_target",
    type: "stringArray",
    defValue: "[stdout]",
    usage:
      "The set of paths where to output the log. This can be any path as well as the special values stdout and stderr",
  },
  {
    name: "log_as_json",
    type: "bool",
    defValue: "false",
    usage: "Whether to format output as JSON or in plain console-friendly format",
  },
  {
    name: "log_output_level",
    type: "string",
    defValue: "",
    usage: `Comma-separated minimum per-scope logging level of messages to output, in the form of <scope>:<level>,<scope>:<level>,... where level can be one of ${LEVELS}`,
  },
  {
    name: "log_stacktrace_level",
    type: "string",
    defValue: "default:none",
    usage: `Comma-separated minimum per-scope logging level at which stack traces are captured, in the form of <scope>:<level>,<scope:level>,... where level can be one of ${LEVELS}`,
  },
  {
    name: "log_caller",
    type: "string",
    defValue: "",
    usage: "Comma-separated list of scopes for which to include caller information",
  },
  {
    name: "vklog",
    type: "Level",
    defValue: "0",
    usage: "number for the log level verbosity. Like -v flag. ex: --vklog=9",
  },
];
