/**
 * A subcommand's flags read as cobra hands them to pflag: the command's own flags and pilot-agent's
 * persistent logging flags, in pflag's syntax (../command-line.ts); each value converted as its
 * pflag type converts it (Go's strconv, base 0 for integers), with pflag's error text.
 */
import { numErrorText, parseBool, parseInt64 } from "../../go/strconv.js";
import { CommandLineError, type FlagSyntax, readCommandLine } from "../command-line.js";
import { type Level, Logger, parseOutputLevels } from "../process/log.js";
import type { FlagHelp } from "./cobra-usage.js";
import { PILOT_AGENT_GLOBAL_FLAGS } from "./cobra-usage.js";
import type { AgentIo } from "./io.js";

export type FlagValue = string | bigint | boolean;

export interface ReadFlags {
  /** Every flag of the command, given or not (its default then), by name. */
  values: Map<string, FlagValue>;
  /** The global (logging) flags that were given, by name, as text. */
  global: Map<string, string>;
  positional: string[];
}

const INT_BITS: Record<string, number> = { int: 64, int64: 64, int32: 32, int16: 16, int8: 8 };

/** A flag's text as pflag's Set converts it for `type`; throws CommandLineError with pflag's message. */
function convert(f: FlagHelp, text: string, shown: string): FlagValue {
  const bad = (why: string) =>
    new CommandLineError(`invalid argument ${JSON.stringify(text)} for "${shown}" flag: ${why}`);
  if (f.type === "bool") {
    const b = parseBool(text);
    if (b === undefined) throw bad(numErrorText("ParseBool", text, "syntax"));
    return b;
  }
  const bits = INT_BITS[f.type];
  if (bits !== undefined) {
    const parsed = parseInt64(text, 0);
    const limit = 1n << BigInt(bits - 1);
    const err = parsed.err ?? (parsed.value >= limit || parsed.value < -limit ? "range" : undefined);
    if (err !== undefined) throw bad(numErrorText("ParseInt", text, err));
    return parsed.value;
  }
  return text;
}

/** The default of a flag as a value of its type. */
function defaultValue(f: FlagHelp): FlagValue {
  if (f.type === "bool") return f.defValue === "true";
  if (INT_BITS[f.type] !== undefined) return BigInt(f.defValue);
  return f.defValue;
}

/**
 * Reads `args` against `flags` and pilot-agent's logging flags. Throws HelpRequested for `-h` /
 * `--help`, CommandLineError for anything pflag refuses.
 */
export function readFlags(args: readonly string[], flags: readonly FlagHelp[], program: string): ReadFlags {
  const values = new Map<string, FlagValue>(flags.map((f) => [f.name, defaultValue(f)]));
  const global = new Map<string, string>();
  const own = new Set(flags.map((f) => f.name));
  const syntax: (FlagSyntax & { help: FlagHelp })[] = [...flags, ...PILOT_AGENT_GLOBAL_FLAGS].map((f) => ({
    name: f.name,
    ...(f.shorthand === undefined ? {} : { shorthand: f.shorthand }),
    kind: f.type === "bool" ? "bool" : "value",
    help: f,
  }));
  const positional = readCommandLine(args, syntax, program, ({ flag, value }) => {
    if (own.has(flag.name)) {
      const shown = flag.shorthand === undefined ? `--${flag.name}` : `-${flag.shorthand}, --${flag.name}`;
      values.set(flag.name, convert(flag.help, value, shown));
    } else {
      global.set(flag.name, value);
    }
  });
  return { values, global, positional };
}

/** The logger pilot-agent's logging flags ask for, writing to standard output (pkg/log's default target). */
export function commandLogger(global: ReadonlyMap<string, string>, io: AgentIo): Logger {
  const spec = global.get("log_output_level");
  const levels: Map<string, Level> | undefined = spec === undefined ? undefined : parseOutputLevels(spec);
  const json = global.has("log_as_json") && parseBool(global.get("log_as_json") as string) === true;
  return new Logger({ ...(levels === undefined ? {} : { levels }), json, write: io.stdout });
}

/**
 * How pilot-agent ends on a command's error: cobra prints `Error: <message>` on standard error,
 * then main logs it (`log.Error`) and exits with -1, which the shell sees as 255.
 */
export function commandFailed(io: AgentIo, log: Logger | undefined, message: string): number {
  io.stderr(`Error: ${message}\n`);
  (log ?? new Logger({ write: io.stdout })).error(message);
  return 255;
}
