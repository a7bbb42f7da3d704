/**
 * What istio-init's and istio-proxy's containers both run: `pilot-agent` (its `istio-iptables` and
 * `proxy` subcommands), and the logging flags it gives every subcommand (its persistent flags).
 */

export const PILOT_AGENT = "pilot-agent";

/** The name of the program an argument runs: its last path element. */
export function programName(arg: string): string {
  return arg.slice(arg.lastIndexOf("/") + 1);
}

/** A flag that takes no part in what is reported: accepted and ignored. */
export interface LoggingFlag {
  readonly name: string;
  readonly kind: "bool" | "string";
}

/** pilot-agent's logging flags: `log_as_json` is a boolean; the others take a value. */
export const LOGGING_FLAGS: readonly LoggingFlag[] = [
  { name: "log_as_json", kind: "bool" },
  ...[
    "log_output_level",
    "log_stacktrace_level",
    "log_caller",
    "log_target",
    "log_rotate",
    "log_rotate_max_age",
    "log_rotate_max_size",
    "log_rotate_max_backups",
    "vklog",
  ].map((name): LoggingFlag => ({ name, kind: "string" })),
];
