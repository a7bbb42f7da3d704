/**
 * The `istio-iptables` command line (the `args` of an injected pod's `istio-init` container) read
 * into a CaptureConfig, the way the command itself reads it (Istio's tools/istio-iptables/pkg/cmd;
 * its flags are in iptables-command.ts, their syntax in ../command-line.ts, their values in
 * flag-values.ts):
 *
 * - it starts from the command's defaults (config.ts `defaultCaptureConfig`: ports 15001/15006/15008,
 *   TPROXY mark 1337 and route table 133, probe port 15002 with a 5s timeout);
 * - the environment comes next: every flag but `--envoy-port` can also be set by its name in upper
 *   case with `-` as `_` (`--proxy-uid` by `PROXY_UID`), and three flags by a second variable
 *   (`ISTIO_META_DNS_CAPTURE`, `INVALID_DROP`, `ISTIO_DUAL_STACK`, which win over the first); a value
 *   that does not parse still sets the flag, to what pflag leaves on the error (false, 0, 0s; a
 *   port out of range is 65535), as the command ignores the error but not the write;
 * - then the flags, which win over the environment;
 * - finally the settings that are environment variables only (`ISTIO_OUTBOUND_OWNER_GROUPS`,
 *   `ISTIO_OUTBOUND_OWNER_GROUPS_EXCLUDE`, `ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR`), and the proxy uid
 *   (empty: 1337, the `istio-proxy` user of the proxy image) and gid (empty: the uid).
 *
 * What the command finds out at run time is not here: whether the pod has IPv6 (EnableIPv6,
 * HostIP) and, with `--redirect-dns` but not `--capture-all-dns`, the name servers of
 * /etc/resolv.conf (DNSServersV4/V6); the caller supplies those.
 *
 * pilot-agent runs the command as its `istio-iptables` subcommand, so a leading `istio-iptables`
 * (or `pilot-agent istio-iptables`) is the command name, not an argument. pilot-agent's logging
 * flags (`--log_output_level` and the like) are accepted and ignored.
 */
import { CommandLineError, readCommandLine } from "../command-line.js";
import { type CaptureConfig, defaultCaptureConfig } from "./config.js";
import { type FlagValue, parseFlagValue, valueDespiteError } from "./flag-values.js";
import {
  DEFAULT_PROXY_UID,
  ENV_ONLY,
  flagEnvName,
  IPTABLES_FLAGS,
  type IptablesFlag,
  ISTIO_IPTABLES,
  LOGGING_FLAGS,
  type StringField,
  withoutCommandName,
} from "./iptables-command.js";

/** An argument the command would refuse; the message names the flag and the cause. */
export class CaptureFlagError extends Error {
  override name = "CaptureFlagError";
}

export interface CaptureArgsOptions {
  /** The container's environment (name → value); none by default. */
  env?: Readonly<Record<string, string>>;
  /**
   * The uid of a user name where the command runs (Go's user.Lookup), for an empty proxy uid:
   * the command takes ENVOY_USER's (default `istio-proxy`) and 1337 when there is no such user.
   * Without it (a pod read from outside), the proxy uid is 1337.
   */
  lookupUid?: (user: string) => string | undefined;
}

export interface ParsedCaptureArgs {
  config: CaptureConfig;
  /** The arguments that are not flags: the command ignores them (`--redirect-dns false` leaves `false` here). */
  positional: string[];
  /** The logging flags that were given (ignored). */
  ignored: string[];
  /** The fields set from the environment, with the variable that set them last. */
  fromEnv: Partial<Record<keyof CaptureConfig, string>>;
}

const ACCEPTED_FLAGS = [...IPTABLES_FLAGS, ...LOGGING_FLAGS];

function setField(config: CaptureConfig, field: keyof CaptureConfig, value: FlagValue): void {
  (config as unknown as Record<string, unknown>)[field] = value;
}

/**
 * Reads `istio-iptables` arguments (and, when given, the container's environment) into the
 * CaptureConfig the command builds. Throws CaptureFlagError for an unknown flag, a missing value or
 * a value that does not parse, naming the flag.
 */
export function parseCaptureArgs(args: readonly string[], options: CaptureArgsOptions = {}): ParsedCaptureArgs {
  const env = options.env ?? {};
  const config = defaultCaptureConfig();
  const fromEnv: Partial<Record<keyof CaptureConfig, string>> = {};

  // The environment, read as each flag is registered; a value the flag cannot take is skipped.
  const fromVariable = (spec: IptablesFlag, variable: string) => {
    if (!Object.hasOwn(env, variable)) return;
    const text = env[variable] as string;
    const converted = parseFlagValue(spec.kind, text);
    // A value that does not parse still sets the flag, to pflag's leftover (Istio ignores the error).
    setField(config, spec.field, "error" in converted ? valueDespiteError(spec.kind, text) : converted.value);
    fromEnv[spec.field] = variable;
  };
  for (const spec of IPTABLES_FLAGS) {
    if (spec.env) fromVariable(spec, flagEnvName(spec.name));
    if (spec.additionalEnv !== undefined) fromVariable(spec, spec.additionalEnv);
  }

  const ignored: string[] = [];
  let positional: string[];
  try {
    positional = readCommandLine(
      withoutCommandName(args),
      ACCEPTED_FLAGS,
      ISTIO_IPTABLES,
      ({ flag, value, shown, given }) => {
        if (flag.field === undefined) {
          ignored.push(given);
          return;
        }
        const converted = parseFlagValue(flag.kind, value);
        if ("error" in converted) {
          throw new CaptureFlagError(`invalid argument ${JSON.stringify(value)} for ${shown}: ${converted.error}`);
        }
        setField(config, flag.field, converted.value);
        delete fromEnv[flag.field];
      },
    );
  } catch (e) {
    if (e instanceof CommandLineError) throw new CaptureFlagError(e.message, { cause: e });
    throw e;
  }

  // The environment-only settings and the run-time defaults of the proxy ids.
  for (const [field, [variable, fallback]] of Object.entries(ENV_ONLY) as [StringField, readonly [string, string]][]) {
    const given = Object.hasOwn(env, variable);
    config[field] = given ? (env[variable] as string) : fallback;
    if (given) fromEnv[field] = variable;
  }
  if (config.ProxyUID === "") {
    config.ProxyUID = options.lookupUid?.(env.ENVOY_USER ?? "istio-proxy") ?? DEFAULT_PROXY_UID;
  }
  if (config.ProxyGID === "") config.ProxyGID = config.ProxyUID;
  return { config, positional, ignored, fromEnv };
}
