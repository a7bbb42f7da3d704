/**
 * The `istio-iptables` command line (the `args` of an injected pod's `istio-init` container) read
 * into a CaptureConfig, the way the command itself reads it (Istio's tools/istio-iptables/pkg/cmd,
 * a cobra command with pflag flags):
 *
 * - it starts from the command's defaults (config.ts `defaultCaptureConfig`: ports 15001/15006/15008,
 *   TPROXY mark 1337 and route table 133, probe port 15002 with a 5s timeout);
 * - the environment comes next: every flag but `--envoy-port` can also be set by its name in upper
 *   case with `-` as `_` (`--proxy-uid` by `PROXY_UID`), and three flags by a second variable
 *   (`ISTIO_META_DNS_CAPTURE`, `INVALID_DROP`, `ISTIO_DUAL_STACK`, which win over the first); a value
 *   that does not parse is ignored, as the command ignores it;
 * - then the flags, which win over the environment: `--name value`, `--name=value`, `-p value`,
 *   `-p=value`, `-pvalue`, grouped booleans (`-n`), `--bool` / `--bool=false` (never `--bool false`:
 *   the `false` is then an ordinary argument, which the command ignores), `--` ends the flags;
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
import { goDurationString, parseGoDuration } from "../../mesh/duration.js";
import { type CaptureConfig, defaultCaptureConfig } from "./config.js";

/** An argument the command would refuse; the message names the flag and the cause. */
export class CaptureFlagError extends Error {
  override name = "CaptureFlagError";
}

type FlagKind = "string" | "bool" | "uint16" | "duration";

/** The CaptureConfig fields that hold text. */
type StringField = { [K in keyof CaptureConfig]: CaptureConfig[K] extends string ? K : never }[keyof CaptureConfig];

interface FlagSpec {
  name: string;
  shorthand?: string;
  kind: FlagKind;
  field: keyof CaptureConfig;
  /** Whether the flag's name as an environment variable sets it (all but --envoy-port). */
  env: boolean;
  /** A second environment variable that sets it (and wins over the first). */
  additionalEnv?: string;
}

function flag(
  name: string,
  shorthand: string | undefined,
  kind: FlagKind,
  field: keyof CaptureConfig,
  extra: { env?: boolean; additionalEnv?: string } = {},
): FlagSpec {
  const spec: FlagSpec = { name, kind, field, env: extra.env ?? true };
  if (shorthand !== undefined) spec.shorthand = shorthand;
  if (extra.additionalEnv !== undefined) spec.additionalEnv = extra.additionalEnv;
  return spec;
}

/** The command's flags, in the order it registers them (which is the order the environment is read in). */
const FLAGS: readonly FlagSpec[] = [
  flag("envoy-port", "p", "string", "ProxyPort", { env: false }),
  flag("inbound-capture-port", "z", "string", "InboundCapturePort"),
  flag("inbound-tunnel-port", "e", "string", "InboundTunnelPort"),
  flag("proxy-uid", "u", "string", "ProxyUID"),
  flag("proxy-gid", "g", "string", "ProxyGID"),
  flag("istio-inbound-interception-mode", "m", "string", "InboundInterceptionMode"),
  flag("istio-inbound-ports", "b", "string", "InboundPortsInclude"),
  flag("istio-local-exclude-ports", "d", "string", "InboundPortsExclude"),
  flag("istio-exclude-interfaces", "c", "string", "ExcludeInterfaces"),
  flag("istio-service-cidr", "i", "string", "OutboundIPRangesInclude"),
  flag("istio-service-exclude-cidr", "x", "string", "OutboundIPRangesExclude"),
  flag("istio-outbound-ports", "q", "string", "OutboundPortsInclude"),
  flag("istio-local-outbound-ports-exclude", "o", "string", "OutboundPortsExclude"),
  flag("kube-virt-interfaces", "k", "string", "RerouteVirtualInterfaces"),
  flag("istio-inbound-tproxy-mark", "t", "string", "InboundTProxyMark"),
  flag("istio-inbound-tproxy-route-table", "r", "string", "InboundTProxyRouteTable"),
  flag("dry-run", "n", "bool", "DryRun"),
  flag("iptables-probe-port", undefined, "uint16", "IptablesProbePort"),
  flag("probe-timeout", undefined, "duration", "ProbeTimeout"),
  flag("skip-rule-apply", undefined, "bool", "SkipRuleApply"),
  flag("run-validation", undefined, "bool", "RunValidation"),
  flag("redirect-dns", undefined, "bool", "RedirectDNS", { additionalEnv: "ISTIO_META_DNS_CAPTURE" }),
  flag("drop-invalid", undefined, "bool", "DropInvalid", { additionalEnv: "INVALID_DROP" }),
  flag("dual-stack", undefined, "bool", "DualStack", { additionalEnv: "ISTIO_DUAL_STACK" }),
  flag("capture-all-dns", undefined, "bool", "CaptureAllDNS"),
  flag("network-namespace", undefined, "string", "NetworkNamespace"),
  flag("cni-mode", undefined, "bool", "HostFilesystemPodNetwork"),
  flag("reconcile", undefined, "bool", "Reconcile"),
  flag("cleanup-only", undefined, "bool", "CleanupOnly"),
  flag("force-apply", undefined, "bool", "ForceApply"),
  flag("native-nftables", undefined, "bool", "NativeNftables"),
  flag("force-iptables-binary", undefined, "string", "ForceIptablesBinary"),
];

