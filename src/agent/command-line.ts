/**
 * A command line read the way spf13/pflag reads it, for any set of flags: `--name value`,
 * `--name=value`, `-p value`, `-p=value`, `-pvalue`, grouped booleans (`-n`), `--bool` /
 * `--bool=false` (never `--bool false`: the `false` is then an ordinary argument), `--` ends the
 * flags, `--help` / `-h` ask for the help. Unknown flags are errors, or, for a command that
 * whitelists them (pflag's `ParseErrorsWhitelist.UnknownFlags`), skipped with the argument after
 * them unless it starts with `-`. The values are handed over as text, in order; what they mean is
 * the caller's business. Used for istio-iptables (capture/flags.ts) and pilot-agent
 * (bootstrap/agent-args.ts).
 */

/** An argument pflag would refuse; the message names the argument and the cause. */
export class CommandLineError extends Error {
  override name = "CommandLineError";
}

/** `--help` or `-h` was given: the command prints its usage (cobra's help flag) instead of running. */
export class HelpRequested extends CommandLineError {
  override name = "HelpRequested";
}

/** What the syntax needs to know of a flag. */
export interface FlagSyntax {
  readonly name: string;
  readonly shorthand?: string;
  /** `bool` for a flag that takes no separate argument; the other kinds are the caller's. */
  readonly kind: string;
}

export interface CommandLineOptions {
  /** Skip unknown flags (and the argument after one, unless it starts with `-`) instead of refusing them. */
  allowUnknown?: boolean;
}

/** One flag of the command line, with its value as text. */
export interface FlagOccurrence<F> {
  flag: F;
  value: string;
  /** The flag for messages: `--name`, or `-p (--name)` for a shorthand. */
  shown: string;
  /** The argument(s) as written: `--name=value`, `--name value`, `--bool`. */
  given: string;
}

/**
 * Reads `args` (without the command name) against `flags`; calls `onFlag` for each flag in order
 * and returns the other arguments. `program` names the command in messages. Throws
 * CommandLineError for an unknown flag (unless allowed), a missing value, bad syntax or a request
 * for the help.
 */
export function readCommandLine<F extends FlagSyntax>(
  args: readonly string[],
  flags: readonly F[],
  program: string,
  onFlag: (occurrence: FlagOccurrence<F>) => void,
  options: CommandLineOptions = {},
): string[] {
  const byName = new Map(flags.map((f) => [f.name, f]));
  const byShorthand = new Map(flags.filter((f) => f.shorthand !== undefined).map((f) => [f.shorthand as string, f]));
  const positional: string[] = [];
  const rest = [...args];
  // pflag's stripUnknownFlagValue: an unknown flag takes the next argument unless it looks like a flag.
  const skipUnknownValue = () => {
    if (rest.length > 0 && !(rest[0] as string).startsWith("-")) rest.shift();
  };
  while (rest.length > 0) {
    const arg = rest.shift() as string;
    if (arg === "--") {
      positional.push(...rest);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const body = arg.slice(2);
      const eq = body.indexOf("=");
      const name = eq < 0 ? body : body.slice(0, eq);
      const inline = eq < 0 ? undefined : body.slice(eq + 1);
      if (name === "" || name.startsWith("-") || name.startsWith("=")) {
        throw new CommandLineError(`bad flag syntax: ${arg}`);
      }
      if (name === "help") throw new HelpRequested(`${arg}: ${program} would only print its help`);
      const flag = byName.get(name);
      if (flag === undefined) {
        if (!options.allowUnknown) throw new CommandLineError(`unknown flag: --${name} (${program} has no such flag)`);
        if (inline === undefined) skipUnknownValue();
        continue;
      }
      let value: string;
      if (inline !== undefined) value = inline;
      else if (flag.kind === "bool") value = "true";
      else if (rest.length > 0) value = rest.shift() as string;
      else throw new CommandLineError(`flag needs an argument: --${name}`);
      const given = inline === undefined && flag.kind !== "bool" ? `${arg} ${value}` : arg;
      onFlag({ flag, value, shown: `--${name}`, given });
      continue;
    }
    // One or more shorthands: -n, -nu 1337, -u1337, -u=1337.
    let letters = arg.slice(1);
    while (letters.length > 0) {
      const letter = letters[0] as string;
      letters = letters.slice(1);
      const flag = byShorthand.get(letter);
      if (flag === undefined && letter === "h") {
        throw new HelpRequested(`-h in ${arg}: ${program} would only print its help`);
      }
      if (flag === undefined && options.allowUnknown) {
        // As pflag: `-x=value` ends the group; otherwise the next argument is the value unless it is a flag.
        if (letters.length > 1 && letters.startsWith("=")) letters = "";
        else skipUnknownValue();
        continue;
      }
      if (flag === undefined) {
        throw new CommandLineError(`unknown shorthand flag: '${letter}' in ${arg} (${program} has no such flag)`);
      }
      let value: string;
      let given = arg;
      if (letters.startsWith("=")) {
        value = letters.slice(1);
        letters = "";
      } else if (flag.kind === "bool") {
        value = "true";
      } else if (letters.length > 0) {
        value = letters;
        letters = "";
      } else if (rest.length > 0) {
        value = rest.shift() as string;
        given = `${arg} ${value}`;
      } else {
        throw new CommandLineError(`flag needs an argument: '${letter}' in ${arg} (--${flag.name})`);
      }
      onFlag({ flag, value, shown: `-${letter} (--${flag.name})`, given });
    }
  }
  return positional;
}