/**
 * pilot-agent's logging flags (its persistent flags, so the subcommand accepts them too): accepted
 * and ignored. `log_as_json` is a boolean; the others take a value.
 */
const LOGGING_FLAGS: ReadonlyMap<string, FlagKind> = new Map<string, FlagKind>([
  ["log_as_json", "bool"],
  ["log_output_level", "string"],
  ["log_stacktrace_level", "string"],
  ["log_caller", "string"],
  ["log_target", "string"],
  ["log_rotate", "string"],
  ["log_rotate_max_age", "string"],
  ["log_rotate_max_size", "string"],
  ["log_rotate_max_backups", "string"],
  ["vklog", "string"],
]);

/** The settings that only environment variables give, with their defaults. */
export const ENV_ONLY = {
  OwnerGroupsInclude: ["ISTIO_OUTBOUND_OWNER_GROUPS", "*"],
  OwnerGroupsExclude: ["ISTIO_OUTBOUND_OWNER_GROUPS_EXCLUDE", ""],
  HostIPv4LoopbackCidr: ["ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR", "127.0.0.1/32"],
} as const satisfies Partial<Record<StringField, readonly [string, string]>>;

/** The uid `istio-proxy` runs as in Istio's proxy image, the command's default proxy uid. */
export const DEFAULT_PROXY_UID = "1337";

const BY_NAME = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORTHAND = new Map(FLAGS.filter((f) => f.shorthand !== undefined).map((f) => [f.shorthand as string, f]));

/** Every environment variable istio-iptables reads its settings from. */
export function captureEnvNames(): ReadonlySet<string> {
  const names = new Set<string>(Object.values(ENV_ONLY).map(([variable]) => variable));
  for (const spec of FLAGS) {
    if (spec.env) names.add(flagEnvName(spec.name));
    if (spec.additionalEnv !== undefined) names.add(spec.additionalEnv);
  }
  return names;
}

/** The environment variable a flag's name gives: `proxy-uid` → `PROXY_UID`. */
export function flagEnvName(name: string): string {
  return name.replaceAll("-", "_").toUpperCase();
}

export interface CaptureArgsOptions {
  /** The container's environment (name → value); none by default. */
  env?: Readonly<Record<string, string>>;
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

/** Go's strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false;
  return undefined;
}

/** Go's strconv.ParseUint(text, 0, 16): decimal, or 0x / 0o / 0 / 0b prefixed, `_` between digits with a prefix. */
function parseUint16(text: string): number | string {
  let digits = text;
  let base = 10;
  const lower = text.toLowerCase();
  if (lower.startsWith("0x")) [base, digits] = [16, text.slice(2)];
  else if (lower.startsWith("0o")) [base, digits] = [8, text.slice(2)];
  else if (lower.startsWith("0b")) [base, digits] = [2, text.slice(2)];
  else if (text.length > 1 && text.startsWith("0")) [base, digits] = [8, text.slice(1)];
  if (base !== 10) {
    if (/^_?[^_]+(_[^_]+)*$/.test(digits)) digits = digits.replaceAll("_", "");
    else return "invalid syntax";
  }
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[base] as RegExp;
  if (!valid.test(digits)) return "invalid syntax";
  const value = Number.parseInt(digits, base);
  return value > 65535 ? "value out of range" : value;
}

/** A flag's text value converted for its field, or why it cannot be. */
function convert(spec: FlagSpec, text: string): { value: string | number | boolean } | { error: string } {
  switch (spec.kind) {
    case "string":
      return { value: text };
    case "bool": {
      const value = parseGoBool(text);
      return value === undefined
        ? { error: `strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax` }
        : { value };
    }
    case "uint16": {
      const value = parseUint16(text);
      return typeof value === "string"
        ? { error: `strconv.ParseUint: parsing ${JSON.stringify(text)}: ${value}` }
        : { value };
    }
    case "duration":
      try {
        return { value: goDurationString(parseGoDuration(text)) };
      } catch (e) {
        return { error: (e as Error).message };
      }
  }
}

function setField(config: CaptureConfig, field: keyof CaptureConfig, value: string | number | boolean): void {
  (config as unknown as Record<string, unknown>)[field] = value;
}

/** The name of the program an argument runs: its last path element. */
function baseName(arg: string): string {
  return arg.slice(arg.lastIndexOf("/") + 1);
}

/** The arguments after the command name(s): `[pilot-agent] istio-iptables ARGS` → `ARGS`. */
function withoutCommandName(args: readonly string[]): readonly string[] {
  let rest = args;
  if (rest.length > 0 && baseName(rest[0] as string) === "pilot-agent") rest = rest.slice(1);
  if (rest.length > 0 && baseName(rest[0] as string) === "istio-iptables") rest = rest.slice(1);
  return rest;
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
  const fromVariable = (spec: FlagSpec, variable: string) => {
    if (!Object.hasOwn(env, variable)) return;
    const converted = convert(spec, env[variable] as string);
    if ("error" in converted) return;
    setField(config, spec.field, converted.value);
    fromEnv[spec.field] = variable;
  };
  for (const spec of FLAGS) {
    if (spec.env) fromVariable(spec, flagEnvName(spec.name));
    if (spec.additionalEnv !== undefined) fromVariable(spec, spec.additionalEnv);
  }

  const positional: string[] = [];
  const ignored: string[] = [];
  const set = (spec: FlagSpec, text: string, shown: string) => {
    const converted = convert(spec, text);
    if ("error" in converted) {
      throw new CaptureFlagError(`invalid argument ${JSON.stringify(text)} for ${shown}: ${converted.error}`);
    }
    setField(config, spec.field, converted.value);
    delete fromEnv[spec.field];
  };
  const rest = [...withoutCommandName(args)];
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
        throw new CaptureFlagError(`bad flag syntax: ${arg}`);
      }
      if (name === "help")
        throw new CaptureFlagError(`${arg}: istio-iptables would print its help and program nothing`);
      const logging = LOGGING_FLAGS.get(name);
      const spec = BY_NAME.get(name);
      if (spec === undefined && logging === undefined) {
        throw new CaptureFlagError(`unknown flag: --${name} (istio-iptables has no such flag)`);
      }
      const kind = spec?.kind ?? (logging as FlagKind);
      let value: string;
      if (inline !== undefined) value = inline;
      else if (kind === "bool") value = "true";
      else if (rest.length > 0) value = rest.shift() as string;
      else throw new CaptureFlagError(`flag needs an argument: --${name}`);
      if (spec === undefined) ignored.push(inline === undefined && kind !== "bool" ? `${arg} ${value}` : arg);
      else set(spec, value, `--${name}`);
      continue;
    }
    // One or more shorthands: -n, -nu 1337, -u1337, -u=1337.
    let letters = arg.slice(1);
    while (letters.length > 0) {
      const letter = letters[0] as string;
      letters = letters.slice(1);
      if (letter === "h")
        throw new CaptureFlagError(`-h in ${arg}: istio-iptables would print its help and program nothing`);
      const spec = BY_SHORTHAND.get(letter);
      if (spec === undefined) {
        throw new CaptureFlagError(`unknown shorthand flag: '${letter}' in ${arg} (istio-iptables has no such flag)`);
      }
      const shown = `-${letter} (--${spec.name})`;
      let value: string;
      if (letters.startsWith("=")) {
        value = letters.slice(1);
        letters = "";
      } else if (spec.kind === "bool") {
        value = "true";
      } else if (letters.length > 0) {
        value = letters;
        letters = "";
      } else if (rest.length > 0) {
        value = rest.shift() as string;
      } else {
        throw new CaptureFlagError(`flag needs an argument: '${letter}' in ${arg} (--${spec.name})`);
      }
      set(spec, value, shown);
    }
  }

  // The environment-only settings and the run-time defaults of the proxy ids.
  for (const [field, [variable, fallback]] of Object.entries(ENV_ONLY) as [StringField, readonly [string, string]][]) {
    const given = Object.hasOwn(env, variable);
    config[field] = given ? (env[variable] as string) : fallback;
    if (given) fromEnv[field] = variable;
  }
  if (config.ProxyUID === "") config.ProxyUID = DEFAULT_PROXY_UID;
  if (config.ProxyGID === "") config.ProxyGID = config.ProxyUID;
  return { config, positional, ignored, fromEnv };
}
